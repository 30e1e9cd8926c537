// RUN: cass translate %s -o %t --strategy rules --verify compile --hip-version 5.2
// REQUIRES: hipcc
// HIP 5.2 declares hipLaunchHostFunc but its runtime library does not export it: the call
// goes to <cass/runtime.h>, which queues the host function with hipStreamAddCallback.
// CHECK: #include <cass/runtime.h>
#include <cuda_runtime.h>
#include <atomic>

static void CUDART_CB done(void* arg) { static_cast<std::atomic<int>*>(arg)->fetch_add(1); }

int queue(cudaStream_t s, std::atomic<int>* count) {
  // CHECK: return __cass_rt_hipLaunchHostFunc(s, done, count) == hipSuccess ? 0 : 1;
  return cudaLaunchHostFunc(s, done, count) == cudaSuccess ? 0 : 1;
}
// DIAG-NOT: [cass-hip-version]
