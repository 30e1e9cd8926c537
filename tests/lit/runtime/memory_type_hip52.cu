// RUN: cass translate %s -o %t --strategy rules --verify compile --hip-version 5.2
// REQUIRES: hipcc
// HIP 5.2 has no hipMemoryTypeUnregistered (6.0): <cass/runtime.h>'s stand-in builds and
// equals no type HIP 5.2 reports; and HIP's hipPointerGetAttributes fails for pageable
// memory anyway, as CUDA before 11.0 did. Both are reported, as warnings.
// CHECK: #include <cass/runtime.h>
#include <cuda_runtime.h>

int pageable(const void* p) {
  cudaPointerAttributes pa;
  // CHECK: if (hipPointerGetAttributes(&pa, p) != hipSuccess) return -1;
  if (cudaPointerGetAttributes(&pa, p) != cudaSuccess) return -1;
  // CHECK-NEXT: return pa.memoryType == __cass_rt_hipMemoryTypeUnregistered ? 1 : 0;
  return pa.type == cudaMemoryTypeUnregistered ? 1 : 0;
}
// DIAG: 'cudaMemoryTypeUnregistered' for HIP 5.2: HIP before 6.0 has no such memory type
// DIAG: 'cudaMemoryTypeUnregistered': HIP's hipPointerGetAttributes returns hipErrorInvalidValue
// DIAG-NOT: error:
