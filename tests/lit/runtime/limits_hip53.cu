// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.3
// From HIP 5.3 the runtime sets and reads the stack-size limit itself: HIP's own names,
// no <cass/runtime.h> and nothing to report.
#include <cuda_runtime.h>

int limits(size_t* stack) {
  // CHECK: if (hipDeviceSetLimit(hipLimitStackSize, 4096) != hipSuccess) return 1;
  if (cudaDeviceSetLimit(cudaLimitStackSize, 4096) != cudaSuccess) return 1;
  // CHECK-NEXT: return hipDeviceGetLimit(stack, hipLimitStackSize) == hipSuccess ? 0 : 1;
  return cudaDeviceGetLimit(stack, cudaLimitStackSize) == cudaSuccess ? 0 : 1;
  // CHECK-NOT: __cass_rt_
}
// DIAG-NOT: [cass-hip-version]
