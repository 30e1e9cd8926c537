// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// --warp cuda (the default): CUDA's warp intrinsics become <cass/warp.h>'s logical-warp
// operations with CUDA's own arguments (32-bit masks, widths), whatever the HIP release.
// CHECK: #include <cass/warp.h>
// CHECK-NEXT: #line 1
__global__ void k(unsigned* out, float x) {
  unsigned lane = threadIdx.x & 31;
  // CHECK: float v = __cass_shfl_down_sync(0xffffffff, x, 1);
  float v = __shfl_down_sync(0xffffffff, x, 1);
  // CHECK: v += __cass_shfl_sync(0x0000ffffu, v, 3, 16);
  v += __shfl_sync(0x0000ffffu, v, 3, 16);
  // CHECK: v += __cass_shfl_up_sync(0xffffffff, v, 2) + __cass_shfl_xor_sync(0xffffffff, v, 4, 8);
  v += __shfl_up_sync(0xffffffff, v, 2) + __shfl_xor_sync(0xffffffff, v, 4, 8);
  // CHECK: unsigned b = __cass_ballot_sync(0xffffffff, v > 0.f);
  unsigned b = __ballot_sync(0xffffffff, v > 0.f);
  // CHECK: out[lane] = __popc(b) + __ffs(b) + __clz(b) + __cass_activemask();
  out[lane] = __popc(b) + __ffs(b) + __clz(b) + __activemask();
  // CHECK: out[lane] += __cass_any_sync(b, v > 1.f) + __cass_all_sync(b, v > 2.f) + __cass_uni_sync(b, lane < 4);
  out[lane] += __any_sync(b, v > 1.f) + __all_sync(b, v > 2.f) + __uni_sync(b, lane < 4);
  int pred;
  // CHECK: out[lane] += __cass_match_any_sync(0xffffffff, lane / 4) + __cass_match_all_sync(0xffffffff, v, &pred);
  out[lane] += __match_any_sync(0xffffffff, lane / 4) + __match_all_sync(0xffffffff, v, &pred);
  // CHECK: out[lane] += __cass_reduce_add_sync(0xffffffff, lane) + __cass_reduce_min_sync(0xff, lane) + __cass_reduce_max_sync(0xff, lane);
  out[lane] += __reduce_add_sync(0xffffffff, lane) + __reduce_min_sync(0xff, lane) + __reduce_max_sync(0xff, lane);
  // CHECK: out[lane] += __cass_reduce_and_sync(0xffffffff, lane) | __cass_reduce_or_sync(0xffffffff, lane) | __cass_reduce_xor_sync(0xffffffff, lane);
  out[lane] += __reduce_and_sync(0xffffffff, lane) | __reduce_or_sync(0xffffffff, lane) | __reduce_xor_sync(0xffffffff, lane);
  // CHECK: __cass_syncwarp();
  __syncwarp();
  // CHECK: __cass_syncwarp(0xffff);
  __syncwarp(0xffff);
  // CHECK: out[lane] += __cass_shfl(v, 0) + __cass_shfl_up(v, 1) + __cass_shfl_down(v, 1) + __cass_shfl_xor(v, 1);
  out[lane] += __shfl(v, 0) + __shfl_up(v, 1) + __shfl_down(v, 1) + __shfl_xor(v, 1);
  // CHECK: out[lane] += __cass_ballot(v > 0.f) + __cass_any(v > 0.f) + __cass_all(v > 0.f);
  out[lane] += __ballot(v > 0.f) + __any(v > 0.f) + __all(v > 0.f);
  // CHECK: __shared__ float slots[__cass_warp_size];
  __shared__ float slots[warpSize];
  // CHECK: slots[lane % __cass_warp_size] = v;
  slots[lane % warpSize] = v;
}
// DIAG: note: '& 31' assumes 32-lane warps: right as written, since CASS runs CUDA code as 32-lane logical warps (--warp cuda) [cass-warp-lane-arith]
// DIAG-NOT: warning:
// DIAG-NOT: error:
