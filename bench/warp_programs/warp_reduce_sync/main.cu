// __reduce_{add,min,max,and,or,xor}_sync over a warp's 32 lanes, signed and unsigned,
// and with a partial mask (lanes 8-31) in a branch the other lanes skip.
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

constexpr int kPer = 9, kBlock = 160, kGrid = 21, kN = kBlock * kGrid;

__global__ void reduce(const unsigned* in, unsigned* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned* o = out + t * kPer;
  unsigned u = in[t];
  int s = (int)u - 2048;
  o[0] = __reduce_add_sync(0xffffffff, u);
  o[1] = (unsigned)__reduce_min_sync(0xffffffff, s);
  o[2] = (unsigned)__reduce_max_sync(0xffffffff, s);
  o[3] = __reduce_and_sync(0xffffffff, u | 0xf0u);
  o[4] = __reduce_or_sync(0xffffffff, u & 0x0f0fu);
  o[5] = __reduce_xor_sync(0xffffffff, u);
  o[6] = o[7] = o[8] = 0;
  if (lane >= 8) {
    o[6] = __reduce_add_sync(0xffffff00u, u);
    o[7] = __reduce_max_sync(0xffffff00u, u);
    o[8] = __reduce_min_sync(0xffffff00u, u);
  }
}

static void launch(const unsigned* in, unsigned* out) { reduce<<<kGrid, kBlock>>>(in, out); }

int main() {
  std::vector<unsigned> in = inputs(kN, 31337u);
  std::vector<unsigned> out = run(launch, kN, kPer, in), want(out.size());
  for (int t = 0; t < kN; ++t) {
    int l = t % 32, base = t - l;
    unsigned add = 0, andv = ~0u, orv = 0, xorv = 0, padd = 0, pmax = 0, pmin = ~0u;
    int mn = 1 << 30, mx = -(1 << 30);
    for (int k = 0; k < 32; ++k) {
      unsigned u = in[base + k];
      int s = (int)u - 2048;
      add += u;
      mn = s < mn ? s : mn;
      mx = s > mx ? s : mx;
      andv &= u | 0xf0u;
      orv |= u & 0x0f0fu;
      xorv ^= u;
      if (k >= 8) {
        padd += u;
        pmax = u > pmax ? u : pmax;
        pmin = u < pmin ? u : pmin;
      }
    }
    unsigned* w = &want[(size_t)t * kPer];
    w[0] = add;
    w[1] = (unsigned)mn;
    w[2] = (unsigned)mx;
    w[3] = andv;
    w[4] = orv;
    w[5] = xorv;
    w[6] = l >= 8 ? padd : 0;
    w[7] = l >= 8 ? pmax : 0;
    w[8] = l >= 8 ? pmin : 0;
  }
  return verdict(out, want, kPer);
}
