// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// Shuffle loops written for 32 lanes, in functions that read their result per
// warpSize-lane wave: the bound becomes warpSize.
__global__ void sums(float* in, float* out) {
  float v = in[threadIdx.x];
  // CHECK: for (int offset = warpSize / 2; offset > 0; offset /= 2)
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  // CHECK: for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffffffffffull, v, o);
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  // CHECK: for (int d = 1; d < warpSize; d *= 2) {
  for (int d = 1; d < 32; d *= 2) {
    float up = __shfl_up_sync(0xffffffff, v, d);
    if (threadIdx.x % warpSize >= d) v += up;
  }
  // An explicit width names the segments: left as it is, reported.
  // CHECK: for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffffffffffull, v, o, 32);
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o, 32);
  if (threadIdx.x % warpSize == 0) out[threadIdx.x / warpSize] = v;
}
// DIAG: shfl_offset.cu:7:7: note: this shuffle loop covered 32 lanes while the function counts lanes by warpSize; its bound now reads warpSize (the same in 32-lane warps, all 64 lanes of a wavefront) [cass-shfl-offset]
// DIAG: shfl_offset.cu:10:7: note: this shuffle loop covered 32
// DIAG: shfl_offset.cu:12:7: note: this shuffle loop covered 32
// DIAG: shfl_offset.cu:18:7: warning: this shuffle loop covers 32 lanes; on a 64-lane wavefront lanes 32-63 are left out (bound it by warpSize) [cass-shfl-offset]

// No warpSize: its partial sums may be meant per 32 lanes. Reported only.
__device__ float warpSum(float v) {
  // CHECK: for (int offset = 16; offset > 0; offset /= 2)
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}
// DIAG: shfl_offset.cu:29:7: warning: this shuffle loop covers 32 lanes
