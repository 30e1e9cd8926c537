// Monte Carlo volumes from cuRAND's Philox generator. Each point takes three
// 32-bit draws, keeps the top 16 bits of each as integer coordinates in
// [0, 65536), and is tested against three solids with exact 64-bit integer
// arithmetic. Blocks count hits in shared memory, then add to global
// counters. A second stream of standard normals gives moments and a count of
// |z| > 2. The CPU copies the same random numbers back and recounts: counts
// must match exactly, moments within float-to-double summation error.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <curand.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)
#define CHECK_RAND(call)                                                              \
  do {                                                                                \
    curandStatus_t st_ = (call);                                                      \
    if (st_ != CURAND_STATUS_SUCCESS) {                                               \
      fprintf(stderr, "%s:%d: curand status %d\n", __FILE__, __LINE__, (int)st_);     \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr long long C = 32768;          // centre of the cube
constexpr long long R2 = C * C;         // radius 32768, squared

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

// Bit 0: inside the ball; bit 1: inside all three cylinders (Steinmetz
// solid); bit 2: below the saddle z < x*y/65536.
__host__ __device__ inline int classify(uint32_t a, uint32_t b, uint32_t c) {
  long long x = a >> 16, y = b >> 16, z = c >> 16;
  long long dx = x - C, dy = y - C, dz = z - C;
  int m = 0;
  if (dx * dx + dy * dy + dz * dz < R2) m |= 1;
  if (dx * dx + dy * dy < R2 && dy * dy + dz * dz < R2 && dx * dx + dz * dz < R2) m |= 2;
  if (z * 65536 < x * y) m |= 4;
  return m;
}

__global__ void count_hits(const uint32_t* __restrict__ u, int n, unsigned long long* __restrict__ hits) {
  __shared__ unsigned local[3];
  if (threadIdx.x < 3) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int m = classify(u[3 * (size_t)i], u[3 * (size_t)i + 1], u[3 * (size_t)i + 2]);
    if (m & 1) atomicAdd(&local[0], 1u);
    if (m & 2) atomicAdd(&local[1], 1u);
    if (m & 4) atomicAdd(&local[2], 1u);
  }
  __syncthreads();
  if (threadIdx.x < 3) atomicAdd(&hits[threadIdx.x], (unsigned long long)local[threadIdx.x]);
}

__global__ void normal_moments(const float* __restrict__ z, int n, double* __restrict__ sums,
                               unsigned* __restrict__ tail) {
  double s1 = 0, s2 = 0;
  unsigned t = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double v = z[i];
    s1 += v;
    s2 += v * v;
    t += fabsf(z[i]) > 2.0f ? 1u : 0u;
  }
  atomicAdd(&sums[0], s1);
  atomicAdd(&sums[1], s2);
  atomicAdd(tail, t);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4194304;
  if (n <= 0 || n > (1 << 26) || n % 2) {
    printf("VERDICT: FAIL bad-args (n must be even)\n");
    return 1;
  }
  uint32_t* d_u;
  float* d_z;
  unsigned long long* d_hits;
  double* d_sums;
  unsigned* d_tail;
  CHECK(cudaMalloc(&d_u, (size_t)3 * n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&d_z, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_hits, 3 * sizeof(unsigned long long)));
  CHECK(cudaMalloc(&d_sums, 2 * sizeof(double)));
  CHECK(cudaMalloc(&d_tail, sizeof(unsigned)));
  CHECK(cudaMemset(d_hits, 0, 3 * sizeof(unsigned long long)));
  CHECK(cudaMemset(d_sums, 0, 2 * sizeof(double)));
  CHECK(cudaMemset(d_tail, 0, sizeof(unsigned)));

  curandGenerator_t gen;
  CHECK_RAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CHECK_RAND(curandSetPseudoRandomGeneratorSeed(gen, 20240611ULL));
  CHECK_RAND(curandGenerate(gen, d_u, (size_t)3 * n));
  CHECK_RAND(curandGenerateNormal(gen, d_z, (size_t)n, 0.0f, 1.0f));
  count_hits<<<512, 256>>>(d_u, n, d_hits);
  CHECK(cudaGetLastError());
  normal_moments<<<512, 256>>>(d_z, n, d_sums, d_tail);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<uint32_t> u((size_t)3 * n);
  std::vector<float> z(n);
  unsigned long long hits[3];
  double sums[2];
  unsigned tail = 0;
  CHECK(cudaMemcpy(u.data(), d_u, u.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(z.data(), d_z, z.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hits, d_hits, sizeof(hits), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sums, d_sums, sizeof(sums), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&tail, d_tail, sizeof(tail), cudaMemcpyDeviceToHost));
  CHECK_RAND(curandDestroyGenerator(gen));
  CHECK(cudaFree(d_u));
  CHECK(cudaFree(d_z));
  CHECK(cudaFree(d_hits));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_tail));

  unsigned long long ref[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    int m = classify(u[3 * (size_t)i], u[3 * (size_t)i + 1], u[3 * (size_t)i + 2]);
    ref[0] += m & 1;
    ref[1] += (m >> 1) & 1;
    ref[2] += (m >> 2) & 1;
  }
  double s1 = 0, s2 = 0;
  unsigned rtail = 0;
  for (int i = 0; i < n; ++i) {
    s1 += z[i];
    s2 += (double)z[i] * z[i];
    rtail += std::fabs(z[i]) > 2.0f ? 1u : 0u;
  }
  for (int k = 0; k < 3; ++k)
    if (hits[k] != ref[k]) {
      printf("VERDICT: FAIL solid %d: %llu hits, expected %llu\n", k, hits[k], ref[k]);
      return 1;
    }
  if (tail != rtail) {
    printf("VERDICT: FAIL tail count %u != %u\n", tail, rtail);
    return 1;
  }
  // Double sums of n floats in different orders: error far below 1e-9 * n.
  if (std::fabs(sums[0] - s1) > 1e-9 * n || std::fabs(sums[1] - s2) > 1e-9 * n) {
    printf("VERDICT: FAIL normal moments %.9g %.9g vs %.9g %.9g\n", sums[0], sums[1], s1, s2);
    return 1;
  }
  // Sanity of the generator itself: 6-sigma bands for the estimates.
  const double dn = n;
  const double p_ball = M_PI / 6, p_stein = 2.0 - std::sqrt(2.0), p_saddle = 0.25;
  const double est[3] = {ref[0] / dn, ref[1] / dn, ref[2] / dn};
  const double want[3] = {p_ball, p_stein, p_saddle};
  for (int k = 0; k < 3; ++k)
    if (std::fabs(est[k] - want[k]) > 6.0 * std::sqrt(want[k] * (1 - want[k]) / dn) + 1e-4) {
      printf("VERDICT: FAIL estimate %d = %.6f, expected about %.6f\n", k, est[k], want[k]);
      return 1;
    }
  const double mean = s1 / dn, var = s2 / dn - mean * mean;
  if (std::fabs(mean) > 6.0 / std::sqrt(dn) || std::fabs(var - 1.0) > 6.0 * std::sqrt(2.0 / dn)) {
    printf("VERDICT: FAIL normal mean %.5f variance %.5f\n", mean, var);
    return 1;
  }
  printf("points=%d ball=%llu steinmetz=%llu saddle=%llu tail=%u\n", n, ref[0], ref[1], ref[2], rtail);
  uint32_t c = fnv1a(2166136261u, ref, sizeof(ref));
  c = fnv1a(c, &rtail, sizeof(rtail));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
