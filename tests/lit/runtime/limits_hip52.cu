// RUN: cass translate %s -o %t --strategy rules --verify compile --hip-version 5.2
// REQUIRES: hipcc
// HIP 5.2 has hipDeviceGetLimit but neither hipDeviceSetLimit nor hipLimitStackSize (both
// 5.3): the calls go to <cass/runtime.h>, which builds with HIP 5.2's headers and answers
// hipErrorUnsupportedLimit at run time for what HIP 5.2 cannot do. Each stand-in that
// behaves differently is reported once, as a warning, not as an error.
// CHECK: #include <cass/runtime.h>
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  size_t stack = 0, heap = 0;
  // CHECK: hipError_t set = __cass_rt_hipDeviceSetLimit(__cass_rt_hipLimitStackSize, 4096);
  cudaError_t set = cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  // CHECK-NEXT: hipError_t got = __cass_rt_hipDeviceGetLimit(&stack, __cass_rt_hipLimitStackSize);
  cudaError_t got = cudaDeviceGetLimit(&stack, cudaLimitStackSize);
  // CHECK-NEXT: hipError_t read = __cass_rt_hipDeviceGetLimit(&heap, hipLimitMallocHeapSize);
  cudaError_t read = cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
  // CHECK: if (set == hipErrorUnsupportedLimit || got == hipErrorUnsupportedLimit) {
  if (set == cudaErrorUnsupportedLimit || got == cudaErrorUnsupportedLimit) {
    std::printf("stack limit not supported here\n");
  }
  // CHECK: __cass_rt_hipDeviceSetLimit(hipLimitMallocHeapSize, heap);
  cudaThreadSetLimit(cudaLimitMallocHeapSize, heap);
  return read == cudaSuccess ? 0 : 1;
}
// DIAG: 'cudaDeviceSetLimit' for HIP 5.2: no HIP before 5.3 sets device limits: <cass/runtime.h>'s __cass_rt_hipDeviceSetLimit returns hipErrorUnsupportedLimit at run time
// DIAG: 'cudaLimitStackSize' for HIP 5.2: HIP before 5.3 has no stack-size limit
// DIAG-NOT: error:
