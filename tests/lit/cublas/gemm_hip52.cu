// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// HIP 5.2's hipBLAS has no _v2 functions: complex calls keep the plain names.
#include <cublas_v2.h>

void complex_axpy(cublasHandle_t h, int n, const cuComplex* x, cuComplex* y) {
  const cuComplex one = make_cuComplex(1.0f, 0.0f);
  // CHECK: hipblasCaxpy(h, n, &one, x, 1, y, 1);
  cublasCaxpy(h, n, &one, x, 1, y, 1);
  // CHECK-NOT: _v2
  // CHECK: hipblasCscal(h, n, &one, y, 1);
  cublasCscal(h, n, &one, y, 1);
}
