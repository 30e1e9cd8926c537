// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Half precision: cuda_fp16.h's types and intrinsics are hip_fp16.h's.
// CHECK: #include <hip/hip_fp16.h>
#include <cuda_fp16.h>

__global__ void axpy_half(int n, __half a, const __half* x, __half* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: y[i] = __hfma(a, x[i], y[i]);
  y[i] = __hfma(a, x[i], y[i]);
  // CHECK: __half t = __hadd(x[i], y[i]) + __hmul(a, a) - __hsub(a, x[i]);
  __half t = __hadd(x[i], y[i]) + __hmul(a, a) - __hsub(a, x[i]);
  // CHECK: if (__hgt(t, a) || __hlt(t, a) || __heq(t, a) || __hisnan(t)) y[i] = __hneg(t);
  if (__hgt(t, a) || __hlt(t, a) || __heq(t, a) || __hisnan(t)) y[i] = __hneg(t);
  // CHECK: float f = __half2float(t) + __low2float(__halves2half2(t, a));
  float f = __half2float(t) + __low2float(__halves2half2(t, a));
  // CHECK: y[i] = __float2half(f) + __float2half_rn(f) + __int2half_rn(i);
  y[i] = __float2half(f) + __float2half_rn(f) + __int2half_rn(i);
  // CHECK: y[i] = hsqrt(y[i]) + hexp(y[i]) + hlog(y[i]) + hsin(y[i]) + hcos(y[i]) + hrcp(y[i]);
  y[i] = hsqrt(y[i]) + hexp(y[i]) + hlog(y[i]) + hsin(y[i]) + hcos(y[i]) + hrcp(y[i]);
}

__global__ void axpy_half2(int n, __half2 a, const __half2* x, __half2* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: y[i] = __hfma2(a, x[i], y[i]);
  y[i] = __hfma2(a, x[i], y[i]);
  // CHECK: __half2 t = __hadd2(x[i], y[i]);
  __half2 t = __hadd2(x[i], y[i]);
  // CHECK: t = __hmul2(t, a);
  t = __hmul2(t, a);
  // CHECK: float2 f = __half22float2(t);
  float2 f = __half22float2(t);
  // CHECK: y[i] = __floats2half2_rn(f.x, f.y);
  y[i] = __floats2half2_rn(f.x, f.y);
  // CHECK: __half lo = __low2half(t), hi = __high2half(t);
  __half lo = __low2half(t), hi = __high2half(t);
  // CHECK: y[i] = __lowhigh2highlow(__float2half2_rn(__half2float(lo) + __half2float(hi)));
  y[i] = __lowhigh2highlow(__float2half2_rn(__half2float(lo) + __half2float(hi)));
  // CHECK: y[i] = h2sqrt(y[i]);
  y[i] = h2sqrt(y[i]);
}
