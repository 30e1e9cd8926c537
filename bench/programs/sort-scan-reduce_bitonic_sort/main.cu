// Bitonic sort of 64-bit composite keys (32-bit key << 32 | original index, so
// the order is total and the result unique). Chunks of 2048 are sorted in
// shared memory; larger merge stages use a global compare-exchange kernel while
// the partner distance is >= 2048 and finish each stage in shared memory. The
// input is padded to a power of two with all-ones sentinels. Verification is
// O(n): the output must be strictly increasing and a permutation of the input
// (every index exactly once, with its own key).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

constexpr int kThreads = 1024, kChunk = 2 * kThreads;

__device__ inline void cmp_swap(uint64_t& a, uint64_t& b, bool ascending) {
  if ((a > b) == ascending) {
    uint64_t t = a; a = b; b = t;
  }
}

// Stages k = 2 .. kmax (all j) if kfixed == 0; otherwise only stage kfixed for
// j = kChunk/2 .. 1. Direction always comes from the global index.
__global__ void local_bitonic(uint64_t* data, int kfixed) {
  __shared__ uint64_t s[kChunk];
  size_t base = (size_t)blockIdx.x * kChunk;
  s[threadIdx.x] = data[base + threadIdx.x];
  s[threadIdx.x + kThreads] = data[base + threadIdx.x + kThreads];
  __syncthreads();
  int t = threadIdx.x;
  int kstart = kfixed ? kfixed : 2, kend = kfixed ? kfixed : kChunk;
  for (int k = kstart; k <= kend; k <<= 1) {
    for (int j = (kfixed ? kChunk : k) >> 1; j > 0; j >>= 1) {
      int i = 2 * t - (t & (j - 1));
      bool asc = ((base + i) & (size_t)k) == 0;
      cmp_swap(s[i], s[i + j], asc);
      __syncthreads();
    }
  }
  data[base + threadIdx.x] = s[threadIdx.x];
  data[base + threadIdx.x + kThreads] = s[threadIdx.x + kThreads];
}

__global__ void global_step(uint64_t* data, size_t half, size_t k, size_t j) {
  size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= half) return;
  size_t i = 2 * t - (t & (j - 1));
  bool asc = (i & k) == 0;
  uint64_t a = data[i], b = data[i + j];
  if ((a > b) == asc) {
    data[i] = b;
    data[i + j] = a;
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000003;
  if (n <= 0 || n > (1 << 26)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  size_t np = kChunk;
  while (np < (size_t)n) np <<= 1;
  std::vector<uint32_t> key(n);
  std::vector<uint64_t> a(np, ~0ull);
  uint32_t s = 0xab1c5ed5u;
  for (int i = 0; i < n; ++i) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    key[i] = (i % 4 == 0) ? (s % 1000u) : s;  // duplicate keys, resolved by the index
    a[i] = ((uint64_t)key[i] << 32) | (uint32_t)i;
  }
  uint64_t* d;
  CHECK(cudaMalloc(&d, np * sizeof(uint64_t)));
  CHECK(cudaMemcpy(d, a.data(), np * sizeof(uint64_t), cudaMemcpyHostToDevice));
  unsigned chunks = (unsigned)(np / kChunk);
  local_bitonic<<<chunks, kThreads>>>(d, 0);
  CHECK(cudaGetLastError());
  for (size_t k = 2 * kChunk; k <= np; k <<= 1) {
    for (size_t j = k >> 1; j >= (size_t)kChunk; j >>= 1) {
      global_step<<<(unsigned)((np / 2 + 255) / 256), 256>>>(d, np / 2, k, j);
      CHECK(cudaGetLastError());
    }
    local_bitonic<<<chunks, kThreads>>>(d, (int)k);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  std::vector<uint64_t> g(np);
  CHECK(cudaMemcpy(g.data(), d, np * sizeof(uint64_t), cudaMemcpyDeviceToHost));

  long bad = 0;
  std::vector<unsigned char> seen(n, 0);
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < np; ++i) {
    if (i >= (size_t)n) {
      if (g[i] != ~0ull && bad++ < 5) fprintf(stderr, "padding slot %zu holds %016llx\n", i, (unsigned long long)g[i]);
      continue;
    }
    uint32_t idx = (uint32_t)g[i], k = (uint32_t)(g[i] >> 32);
    if (i > 0 && !(g[i] > g[i - 1]) && bad++ < 5) fprintf(stderr, "order broken at %zu\n", i);
    if ((idx >= (uint32_t)n || seen[idx] || key[idx] != k) && bad++ < 5) fprintf(stderr, "slot %zu: bad element\n", i);
    if (idx < (uint32_t)n) seen[idx] = 1;
    h = (h ^ idx) * 16777619u;
  }
  CHECK(cudaFree(d));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
