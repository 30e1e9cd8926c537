// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 5.7
// Before HIP 6.0 hipBLASLt took its own compute-type enum: the calls are errors.
#include <cublasLt.h>

void create(cublasLtHandle_t* lt) {
  // CHECK: hipblasLtCreate(lt);
  cublasLtCreate(lt);
}
// DIAG: 'hipblasLtCreate' needs HIP 6.0 or newer; the target is HIP 5.7
