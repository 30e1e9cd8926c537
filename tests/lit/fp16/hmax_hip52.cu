// RUN: cass translate %s -o %t --strategy rules --verify compile --hip-version 5.2
// REQUIRES: hipcc
// HIP 5.2 has no __hmax, __hmin, __hmax2 or __hmin2: the calls name <cass/fp16.h>'s
// versions, the header is included first, and the translation compiles (--verify compile).
// CHECK: #include <cass/fp16.h>
#include <cuda_fp16.h>

__global__ void clamp(int n, const __half2* x, const __half2* lo, const __half2* hi, __half2* out, __half* peak) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: __half2 v = __cass_fp16_hmin2(__cass_fp16_hmax2(x[i], lo[i]), hi[i]);
  __half2 v = __hmin2(__hmax2(x[i], lo[i]), hi[i]);
  out[i] = v;
  // CHECK: peak[i] = __cass_fp16_hmax(__low2half(v), __high2half(v));
  peak[i] = __hmax(__low2half(v), __high2half(v));
  // CHECK: peak[n + i] = __cass_fp16_hmin(__low2half(v), __high2half(v));
  peak[n + i] = __hmin(__low2half(v), __high2half(v));
}
// DIAG-NOT: [cass-
