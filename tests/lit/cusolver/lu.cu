// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// A dense LU factorization and solve: cuSOLVER Dn is hipSOLVER's Dn compatibility API.
// CHECK: #include <hipsolver/hipsolver.h>
#include <cusolverDn.h>

void lu_solve(int n, float* a, float* b, int* piv, int* info) {
  // CHECK: hipsolverDnHandle_t h;
  cusolverDnHandle_t h;
  // CHECK: hipsolverDnCreate(&h);
  cusolverDnCreate(&h);
  int lwork = 0;
  // CHECK: hipsolverDnSgetrf_bufferSize(h, n, n, a, n, &lwork);
  cusolverDnSgetrf_bufferSize(h, n, n, a, n, &lwork);
  float* work;
  cudaMalloc(&work, lwork * sizeof(float));
  // CHECK: hipsolverDnSgetrf(h, n, n, a, n, work, piv, info);
  cusolverDnSgetrf(h, n, n, a, n, work, piv, info);
  // CHECK: hipsolverDnSgetrs(h, HIPBLAS_OP_N, n, 1, a, n, piv, b, n, info);
  cusolverDnSgetrs(h, CUBLAS_OP_N, n, 1, a, n, piv, b, n, info);
  // CHECK: hipsolverDnDestroy(h);
  cusolverDnDestroy(h);
}
