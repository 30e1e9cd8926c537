// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 5.2
// --warp native: HIP's own warp operations on the target's wave size, as before, with
// the warp-size warnings, and no logical-warp header.
// CHECK-NOT: cass/warp.h
__global__ void k(unsigned* out, float x) {
  // CHECK: float v = __shfl_down(x, 1);
  float v = __shfl_down_sync(0xffffffff, x, 1);
  // CHECK: out[threadIdx.x & 31] = __ballot(v > 0.f);
  out[threadIdx.x & 31] = __ballot_sync(0xffffffff, v > 0.f);
}
// DIAG: warning: '& 31' assumes 32-lane warps; AMD wavefronts have 64 lanes (use warpSize) [cass-warp-lane-arith]
