// RUN: cass translate %s -o %t --strategy rules --verify compile --hip-version 5.2
// REQUIRES: hipcc
// HIP 5.2 has no bfloat16 pair type, and no release has __floats2bfloat162_rn or
// __float2bfloat162_rn: the pair and its operations come from <cass/bf16.h>, which is
// included first, and the translation compiles with the installed hipcc.
// CHECK: #include <cass/bf16.h>
#include <cuda_bf16.h>

// CHECK: __global__ void pack(const float* in, __cass_bf16_pair* out, float* back, int n) {
__global__ void pack(const float* in, __nv_bfloat162* out, float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: __cass_bf16_pair p = __cass_bf16_floats2bfloat162_rn(in[i], -in[i]);
  __nv_bfloat162 p = __floats2bfloat162_rn(in[i], -in[i]);
  // CHECK-NEXT: __cass_bf16_pair q = __cass_bf16_float2bfloat162_rn(in[i]);
  __nv_bfloat162 q = __float2bfloat162_rn(in[i]);
  // CHECK: out[i] = __hfma2(p, q, __cass_bf16_float22bfloat162_rn(make_float2(1.0f, 2.0f)));
  out[i] = __hfma2(p, q, __float22bfloat162_rn(make_float2(1.0f, 2.0f)));
  // CHECK: float2 f = __cass_bf16_bfloat1622float2(__hmul2(p, q));
  float2 f = __bfloat1622float2(__hmul2(p, q));
  // CHECK: back[i] = f.x + static_cast<float>(__cass_bf16_low2bfloat16(__cass_bf16_halves2bfloat162(__cass_bf16_high2bfloat16(p), __cass_bf16_low2bfloat16(q))));
  back[i] = f.x + __bfloat162float(__low2bfloat16(__halves2bfloat162(__high2bfloat16(p), __low2bfloat16(q))));
}
// DIAG-NOT: [cass-hip-version]
