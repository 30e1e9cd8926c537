// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 5.2
// HIP before 7.0 has only maskless intrinsics, in which every active lane takes
// part: a full mask is dropped silently, and so is an __activemask() constant.
__global__ void k(int* out) {
  int v = out[threadIdx.x];
  // CHECK: v += __shfl_xor(v, 1);
  v += __shfl_xor_sync(0xffffffff, v, 1);
  // CHECK: const unsigned long long active = __ballot(1);
  const unsigned long long active = __activemask();
  // CHECK-NEXT: v += __shfl_down(v, 4);
  v += __shfl_down_sync(active, v, 4);
  out[threadIdx.x] = v;
}
// DIAG-NOT: [cass-warp-mask]
