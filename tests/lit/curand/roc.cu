// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2 --roc
// REQUIRES: hipcc
// --roc maps cuRAND straight to rocRAND (HIPIFY's --roc), host and device API;
// hipcc checks the result against the installed rocRAND headers.
// CHECK: #include <rocrand/rocrand.h>
#include <curand.h>
// CHECK: #include <rocrand/rocrand_kernel.h>
#include <curand_kernel.h>

// CHECK: __global__ void draw(rocrand_state_xorwow* states, float* out, unsigned long long seed) {
__global__ void draw(curandState* states, float* out, unsigned long long seed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: rocrand_init(seed, i, 0, &states[i]);
  curand_init(seed, i, 0, &states[i]);
  // CHECK: out[i] = rocrand_uniform(&states[i]) + rocrand_normal(&states[i]);
  out[i] = curand_uniform(&states[i]) + curand_normal(&states[i]);
}

int fill(float* d, size_t n) {
  // CHECK: rocrand_generator gen;
  curandGenerator_t gen;
  // CHECK: if (rocrand_create_generator(&gen, ROCRAND_RNG_PSEUDO_DEFAULT) != ROCRAND_STATUS_SUCCESS) return 1;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS) return 1;
  // CHECK: rocrand_set_seed(gen, 1234ULL);
  curandSetPseudoRandomGeneratorSeed(gen, 1234ULL);
  // CHECK: rocrand_generate_uniform(gen, d, n);
  curandGenerateUniform(gen, d, n);
  // CHECK: return rocrand_destroy_generator(gen) == ROCRAND_STATUS_SUCCESS ? 0 : 1;
  return curandDestroyGenerator(gen) == CURAND_STATUS_SUCCESS ? 0 : 1;
}
// DIAG-NOT: hiprand
