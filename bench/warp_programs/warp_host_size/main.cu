// The host and the device agree on a 32-lane warp: cudaGetDeviceProperties and
// cudaDeviceGetAttribute(cudaDevAttrWarpSize) report 32, as device-side warpSize does, so
// per-warp slots the host sizes from the reported warp size are each written exactly once
// by the lane 0 of a warp, with the warp's __reduce_add_sync sum.
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

constexpr int kPer = 1, kBlock = 256, kGrid = 11, kN = kBlock * kGrid;

__global__ void per_warp(const unsigned* in, unsigned* slots, int* device_warp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  unsigned sum = __reduce_add_sync(0xffffffff, in[t]);
  if (lane == 0) slots[blockIdx.x * (blockDim.x / warpSize) + warp] += sum + 1u;
  if (t == 0) *device_warp = warpSize;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int attr = 0;
  CHECK(cudaDeviceGetAttribute(&attr, cudaDevAttrWarpSize, 0));
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, per_warp, kBlock, 0));
  if (prop.warpSize != 32 || attr != 32 || blocks < 1) {
    printf("VERDICT: FAIL host warp size %d, attribute %d, %d blocks per multiprocessor\n",
           prop.warpSize, attr, blocks);
    return 1;
  }
  const int warps = kGrid * (kBlock / prop.warpSize);
  std::vector<unsigned> in = inputs(kN, 17u), slots(warps);
  unsigned *din, *dslots;
  int* dwarp;
  CHECK(cudaMalloc(&din, kN * sizeof(unsigned)));
  CHECK(cudaMalloc(&dslots, warps * sizeof(unsigned)));
  CHECK(cudaMalloc(&dwarp, sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dslots, 0, warps * sizeof(unsigned)));
  per_warp<<<kGrid, kBlock>>>(din, dslots, dwarp);
  CHECK(cudaGetLastError());
  int device_warp = 0;
  CHECK(cudaMemcpy(slots.data(), dslots, warps * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&device_warp, dwarp, sizeof(int), cudaMemcpyDeviceToHost));
  if (device_warp != prop.warpSize) {
    printf("VERDICT: FAIL device warpSize %d, host %d\n", device_warp, prop.warpSize);
    return 1;
  }
  std::vector<unsigned> want(warps);
  for (int w = 0; w < warps; ++w) {
    unsigned sum = 0;
    for (int k = 0; k < 32; ++k) sum += in[w * 32 + k];
    want[w] = sum + 1u;
  }
  return verdict(slots, want, kPer);
}
