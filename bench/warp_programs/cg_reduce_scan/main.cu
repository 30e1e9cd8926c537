// cg::reduce, cg::inclusive_scan and cg::exclusive_scan over thread_block_tile<16> and
// <32> with cg::plus, cg::less, cg::greater, cg::bit_and, cg::bit_or and cg::bit_xor
// (exclusive results are checked from rank 1: rank 0's is not specified for all operators).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      printf("VERDICT: FAIL cuda-error\n");                                         \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

// Compares every result with the CPU model's; prints the verdict line.
static int verdict(const std::vector<unsigned>& got, const std::vector<unsigned>& want,
                   int per_thread) {
  long bad = 0;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i] && bad++ < 5)
      fprintf(stderr, "thread %zu check %zu: %u, want %u\n", i / per_thread, i % per_thread,
              got[i], want[i]);
    h = (h ^ got[i]) * 16777619u;
  }
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}

static std::vector<unsigned> inputs(int n, uint32_t seed) {
  std::vector<unsigned> in(n);
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = seed >> 20;  // 0..4095
  }
  return in;
}

static std::vector<unsigned> run(void (*launch)(const unsigned*, unsigned*), int n, int per,
                                 const std::vector<unsigned>& in) {
  unsigned *din, *dout;
  std::vector<unsigned> out((size_t)n * per);
  CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout, out.size() * sizeof(unsigned)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dout, 0, out.size() * sizeof(unsigned)));
  launch(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return out;
}

constexpr int kPer = 11, kTiles = 2, kBlock = 192, kGrid = 13, kN = kBlock * kGrid;

template <class Tile>
__device__ void collectives(const Tile& t, unsigned v, unsigned* o) {
  o[0] = cg::reduce(t, v, cg::plus<unsigned>());
  o[1] = cg::reduce(t, v, cg::less<unsigned>());
  o[2] = cg::reduce(t, v, cg::greater<unsigned>());
  o[3] = cg::reduce(t, v | 0x100u, cg::bit_and<unsigned>());
  o[4] = cg::reduce(t, v & 0x111u, cg::bit_or<unsigned>());
  o[5] = cg::reduce(t, v, cg::bit_xor<unsigned>());
  o[6] = cg::inclusive_scan(t, v, cg::plus<unsigned>());
  o[7] = cg::inclusive_scan(t, v, cg::greater<unsigned>());
  o[8] = cg::inclusive_scan(t, v, cg::bit_xor<unsigned>());
  unsigned ex = cg::exclusive_scan(t, v, cg::plus<unsigned>());
  unsigned exmin = cg::exclusive_scan(t, v, cg::less<unsigned>());
  o[9] = t.thread_rank() == 0 ? 0u : ex;
  o[10] = t.thread_rank() == 0 ? 0u : exmin;
}

__global__ void scans(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  unsigned* o = out + (size_t)t * kPer * kTiles;
  cg::thread_block block = cg::this_thread_block();
  collectives(cg::tiled_partition<16>(block), v, o);
  collectives(cg::tiled_partition<32>(block), v, o + kPer);
}

static void launch(const unsigned* in, unsigned* out) { scans<<<kGrid, kBlock>>>(in, out); }

int main() {
  const int per = kPer * kTiles;
  std::vector<unsigned> in = inputs(kN, 8088u);
  std::vector<unsigned> out = run(launch, kN, per, in), want(out.size());
  const unsigned sizes[kTiles] = {16, 32};
  for (int t = 0; t < kN; ++t) {
    for (int s = 0; s < kTiles; ++s) {
      unsigned n = sizes[s], r = (t % kBlock) % n, first = t - r;
      unsigned add = 0, mn = ~0u, mx = 0, andv = ~0u, orv = 0, xorv = 0;
      unsigned incadd = 0, incmax = 0, incxor = 0, exadd = 0, exmin = ~0u;
      for (unsigned k = 0; k < n; ++k) {
        unsigned u = in[first + k];
        add += u;
        mn = u < mn ? u : mn;
        mx = u > mx ? u : mx;
        andv &= u | 0x100u;
        orv |= u & 0x111u;
        xorv ^= u;
        if (k <= r) {
          incadd += u;
          incmax = u > incmax ? u : incmax;
          incxor ^= u;
        }
        if (k < r) {
          exadd += u;
          exmin = u < exmin ? u : exmin;
        }
      }
      unsigned* w = &want[(size_t)t * per + s * kPer];
      w[0] = add;
      w[1] = mn;
      w[2] = mx;
      w[3] = andv;
      w[4] = orv;
      w[5] = xorv;
      w[6] = incadd;
      w[7] = incmax;
      w[8] = incxor;
      w[9] = r == 0 ? 0u : exadd;
      w[10] = r == 0 ? 0u : exmin;
    }
  }
  return verdict(out, want, per);
}
