// RUN: cass translate %s -o %t --strategy rules --verify compile --hip-version 5.2
// REQUIRES: hipcc
// HIP 5.2 has no hip_bf16.h: scalar bfloat16 becomes hip_bfloat16.h's hip_bfloat16, whose
// explicit float constructor rounds to nearest even like __float2bfloat16_rn, and the
// translation compiles with the installed hipcc (--verify compile).
// CHECK: #include <hip/hip_bfloat16.h>
#include <cuda_bf16.h>

// CHECK: __global__ void round_trip(const float* in, hip_bfloat16* out, float* back, int n) {
__global__ void round_trip(const float* in, __nv_bfloat16* out, float* back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // CHECK: hip_bfloat16 b = hip_bfloat16(in[i]);
    __nv_bfloat16 b = __float2bfloat16_rn(in[i]);
    out[i] = b;
    // CHECK: back[i] = static_cast<float>(b) + static_cast<float>(hip_bfloat16(0.5f));
    back[i] = __bfloat162float(b) + __bfloat162float(__float2bfloat16(0.5f));
  }
}
// DIAG-NOT: [cass-hip-version]
