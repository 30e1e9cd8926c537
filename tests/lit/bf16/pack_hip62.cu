// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// From HIP 6.2, __hip_bfloat16 converts from float, so two floats construct a
// __hip_bfloat162 and one float feeds __bfloat162bfloat162: no error, one note each.
// CHECK: #include <hip/hip_bf16.h>
#include <cuda_bf16.h>

// CHECK: __global__ void pack(const float* in, __hip_bfloat16* lo, __hip_bfloat162* out, int n) {
__global__ void pack(const float* in, __nv_bfloat16* lo, __nv_bfloat162* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: lo[i] = __float2bfloat16(in[i]);
  lo[i] = __float2bfloat16_rn(in[i]);
  // CHECK-NEXT: out[i] = __hip_bfloat162(in[i], -in[i]);
  out[i] = __floats2bfloat162_rn(in[i], -in[i]);
  // CHECK: out[n + i] = __bfloat162bfloat162(in[i]);
  out[n + i] = __float2bfloat162_rn(in[i]);
}
// DIAG: '__floats2bfloat162_rn': HIP has no __floats2bfloat162_rn
// DIAG: '__float2bfloat162_rn': HIP has no __float2bfloat162_rn
// DIAG-NOT: [cass-hip-version]
