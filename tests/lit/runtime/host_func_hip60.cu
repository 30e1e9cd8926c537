// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.0
// From HIP 5.3 the runtime exports hipLaunchHostFunc itself.
#include <cuda_runtime.h>

void queue(cudaStream_t s, cudaHostFn_t fn, void* data) {
  // CHECK: hipLaunchHostFunc(s, fn, data);
  cudaLaunchHostFunc(s, fn, data);
  // CHECK-NOT: __cass_rt_
}
