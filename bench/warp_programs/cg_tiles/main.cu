// Cooperative groups' warp-sized tiles: thread_block_tile<N> from tiled_partition<N> of
// the block (N = 2..32) and of a 32-thread tile: thread_rank, num_threads,
// meta_group_rank, meta_group_size, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
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

constexpr int kPer = 11, kSizes = 6, kBlock = 128, kGrid = 19, kN = kBlock * kGrid;

template <unsigned N, class Tile>
__device__ void checks(const Tile& t, unsigned v, unsigned* o) {
  o[0] = t.thread_rank();
  o[1] = t.meta_group_rank();
  o[2] = t.meta_group_size();
  o[3] = t.num_threads();
  o[4] = t.shfl(v, 0);
  o[5] = t.shfl_down(v, 1);
  o[6] = t.shfl_up(v, 1);
  o[7] = t.shfl_xor(v, N / 2);
  o[8] = t.ballot(v & 1);
  o[9] = t.any(v == 9);
  o[10] = t.all(v < 4000);
  t.sync();
}

__global__ void tiles(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[t];
  unsigned* o = out + (size_t)t * kPer * kSizes;
  cg::thread_block block = cg::this_thread_block();
  checks<2>(cg::tiled_partition<2>(block), v, o);
  checks<4>(cg::tiled_partition<4>(block), v, o + kPer);
  checks<8>(cg::tiled_partition<8>(block), v, o + 2 * kPer);
  checks<16>(cg::tiled_partition<16>(block), v, o + 3 * kPer);
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  checks<32>(warp, v, o + 4 * kPer);
  checks<8>(cg::tiled_partition<8>(warp), v, o + 5 * kPer);  // a tile of a tile
}

static void launch(const unsigned* in, unsigned* out) { tiles<<<kGrid, kBlock>>>(in, out); }

int main() {
  const int per = kPer * kSizes;
  std::vector<unsigned> in = inputs(kN, 2024u);
  std::vector<unsigned> out = run(launch, kN, per, in), want(out.size());
  const unsigned sizes[kSizes] = {2, 4, 8, 16, 32, 8};
  for (int t = 0; t < kN; ++t) {
    int tid = t % kBlock;
    for (int s = 0; s < kSizes; ++s) {
      unsigned n = sizes[s], r = tid % n, first = t - r;
      unsigned* w = &want[(size_t)t * per + s * kPer];
      w[0] = r;
      w[1] = s == 5 ? (tid % 32) / 8 : tid / n;
      w[2] = s == 5 ? 4 : kBlock / n;
      w[3] = n;
      w[4] = in[first];
      w[5] = r + 1 < n ? in[t + 1] : in[t];
      w[6] = r >= 1 ? in[t - 1] : in[t];
      w[7] = in[first + (r ^ (n / 2))];
      unsigned b = 0, any = 0, all = 1;
      for (unsigned k = 0; k < n; ++k) {
        b |= (in[first + k] & 1u) << k;
        any |= in[first + k] == 9;
        all &= in[first + k] < 4000;
      }
      w[8] = b;
      w[9] = any;
      w[10] = all;
    }
  }
  return verdict(out, want, per);
}
