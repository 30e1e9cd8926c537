// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// HIP 5.2 has no bfloat16 pair type at all, and no release has __floats2bfloat162_rn or
// __float2bfloat162_rn: each use is an error for that target, not a name that fails later.
#include <cuda_bf16.h>

// CHECK: __global__ void pack(const float* in, __hip_bfloat162* out, int n) {
__global__ void pack(const float* in, __nv_bfloat162* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // CHECK: out[i] = __hip_bfloat162(in[i], -in[i]);
  out[i] = __floats2bfloat162_rn(in[i], -in[i]);
  // CHECK: out[n + i] = __bfloat162bfloat162(in[i]);
  out[n + i] = __float2bfloat162_rn(in[i]);
}
// DIAG: '__hip_bfloat162' needs HIP 5.7 or newer; the target is HIP 5.2
// DIAG: '__hip_bfloat162' needs HIP 7.0 or newer; the target is HIP 5.2
// DIAG: '__bfloat162bfloat162' needs HIP 7.0 or newer; the target is HIP 5.2
