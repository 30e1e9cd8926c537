// __syncwarp orders a warp's shared-memory exchanges: each round every lane publishes
// its value in its warp's 32 slots, __syncwarp, reads another lane's, __syncwarp; then
// a half warp does the same under __syncwarp(0xffff). Slots are indexed by
// threadIdx.x / 32 and & 31, as CUDA code writes them.
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

constexpr int kPer = 2, kBlock = 256, kGrid = 17, kN = kBlock * kGrid;

__global__ void exchange(const unsigned* in, unsigned* out) {
  __shared__ unsigned slots[kBlock / 32][32];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  unsigned v = in[t];
  for (int round = 0; round < 5; ++round) {
    slots[warp][lane] = v;
    __syncwarp();
    unsigned other = slots[warp][(lane + 1 + round * 7) & 31];
    __syncwarp();
    v = v * 3u + other;
  }
  out[t * kPer] = v;
  out[t * kPer + 1] = 0;
  if (lane < 16) {
    slots[warp][lane] = v + 1u;
    __syncwarp(0xffff);
    out[t * kPer + 1] = slots[warp][15 - lane];
  }
}

static void launch(const unsigned* in, unsigned* out) { exchange<<<kGrid, kBlock>>>(in, out); }

int main() {
  std::vector<unsigned> in = inputs(kN, 7u);
  std::vector<unsigned> out = run(launch, kN, kPer, in), want(out.size());
  for (int base = 0; base < kN; base += 32) {
    unsigned v[32], next[32];
    for (int k = 0; k < 32; ++k) v[k] = in[base + k];
    for (int round = 0; round < 5; ++round) {
      for (int k = 0; k < 32; ++k) next[k] = v[k] * 3u + v[(k + 1 + round * 7) & 31];
      for (int k = 0; k < 32; ++k) v[k] = next[k];
    }
    for (int k = 0; k < 32; ++k) {
      want[(size_t)(base + k) * kPer] = v[k];
      want[(size_t)(base + k) * kPer + 1] = k < 16 ? v[15 - k] + 1u : 0u;
    }
  }
  return verdict(out, want, kPer);
}
