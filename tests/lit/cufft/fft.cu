// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// cuFFT plans and transforms are hipFFT's.
// CHECK: #include <hipfft/hipfft.h>
#include <cufft.h>

int transform(cufftComplex* data, cufftReal* real, int n, int batch, cudaStream_t s) {
  // CHECK: hipfftHandle plan, r2c;
  cufftHandle plan, r2c;
  // CHECK: hipfftResult rc = hipfftPlan1d(&plan, n, HIPFFT_C2C, batch);
  cufftResult rc = cufftPlan1d(&plan, n, CUFFT_C2C, batch);
  // CHECK: if (rc != HIPFFT_SUCCESS) return 1;
  if (rc != CUFFT_SUCCESS) return 1;
  // CHECK: hipfftSetStream(plan, s);
  cufftSetStream(plan, s);
  // CHECK: hipfftExecC2C(plan, data, data, HIPFFT_FORWARD);
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  // CHECK: hipfftExecC2C(plan, data, data, HIPFFT_BACKWARD);
  cufftExecC2C(plan, data, data, CUFFT_INVERSE);
  // CHECK: hipfftPlan2d(&r2c, n, n, HIPFFT_R2C);
  cufftPlan2d(&r2c, n, n, CUFFT_R2C);
  // CHECK: hipfftExecR2C(r2c, real, data);
  cufftExecR2C(r2c, real, data);
  size_t work = 0;
  // CHECK: hipfftGetSize(r2c, &work);
  cufftGetSize(r2c, &work);
  // CHECK: hipfftDestroy(r2c);
  cufftDestroy(r2c);
  // CHECK: hipfftDestroy(plan);
  cufftDestroy(plan);
  // CHECK: hipfftDoubleComplex z;
  cufftDoubleComplex z;
  return 0;
}
