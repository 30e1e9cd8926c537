// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// The legacy cuBLAS API (cublas.h: no handle argument) has no hipBLAS counterpart:
// its calls are left as they are and reported, never renamed into hipBLAS's
// handle-based signatures.
// The header stays too: the file is written against it.
// CHECK: #include <cublas.h>
#include <cublas.h>

void legacy(int n, float alpha, const float* x, float* y) {
  // CHECK: cublasSaxpy(n, alpha, x, 1, y, 1);
  cublasSaxpy(n, alpha, x, 1, y, 1);
  // CHECK: cublasSgemm('N', 'N', n, n, n, alpha, x, n, x, n, 0.0f, y, n);
  cublasSgemm('N', 'N', n, n, n, alpha, x, n, x, n, 0.0f, y, n);
}
// DIAG: header 'cublas.h' has no HIP equivalent: legacy cuBLAS API (no handle argument)
// DIAG: 'cublasSaxpy' here is the legacy API of a header this file includes
// DIAG: 'cublasSgemm' here is the legacy API
