// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// With cublas_v2.h included too, the calls are the handle-based API and map.
#include <cublas.h>
#include <cublas_v2.h>

void modern(cublasHandle_t h, int n, const float* alpha, const float* x, float* y) {
  // CHECK: hipblasSaxpy(h, n, alpha, x, 1, y, 1);
  cublasSaxpy(h, n, alpha, x, 1, y, 1);
}
// DIAG-NOT: legacy API of a header
