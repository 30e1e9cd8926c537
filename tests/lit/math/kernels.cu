// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Device math: HIP provides CUDA's math functions and intrinsics under the same names.
#include <cuda_runtime.h>

__global__ void transcendental(const float* x, const double* y, float* out, double* dout) {
  int i = threadIdx.x;
  // CHECK: float a = sqrtf(x[i]) + rsqrtf(x[i]) + cbrtf(x[i]);
  float a = sqrtf(x[i]) + rsqrtf(x[i]) + cbrtf(x[i]);
  // CHECK-NEXT: float b = expf(a) + exp2f(a) + expm1f(a) + logf(a) + log2f(a) + log1pf(a);
  float b = expf(a) + exp2f(a) + expm1f(a) + logf(a) + log2f(a) + log1pf(a);
  // CHECK-NEXT: float c = sinf(b) * cosf(b) + tanf(b) + sinpif(b) + cospif(b);
  float c = sinf(b) * cosf(b) + tanf(b) + sinpif(b) + cospif(b);
  float s, co;
  // CHECK: sincosf(c, &s, &co);
  sincosf(c, &s, &co);
  // CHECK: float d = fmaf(s, co, 1.0f) + fminf(s, co) + fmaxf(s, co) + fabsf(s) + copysignf(s, co);
  float d = fmaf(s, co, 1.0f) + fminf(s, co) + fmaxf(s, co) + fabsf(s) + copysignf(s, co);
  // CHECK: float e = __expf(d) + __logf(d) + __sinf(d) + __cosf(d) + __powf(d, 2.0f);
  float e = __expf(d) + __logf(d) + __sinf(d) + __cosf(d) + __powf(d, 2.0f);
  // CHECK: float f = __fdividef(e, d) + __saturatef(e) + __fmul_rn(e, d);
  float f = __fdividef(e, d) + __saturatef(e) + __fmul_rn(e, d);
  // CHECK: out[i] = erff(f) + erfcf(f) + lgammaf(f) + tgammaf(f) + hypotf(e, f) + normf(1, &f);
  out[i] = erff(f) + erfcf(f) + lgammaf(f) + tgammaf(f) + hypotf(e, f) + normf(1, &f);
  // CHECK: double g = sqrt(y[i]) + rsqrt(y[i]) + exp(y[i]) + log(y[i]) + pow(y[i], 3.0);
  double g = sqrt(y[i]) + rsqrt(y[i]) + exp(y[i]) + log(y[i]) + pow(y[i], 3.0);
  // CHECK-NEXT: double h = fma(g, g, 1.0) + fmin(g, 2.0) + fmax(g, 0.5) + floor(g) + ceil(g) + trunc(g);
  double h = fma(g, g, 1.0) + fmin(g, 2.0) + fmax(g, 0.5) + floor(g) + ceil(g) + trunc(g);
  // CHECK-NEXT: dout[i] = __dadd_rn(g, h) + __drcp_rn(h) + __dsqrt_rn(h);
  dout[i] = __dadd_rn(g, h) + __drcp_rn(h) + __dsqrt_rn(h);
}

__global__ void integer_intrinsics(const unsigned* x, unsigned long long* y, int* out) {
  unsigned v = x[threadIdx.x];
  // CHECK: out[threadIdx.x] = __popc(v) + __clz(v) + __ffs(v) + __brev(v);
  out[threadIdx.x] = __popc(v) + __clz(v) + __ffs(v) + __brev(v);
  // CHECK: y[threadIdx.x] = __popcll(y[0]) + __clzll(y[0]) + __ffsll(y[0]) + __brevll(y[0]);
  y[threadIdx.x] = __popcll(y[0]) + __clzll(y[0]) + __ffsll(y[0]) + __brevll(y[0]);
  // CHECK: out[0] = __mulhi(v, v) + __umulhi(v, v) + __mul24(v, 3) + __umul24(v, 3) + __sad(v, 1, 2) + __usad(v, 1, 2);
  out[0] = __mulhi(v, v) + __umulhi(v, v) + __mul24(v, 3) + __umul24(v, 3) + __sad(v, 1, 2) + __usad(v, 1, 2);
  // CHECK: out[1] = __float2int_rn(1.5f) + __float2uint_rz(2.5f) + __double2int_rd(3.5) + __float_as_int(1.0f);
  out[1] = __float2int_rn(1.5f) + __float2uint_rz(2.5f) + __double2int_rd(3.5) + __float_as_int(1.0f);
  // CHECK: float as_float = __int_as_float(out[1]) + __uint_as_float(v) + __int2float_rn(out[0]);
  float as_float = __int_as_float(out[1]) + __uint_as_float(v) + __int2float_rn(out[0]);
  // CHECK: double as_double = __longlong_as_double(y[0]) + __hiloint2double(1, 2) + __int2double_rn(out[0]);
  double as_double = __longlong_as_double(y[0]) + __hiloint2double(1, 2) + __int2double_rn(out[0]);
  // CHECK: out[2] = __double2hiint(as_double) + __double2loint(as_double) + (int)as_float;
  out[2] = __double2hiint(as_double) + __double2loint(as_double) + (int)as_float;
}
