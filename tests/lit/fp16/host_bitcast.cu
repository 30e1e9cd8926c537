// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// HIP 5.2 declares the fp16 bit casts __device__ only: device uses are quiet,
// host uses are reported (they compile from HIP 7.0 on).
#include <cuda_fp16.h>

__global__ void bits(const __half* in, unsigned short* out) {
  // CHECK: out[threadIdx.x] = __half_as_ushort(in[threadIdx.x]);
  out[threadIdx.x] = __half_as_ushort(in[threadIdx.x]);
}

unsigned short host_bits(__half h) {
  // CHECK: return __half_as_ushort(h);
  return __half_as_ushort(h);
}

__half host_value(unsigned short u) {
  // CHECK: return __ushort_as_half(u);
  return __ushort_as_half(u);
}
// DIAG: host_bitcast.cu:13:10: warning: '__half_as_ushort' is a device function in HIP 5.2
// DIAG: host_bitcast.cu:18:10: warning: '__ushort_as_half' is a device function in HIP 5.2
// DIAG-NOT: host_bitcast.cu:8:
