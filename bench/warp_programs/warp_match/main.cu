// __match_any_sync and __match_all_sync on 32-bit, 64-bit and float keys, with the full
// mask and with a partial one in a branch: each result is a 32-bit mask of warp lanes.
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

constexpr int kPer = 8, kBlock = 128, kGrid = 23, kN = kBlock * kGrid;

__global__ void match(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned* o = out + t * kPer;
  unsigned key = in[t] % 5u;
  o[0] = __match_any_sync(0xffffffff, key);
  int pred = -1;
  o[1] = __match_all_sync(0xffffffff, key, &pred);
  o[2] = (unsigned)pred;
  o[3] = __match_all_sync(0xffffffff, blockIdx.x, &pred);
  o[4] = (unsigned)pred;
  unsigned long long wide = (unsigned long long)(lane / 8) << 40;
  o[5] = __match_any_sync(0xffffffff, wide);
  float f = (lane % 3) * 0.5f;
  o[6] = __match_any_sync(0xffffffff, f);
  o[7] = 0;
  if (lane < 12) o[7] = __match_any_sync(0x00000fffu, (unsigned)(lane % 5));
}

static void launch(const unsigned* in, unsigned* out) { match<<<kGrid, kBlock>>>(in, out); }

int main() {
  std::vector<unsigned> in = inputs(kN, 4242u);
  std::vector<unsigned> out = run(launch, kN, kPer, in), want(out.size());
  for (int t = 0; t < kN; ++t) {
    int l = t % 32, base = t - l;
    unsigned* w = &want[(size_t)t * kPer];
    unsigned same = 0, wide = 0, fl = 0, part = 0;
    for (int k = 0; k < 32; ++k) {
      if (in[base + k] % 5u == in[t] % 5u) same |= 1u << k;
      if (k / 8 == l / 8) wide |= 1u << k;
      if (k % 3 == l % 3) fl |= 1u << k;
      if (k < 12 && k % 5 == l % 5) part |= 1u << k;
    }
    bool all = same == 0xffffffffu;
    w[0] = same;
    w[1] = all ? 0xffffffffu : 0u;
    w[2] = all ? 1u : 0u;
    w[3] = 0xffffffffu;
    w[4] = 1u;
    w[5] = wide;
    w[6] = fl;
    w[7] = l < 12 ? part : 0u;
  }
  return verdict(out, want, kPer);
}
