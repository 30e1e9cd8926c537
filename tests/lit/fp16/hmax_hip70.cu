// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 7.0
// From HIP 7.0 hip_fp16.h has __hmax and __hmin; the __half2 forms still come from
// <cass/fp16.h>.
// CHECK: #include <cass/fp16.h>
#include <cuda_fp16.h>

__global__ void peak(const __half2* x, __half2* out, __half* top) {
  // CHECK: out[threadIdx.x] = __cass_fp16_hmax2(x[threadIdx.x], out[threadIdx.x]);
  out[threadIdx.x] = __hmax2(x[threadIdx.x], out[threadIdx.x]);
  // CHECK: top[threadIdx.x] = __hmax(top[threadIdx.x], __low2half(x[threadIdx.x]));
  top[threadIdx.x] = __hmax(top[threadIdx.x], __low2half(x[threadIdx.x]));
  // CHECK-NOT: __cass_fp16_hmax(
}
// DIAG-NOT: [cass-hip-version]
