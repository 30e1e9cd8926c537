// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// cuBLAS to hipBLAS on HIP 6: real functions keep their hipBLAS names, complex and
// Ex functions become hipBLAS's _v2 forms, which take hipComplex and hipDataType.
// CHECK: #include <hipblas/hipblas.h>
#include <cublas_v2.h>

void gemms(int n, const float* a, const float* b, float* c, const cuComplex* za,
           const cuComplex* zb, cuComplex* zc, cudaStream_t s) {
  // CHECK: hipblasHandle_t h;
  cublasHandle_t h;
  // CHECK: hipblasCreate(&h);
  cublasCreate(&h);
  // CHECK: hipblasSetStream(h, s);
  cublasSetStream(h, s);
  // CHECK: hipblasSetPointerMode(h, HIPBLAS_POINTER_MODE_HOST);
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
  const float one = 1.0f, zero = 0.0f;
  // CHECK: hipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_T, n, n, n, &one, a, n, b, n, &zero, c, n);
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, a, n, b, n, &zero, c, n);
  // CHECK: hipblasSaxpy(h, n, &one, a, 1, c, 1);
  cublasSaxpy(h, n, &one, a, 1, c, 1);
  const cuComplex zone = make_cuComplex(1.0f, 0.0f);
  // CHECK: hipblasCgemm_v2(h, HIPBLAS_OP_N, HIPBLAS_OP_C, n, n, n, &zone, za, n, zb, n, &zone, zc, n);
  cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_C, n, n, n, &zone, za, n, zb, n, &zone, zc, n);
  // CHECK: hipblasCaxpy_v2(h, n, &zone, za, 1, zc, 1);
  cublasCaxpy(h, n, &zone, za, 1, zc, 1);
  float norm = 0;
  // CHECK: hipblasScnrm2_v2(h, n, za, 1, &norm);
  cublasScnrm2(h, n, za, 1, &norm);
  int imax = 0;
  // CHECK: hipblasIcamax_v2(h, n, za, 1, &imax);
  cublasIcamax(h, n, za, 1, &imax);
  // CHECK: hipblasGemmEx_v2(h, HIPBLAS_OP_N, HIPBLAS_OP_N, n, n, n, &one, a, HIP_R_32F, n, b, HIP_R_32F, n, &zero, c, HIP_R_32F, n, HIPBLAS_COMPUTE_32F, HIPBLAS_GEMM_DEFAULT);
  cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_32F, n, b, CUDA_R_32F, n, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  // CHECK: hipblasDestroy(h);
  cublasDestroy(h);
}
// DIAG: [cass-behavior-differs]
