// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// Lane 0's value broadcast with __shfl_sync(mask, v, 0).
// A function that groups threads by 32 and never names warpSize: width 32 keeps
// CUDA's meaning (lane 0 of each 32-lane group) on a 64-lane wavefront.
__global__ void teams(const int* rowStart, int* out) {
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int row = gid / 32, k = gid % 32;
  int start = 0;
  if (k == 0) start = rowStart[row];
  // CHECK: start = __shfl_sync(0xffffffffffffffffull, start, 0, 32);
  start = __shfl_sync(0xffffffff, start, 0);
  out[gid] = start;
}
// DIAG: lane0_broadcast.cu:11:42: note: broadcast from lane 0 in a function that groups threads by 32: width 32 added, so each 32-lane half of a 64-lane wavefront reads its own lane 0, as in CUDA [cass-lane0-broadcast]

// Counted by warpSize, after a reduction CASS could not rewrite: lane 0 holds
// only lanes 0-31's sum. Reported with what to change.
__global__ void afterPartial(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int o = 16; o >= 1; o = o / 2) v += __shfl_xor_sync(0xffffffff, v, o);
  // CHECK: v = __shfl_sync(0xffffffffffffffffull, v, 0);
  v = __shfl_sync(0xffffffff, v, 0);
  out[threadIdx.x / warpSize] = v;
}
// DIAG: lane0_broadcast.cu:22:34: warning: broadcast from lane 0 after a shuffle loop that covered 32 lanes
// DIAG: [cass-lane0-broadcast]

// Agnostic: a full-wave reduction, then a broadcast. Left alone, nothing to say.
__global__ void agnostic(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  // CHECK: v = __shfl_sync(0xffffffffffffffffull, v, 0);
  v = __shfl_sync(0xffffffff, v, 0);
  out[threadIdx.x] = v;
}
// DIAG-NOT: lane0_broadcast.cu:32:
