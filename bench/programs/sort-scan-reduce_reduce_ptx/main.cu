// Multi-statistic reduction written with inline PTX: a 64-bit sum kept as two
// 32-bit halves with an add.cc/addc carry chain, min.u32 and max.u32, popc.b32
// bit counts, xor.b32, the lane index from %laneid, and warp butterflies with
// shfl.sync.bfly.b32 (full 32-lane mask, clamp 0x1f). Stage 1 reduces with a
// grid-stride loop to per-block partials; stage 2 (one block) folds them.
// Integer results only: exact against the CPU.
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

constexpr int kThreads = 256;

struct Stats {
  unsigned lo, hi, mn, mx, pop, x;
};

__device__ __forceinline__ unsigned lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void add64(unsigned& lo, unsigned& hi, unsigned alo, unsigned ahi) {
  asm("add.cc.u32 %0, %0, %2;\n\taddc.u32 %1, %1, %3;" : "+r"(lo), "+r"(hi) : "r"(alo), "r"(ahi));
}
__device__ __forceinline__ unsigned ptx_min(unsigned a, unsigned b) {
  unsigned r;
  asm("min.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ unsigned ptx_max(unsigned a, unsigned b) {
  unsigned r;
  asm("max.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ unsigned ptx_popc(unsigned a) {
  unsigned r;
  asm("popc.b32 %0, %1;" : "=r"(r) : "r"(a));
  return r;
}
__device__ __forceinline__ unsigned ptx_xor(unsigned a, unsigned b) {
  unsigned r;
  asm("xor.b32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
__device__ __forceinline__ unsigned bfly(unsigned v, unsigned mask) {
  unsigned r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(mask));
  return r;
}

__device__ void combine(Stats& a, const Stats& b) {
  add64(a.lo, a.hi, b.lo, b.hi);
  a.mn = ptx_min(a.mn, b.mn);
  a.mx = ptx_max(a.mx, b.mx);
  a.pop += b.pop;
  a.x = ptx_xor(a.x, b.x);
}

__device__ Stats block_reduce(Stats v) {
  __shared__ Stats part[kThreads / 32];
  for (unsigned m = 16; m > 0; m >>= 1) {
    Stats o = {bfly(v.lo, m), bfly(v.hi, m), bfly(v.mn, m), bfly(v.mx, m), bfly(v.pop, m), bfly(v.x, m)};
    combine(v, o);
  }
  unsigned lane = lane_id(), warp = threadIdx.x / 32;
  if (lane == 0) part[warp] = v;
  __syncthreads();
  Stats r = part[0];
  for (int w = 1; w < kThreads / 32; ++w) combine(r, part[w]);
  return r;
}

__global__ void stage1(const unsigned* __restrict__ in, size_t n, Stats* __restrict__ partial) {
  Stats v = {0u, 0u, 0xffffffffu, 0u, 0u, 0u};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned a = in[i];
    Stats e = {a, 0u, a, a, ptx_popc(a), a};
    combine(v, e);
  }
  Stats r = block_reduce(v);
  if (threadIdx.x == 0) partial[blockIdx.x] = r;
}

__global__ void stage2(const Stats* __restrict__ partial, int count, Stats* __restrict__ out) {
  Stats v = {0u, 0u, 0xffffffffu, 0u, 0u, 0u};
  for (int i = threadIdx.x; i < count; i += blockDim.x) combine(v, partial[i]);
  Stats r = block_reduce(v);
  if (threadIdx.x == 0) *out = r;
}

int main(int argc, char** argv) {
  long long nl = argc > 1 ? atoll(argv[1]) : 8000057LL;
  if (nl <= 0 || nl > (1LL << 27)) {
    printf("VERDICT: FAIL bad-args\n");  // keeps the 32-bit popcount total from overflowing
    return 1;
  }
  size_t n = (size_t)nl;
  std::vector<unsigned> in(n);
  uint32_t s = 0x19a4c116u;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    in[i] = s | 0x00010000u;  // no zeros: the minimum is not trivially 0
  }
  in[n / 2] = 7u;
  in[n / 3] = 0xffffffffu;
  int blocks = 264;
  unsigned* din;
  Stats *dpart, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dpart, blocks * sizeof(Stats)));
  CHECK(cudaMalloc(&dout, sizeof(Stats)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  stage1<<<blocks, kThreads>>>(din, n, dpart);
  CHECK(cudaGetLastError());
  stage2<<<1, kThreads>>>(dpart, blocks, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  Stats g;
  CHECK(cudaMemcpy(&g, dout, sizeof(Stats), cudaMemcpyDeviceToHost));

  uint64_t sum = 0;
  unsigned mn = 0xffffffffu, mx = 0, pop = 0, x = 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned a = in[i];
    sum += a;
    mn = a < mn ? a : mn;
    mx = a > mx ? a : mx;
    pop += (unsigned)__builtin_popcount(a);
    x ^= a;
  }
  uint64_t gsum = ((uint64_t)g.hi << 32) | g.lo;
  long bad = 0;
  if (gsum != sum) { fprintf(stderr, "sum %llu vs %llu\n", (unsigned long long)gsum, (unsigned long long)sum); ++bad; }
  if (g.mn != mn || g.mx != mx) { fprintf(stderr, "min/max %u %u vs %u %u\n", g.mn, g.mx, mn, mx); ++bad; }
  if (g.pop != pop || g.x != x) { fprintf(stderr, "popcount/xor %u %08x vs %u %08x\n", g.pop, g.x, pop, x); ++bad; }
  uint32_t h = 2166136261u;
  for (unsigned v : {(unsigned)sum, (unsigned)(sum >> 32), mn, mx, pop, x}) h = (h ^ v) * 16777619u;
  CHECK(cudaFree(din)); CHECK(cudaFree(dpart)); CHECK(cudaFree(dout));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("sum %llu min %u max %u popcount %u xor %08x\n", (unsigned long long)sum, mn, mx, pop, x);
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
