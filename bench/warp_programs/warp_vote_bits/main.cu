// Votes and lane masks with CUDA's 32-bit results: __ballot_sync with full and partial
// masks, __any_sync/__all_sync/__uni_sync, __activemask in a branch only some lanes
// take, and __popc/__ffs/__clz on the 32-bit ballots (right only when a ballot holds
// exactly the warp's 32 lanes).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

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

constexpr int kPer = 10, kBlock = 128, kGrid = 29, kN = kBlock * kGrid;

__global__ void votes(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned v = in[t];
  unsigned* o = out + t * kPer;
  unsigned b = __ballot_sync(0xffffffff, v & 1);
  o[0] = b;
  o[1] = __popc(b);
  o[2] = __ffs(b);
  o[3] = __clz(b);
  o[4] = __any_sync(0xffffffff, v == 7) | (__all_sync(0xffffffff, v < 4096) << 1) |
         (__uni_sync(0xffffffff, lane < 40) << 2) | (__uni_sync(0xffffffff, lane < 16) << 3) |
         (__any_sync(0xffffffff, v > 4000) << 4);
  o[5] = o[6] = o[7] = 0xdeadbeefu;
  if (lane < 20) {
    unsigned active = __activemask();
    o[5] = active;
    o[6] = __ballot_sync(active, v & 2);
    o[7] = __any_sync(active, v & 4) | (__all_sync(active, lane < 20) << 1);
  }
  o[8] = 0;
  if (lane & 1) o[8] = __ballot_sync(0xaaaaaaaau, v & 8);
  o[9] = __popc(__ballot_sync(0xffffffff, 1)) + 100 * (__ffs(__ballot_sync(0xffffffff, lane == 31)));
}

static void launch(const unsigned* in, unsigned* out) { votes<<<kGrid, kBlock>>>(in, out); }

int main() {
  std::vector<unsigned> in = inputs(kN, 99u);
  std::vector<unsigned> out = run(launch, kN, kPer, in), want(out.size());
  for (int t = 0; t < kN; ++t) {
    int l = t % 32, base = t - l;
    auto ballot = [&](bool (*pred)(unsigned, int), unsigned mask) {
      unsigned r = 0;
      for (int k = 0; k < 32; ++k)
        if (((mask >> k) & 1u) && pred(in[base + k], k)) r |= 1u << k;
      return r;
    };
    unsigned* w = &want[(size_t)t * kPer];
    unsigned b = ballot([](unsigned v, int) { return (v & 1) != 0; }, ~0u);
    w[0] = b;
    w[1] = __builtin_popcount(b);
    w[2] = b ? __builtin_ctz(b) + 1 : 0;
    w[3] = b ? __builtin_clz(b) : 32;
    w[4] = (ballot([](unsigned v, int) { return v == 7; }, ~0u) != 0) | (1u << 1) | (1u << 2) |
           (0u << 3) | ((ballot([](unsigned v, int) { return v > 4000; }, ~0u) != 0) << 4);
    if (l < 20) {
      w[5] = 0xfffffu;
      w[6] = ballot([](unsigned v, int) { return (v & 2) != 0; }, 0xfffffu);
      w[7] = (ballot([](unsigned v, int) { return (v & 4) != 0; }, 0xfffffu) != 0) | (1u << 1);
    } else {
      w[5] = w[6] = w[7] = 0xdeadbeefu;
    }
    w[8] = (l & 1) ? ballot([](unsigned v, int) { return (v & 8) != 0; }, 0xaaaaaaaau) : 0;
    w[9] = 32 + 100 * 32;
  }
  return verdict(out, want, kPer);
}
