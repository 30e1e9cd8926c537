#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "cuda_check.h"

// y = a * x + y with cuBLAS, to compare with the hand-written kernel.
void referenceSaxpy(int n, float a, const float *x, float *y) {
  cublasHandle_t handle;
  checkCudaErrors(cublasCreate(&handle));
  checkCudaErrors(cublasSaxpy(handle, n, &a, x, 1, y, 1));
  checkCudaErrors(cublasDestroy(handle));
}
