// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// HIP 7 has masked warp intrinsics with 64-bit masks: CUDA's full 32-lane mask
// becomes the full 64-lane one; a 64-bit mask variable is left as it is.
#define FULL 0xffffffff
__global__ void k(int* out, unsigned part) {
  int v = out[threadIdx.x];
  // CHECK: v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);
  v += __shfl_xor_sync(0xffffffff, v, 1);
  // CHECK: v += __shfl_xor_sync(0xffffffffffffffffull, v, 2);
  v += __shfl_xor_sync(FULL, v, 2);
  const unsigned long long active = __activemask();
  // CHECK: v += __shfl_xor_sync(active, v, 4);
  v += __shfl_xor_sync(active, v, 4);
  // CHECK: v += __shfl_xor_sync(static_cast<unsigned long long>(part), v, 8);
  v += __shfl_xor_sync(part, v, 8);
  out[threadIdx.x] = v;
}
// DIAG: masks.cu:15:24: warning: lane mask 'part' is 32 bits wide; it is widened to 64 bits
// DIAG-NOT: lane mask 'active'
