// The _sync shuffles with CUDA's 32-lane rules: full and partial masks, widths below 32
// (sources taken modulo the width, shfl_up/down keeping the caller's value at a segment's
// edge), a source lane past 31, 64-bit values and a butterfly warp sum. 96-thread blocks:
// on a 64-lane wavefront the second wave has only lanes 0-31. Every lane's results are
// checked against a CPU model of 32-lane warps.
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

constexpr int kOut = 12;

__global__ void shuffles(const int* in, int* out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[t];
  int* o = out + t * kOut;
  o[0] = __shfl_sync(0xffffffff, v, 5);
  o[1] = __shfl_sync(0xffffffff, v, lane + 7, 8);
  o[2] = __shfl_up_sync(0xffffffff, v, 3, 16);
  o[3] = __shfl_down_sync(0xffffffff, v, 5, 16);
  o[4] = __shfl_xor_sync(0xffffffff, v, 1, 4);
  o[5] = __shfl_xor_sync(0xffffffff, v, 16);
  o[6] = __shfl_down_sync(0xffffffff, v, 1);
  o[7] = __shfl_up_sync(0xffffffff, v, 2, 2);
  o[8] = -1;
  if (lane < 16) o[8] = __shfl_sync(0x0000ffffu, v, 15 - lane);
  o[9] = __shfl_sync(0xffffffff, v, 33);
  double d = v * 0.5;
  o[10] = (int)(2.0 * __shfl_xor_sync(0xffffffff, d, 3));
  int s = v;
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffff, s, offset);
  o[11] = s;
}

int main() {
  const int block = 96, grid = 37, n = block * grid;
  std::vector<int> in(n), out((size_t)n * kOut);
  uint32_t x = 12345u;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    in[i] = (int)(x >> 18);
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, out.size() * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  shuffles<<<grid, block>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  uint32_t h = 2166136261u;
  for (int t = 0; t < n; ++t) {
    int l = t % 32, base = t - l;
    auto at = [&](int lane) { return in[base + lane]; };
    int want[kOut];
    want[0] = at(5);
    want[1] = at((l & ~7) + ((l + 7) & 7));
    want[2] = l - 3 >= (l & ~15) ? at(l - 3) : at(l);
    want[3] = l + 5 < (l & ~15) + 16 ? at(l + 5) : at(l);
    want[4] = at(l ^ 1);
    want[5] = at(l ^ 16);
    want[6] = l < 31 ? at(l + 1) : at(l);
    want[7] = at(l);
    want[8] = l < 16 ? at(15 - l) : -1;
    want[9] = at(1);
    want[10] = at(l ^ 3);
    int sum = 0;
    for (int k = 0; k < 32; ++k) sum += at(k);
    want[11] = sum;
    for (int k = 0; k < kOut; ++k) {
      int got = out[(size_t)t * kOut + k];
      if (got != want[k] && bad++ < 5)
        fprintf(stderr, "thread %d check %d: %d, want %d\n", t, k, got, want[k]);
      h = (h ^ (uint32_t)got) * 16777619u;
    }
  }
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
