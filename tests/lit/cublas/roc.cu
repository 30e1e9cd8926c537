// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2 --roc
// --roc maps cuBLAS to rocBLAS: the handle, enums and real-typed routines by
// rocBLAS's naming (rocBLAS is not installable here, so these are not compiled).
// CHECK: #include <rocblas/rocblas.h>
#include <cublas_v2.h>

void gemm(int n, const float* a, const float* b, float* c) {
  // CHECK: rocblas_handle h;
  cublasHandle_t h;
  // CHECK: rocblas_create_handle(&h);
  cublasCreate(&h);
  const float one = 1.0f;
  // CHECK: rocblas_sgemm(h, rocblas_operation_none, rocblas_operation_transpose, n, n, n, &one, a, n, b, n, &one, c, n);
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, a, n, b, n, &one, c, n);
  // CHECK: rocblas_sgemm_strided_batched(h, rocblas_operation_none, rocblas_operation_none, n, n, n, &one, a, n, n * n, b, n, n * n, &one, c, n, n * n, 4);
  cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, n * n, b, n, n * n, &one, c, n, n * n, 4);
  // CHECK: rocblas_destroy_handle(h);
  cublasDestroy(h);
}
// DIAG-NOT: hipBLAS before ROCm 7.0
