// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// cuComplex.h's types and helpers are hip_complex.h's hipComplex ones.
// CHECK: #include <hip/hip_complex.h>
#include <cuComplex.h>

__global__ void zaxpy(int n, cuDoubleComplex a, const cuDoubleComplex* x, cuDoubleComplex* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: y[i] = hipCadd(hipCmul(a, x[i]), y[i]);
  y[i] = cuCadd(cuCmul(a, x[i]), y[i]);
}

__global__ void caxpy(int n, cuFloatComplex a, const cuFloatComplex* x, cuFloatComplex* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  // CHECK: y[i] = hipCaddf(hipCmulf(a, x[i]), y[i]);
  y[i] = cuCaddf(cuCmulf(a, x[i]), y[i]);
  // CHECK: float re = hipCrealf(y[i]), im = hipCimagf(y[i]), mag = hipCabsf(y[i]);
  float re = cuCrealf(y[i]), im = cuCimagf(y[i]), mag = cuCabsf(y[i]);
  // CHECK: y[i] = hipCdivf(hipConjf(y[i]), make_hipFloatComplex(re + mag, im));
  y[i] = cuCdivf(cuConjf(y[i]), make_cuFloatComplex(re + mag, im));
  // CHECK: hipComplex c = make_hipComplex(re, im);
  cuComplex c = make_cuComplex(re, im);
  // CHECK: hipDoubleComplex d = hipComplexFloatToDouble(c);
  cuDoubleComplex d = cuComplexFloatToDouble(c);
  // CHECK: y[i] = hipComplexDoubleToFloat(hipCsub(d, make_hipDoubleComplex(1.0, 0.0)));
  y[i] = cuComplexDoubleToFloat(cuCsub(d, make_cuDoubleComplex(1.0, 0.0)));
}
