// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.0
// From HIP 6.0 the type is HIP's own; only the behaviour note remains.
#include <cuda_runtime.h>

int pageable(const void* p) {
  cudaPointerAttributes pa;
  if (cudaPointerGetAttributes(&pa, p) != cudaSuccess) return -1;
  // CHECK: return pa.type == hipMemoryTypeUnregistered ? 1 : 0;
  return pa.type == cudaMemoryTypeUnregistered ? 1 : 0;
  // CHECK-NOT: __cass_rt_
}
// DIAG: [cass-behavior-differs]
// DIAG-NOT: [cass-hip-version]
