// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 7.1
// A literal shuffle width must be a power of two of at most 32 (CUDA leaves others undefined).
__global__ void k(float* out, float x) {
  // CHECK: out[0] = __cass_shfl_sync(0xffffffff, x, 0, 16) + __cass_shfl_xor(x, 1, 24);
  out[0] = __shfl_sync(0xffffffff, x, 0, 16) + __shfl_xor(x, 1, 24);
  // CHECK: out[1] = __cass_shfl_down_sync(0xffffffff, x, 1, 64);
  out[1] = __shfl_down_sync(0xffffffff, x, 1, 64);
}
// DIAG: widths.cu:5:65: warning: width 24 is not a power of two of at most 32; CUDA leaves the result of '__shfl_xor' undefined [cass-shfl-width]
// DIAG: widths.cu:7:47: warning: width 64 is not a power of two of at most 32; CUDA leaves the result of '__shfl_down_sync' undefined [cass-shfl-width]
// DIAG-NOT: width 16
