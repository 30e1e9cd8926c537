// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 6.0
// HIP 6.0's hip_bf16.h has the pair type, but its __hip_bfloat16 and __hip_bfloat162 are
// plain structs: the pair can be named, and floats cannot be packed by constructor.
#include <cuda_bf16.h>

__global__ void pack(const float2* in, __nv_bfloat162* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: out[i] = __float22bfloat162_rn(in[i]);
  out[i] = __float22bfloat162_rn(in[i]);
  // CHECK: out[n + i] = __hip_bfloat162(in[i].x, in[i].y);
  out[n + i] = __floats2bfloat162_rn(in[i].x, in[i].y);
}
// DIAG: '__hip_bfloat162' needs HIP 7.0 or newer; the target is HIP 6.0
// DIAG-NOT: needs HIP 5.7
