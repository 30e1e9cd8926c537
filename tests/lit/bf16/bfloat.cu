// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 7.1
// bfloat16: cuda_bf16.h's __nv_bfloat16 is hip_bf16.h's __hip_bfloat16.
// CHECK: #include <hip/hip_bf16.h>
#include <cuda_bf16.h>

__global__ void scale(int n, float s, const __nv_bfloat16* x, __nv_bfloat16* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: float v = __bfloat162float(x[i]) * s;
  float v = __bfloat162float(x[i]) * s;
  // CHECK: y[i] = __float2bfloat16(v);
  y[i] = __float2bfloat16(v);
  // CHECK: __hip_bfloat162 pair = 
  __nv_bfloat162 pair = __floats2bfloat162_rn(v, -v);
  // CHECK: __hip_bfloat16 lo = __low2bfloat16(pair);
  __nv_bfloat16 lo = __low2bfloat16(pair);
  // CHECK: y[i] = __hadd(lo, __high2bfloat16(pair));
  y[i] = __hadd(lo, __high2bfloat16(pair));
  // CHECK: (__bfloat162float(y[i]) + 1.0f);
  y[i] = __float2bfloat16_rn(__bfloat162float(y[i]) + 1.0f);
}
