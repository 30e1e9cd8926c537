// coalesced_threads() in a data-dependent branch: the group of the warp's lanes that took
// it, ranked in lane order: size, thread_rank, shfl by rank, shfl_up/shfl_down, ballot
// by rank, any, all, cg::reduce and cg::inclusive_scan over the group.
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

constexpr int kPer = 11, kBlock = 128, kGrid = 27, kN = kBlock * kGrid;

__global__ void coalesced(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  unsigned* o = out + t * kPer;
  for (int k = 0; k < kPer; ++k) o[k] = 0xdeadbeefu;
  if (v % 3u != 0u) {
    cg::coalesced_group g = cg::coalesced_threads();
    o[0] = g.num_threads();
    o[1] = g.thread_rank();
    o[2] = g.shfl(v, 0);
    o[3] = g.shfl(v, g.num_threads() - 1);
    o[4] = g.shfl_down(v, 1);
    o[5] = g.shfl_up(v, 2);
    o[6] = g.ballot(v & 1);
    o[7] = g.any(v == 10) | (g.all(v % 3u != 0u) << 1);
    o[8] = cg::reduce(g, v, cg::plus<unsigned>());
    o[9] = cg::inclusive_scan(g, v, cg::plus<unsigned>());
    o[10] = cg::reduce(g, v, cg::greater<unsigned>());
  }
}

static void launch(const unsigned* in, unsigned* out) { coalesced<<<kGrid, kBlock>>>(in, out); }

int main() {
  std::vector<unsigned> in = inputs(kN, 555u);
  std::vector<unsigned> out = run(launch, kN, kPer, in), want(out.size(), 0xdeadbeefu);
  for (int base = 0; base < kN; base += 32) {
    std::vector<int> lanes;
    for (int k = 0; k < 32; ++k)
      if (in[base + k] % 3u != 0u) lanes.push_back(k);
    unsigned n = (unsigned)lanes.size(), sum = 0, mx = 0, ballot = 0, any = 0;
    for (unsigned r = 0; r < n; ++r) {
      unsigned v = in[base + lanes[r]];
      sum += v;
      mx = v > mx ? v : mx;
      ballot |= (v & 1u) << r;
      any |= v == 10;
    }
    unsigned scan = 0;
    for (unsigned r = 0; r < n; ++r) {
      unsigned v = in[base + lanes[r]];
      scan += v;
      unsigned* w = &want[(size_t)(base + lanes[r]) * kPer];
      w[0] = n;
      w[1] = r;
      w[2] = in[base + lanes[0]];
      w[3] = in[base + lanes[n - 1]];
      w[4] = r + 1 < n ? in[base + lanes[r + 1]] : v;
      w[5] = r >= 2 ? in[base + lanes[r - 2]] : v;
      w[6] = ballot;
      w[7] = any | (1u << 1);
      w[8] = sum;
      w[9] = scan;
      w[10] = mx;
    }
  }
  return verdict(out, want, kPer);
}
