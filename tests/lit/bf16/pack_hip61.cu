// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.1
// HIP 6.1's hip_bf16.h (the last before 6.2) has the pair type, but its __hip_bfloat16
// and __hip_bfloat162 are plain structs, so floats are packed by <cass/bf16.h>'s
// function (through __float22bfloat162_rn), not by constructor.
// CHECK: #include <cass/bf16.h>
#include <cuda_bf16.h>

__global__ void pack(const float2* in, __nv_bfloat162* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: out[i] = __float22bfloat162_rn(in[i]);
  out[i] = __float22bfloat162_rn(in[i]);
  // CHECK: out[n + i] = __cass_bf16_floats2bfloat162_rn(in[i].x, in[i].y);
  out[n + i] = __floats2bfloat162_rn(in[i].x, in[i].y);
  // CHECK-NOT: __cass_bf16_pair
}
// DIAG-NOT: [cass-hip-version]
