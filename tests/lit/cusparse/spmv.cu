// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// The generic SpMV API in hipSPARSE.
// CHECK: #include <hipsparse/hipsparse.h>
#include <cusparse.h>

void spmv(int m, int n, int nnz, int* rows, int* cols, float* vals, float* x, float* y) {
  // CHECK: hipsparseHandle_t h;
  cusparseHandle_t h;
  // CHECK: hipsparseCreate(&h);
  cusparseCreate(&h);
  // CHECK: hipsparseSpMatDescr_t A;
  cusparseSpMatDescr_t A;
  // CHECK: hipsparseDnVecDescr_t vx, vy;
  cusparseDnVecDescr_t vx, vy;
  // CHECK: hipsparseCreateCsr(&A, m, n, nnz, rows, cols, vals, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_BASE_ZERO, HIP_R_32F);
  cusparseCreateCsr(&A, m, n, nnz, rows, cols, vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  // CHECK: hipsparseCreateDnVec(&vx, n, x, HIP_R_32F);
  cusparseCreateDnVec(&vx, n, x, CUDA_R_32F);
  // CHECK: hipsparseCreateDnVec(&vy, m, y, HIP_R_32F);
  cusparseCreateDnVec(&vy, m, y, CUDA_R_32F);
  const float one = 1.0f, zero = 0.0f;
  size_t bytes = 0;
  // CHECK: hipsparseSpMV_bufferSize(h, HIPSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, &bytes);
  cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes);
  void* buf = nullptr;
  // CHECK: hipsparseSpMV(h, HIPSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, buf);
  cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
  // CHECK: hipsparseDestroySpMat(A);
  cusparseDestroySpMat(A);
  // CHECK: hipsparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vx);
  // CHECK: hipsparseDestroy(h);
  cusparseDestroy(h);
}
