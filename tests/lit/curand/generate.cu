// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// cuRAND host generators and device states are hipRAND's.
// CHECK: #include <hiprand/hiprand.h>
#include <curand.h>
// CHECK: #include <hiprand/hiprand_kernel.h>
#include <curand_kernel.h>

__global__ void per_thread(unsigned long long seed, float* out) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: hiprandState_t state;
  curandState_t state;
  // CHECK: hiprand_init(seed, id, 0, &state);
  curand_init(seed, id, 0, &state);
  // CHECK: out[id] = hiprand_uniform(&state) + hiprand_normal(&state);
  out[id] = curand_uniform(&state) + curand_normal(&state);
  // CHECK: unsigned bits = hiprand(&state);
  unsigned bits = curand(&state);
  out[id] += bits & 1;
}

void host_fill(float* d, size_t n) {
  // CHECK: hiprandGenerator_t gen;
  curandGenerator_t gen;
  // CHECK: hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT);
  curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);
  // CHECK: hiprandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  // CHECK: hiprandGenerateUniform(gen, d, n);
  curandGenerateUniform(gen, d, n);
  // CHECK: hiprandGenerateNormal(gen, d, n, 0.0f, 1.0f);
  curandGenerateNormal(gen, d, n, 0.0f, 1.0f);
  // CHECK: hiprandDestroyGenerator(gen);
  curandDestroyGenerator(gen);
}
