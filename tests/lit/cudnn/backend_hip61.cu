// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 6.1
// MIOpen's backend API arrived with ROCm 6.2; cudnnBackendInitialize has no counterpart.
#include <cudnn.h>

void setup(cudnnBackendDescriptor_t* d) {
  // CHECK: miopenBackendCreateDescriptor(MIOPEN_BACKEND_MATMUL_DESCRIPTOR, d);
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_MATMUL_DESCRIPTOR, d);
  // CHECK: cudnnBackendInitialize(*d, MIOPEN_BACKEND_MATMUL_DESCRIPTOR, 64);
  cudnnBackendInitialize(*d, CUDNN_BACKEND_MATMUL_DESCRIPTOR, 64);
}
// DIAG: 'miopenBackendCreateDescriptor' needs HIP 6.2 or newer; the target is HIP 6.1
// DIAG: 'cudnnBackendInitialize' has no HIP equivalent
