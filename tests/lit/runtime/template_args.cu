// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2 --launch-syntax ggl
// REQUIRES: hipcc
// A template-id's commas do not split a call's arguments: every argument rewrite
// (kernel pointers, symbols, launches) keeps `kernel<T, TILE>` whole. A '<' that
// is a less-than stays one.
#include <cuda_runtime.h>

template <typename T, int TILE>
__global__ void scale(T* p, T s) { p[threadIdx.x] *= s * T(TILE); }

template <typename T, int N>
struct Table { static constexpr int size = N; };

__constant__ float coeffs[8];

int run(float* d, int a, int b) {
  // CHECK: hipFuncSetAttribute(reinterpret_cast<const void*>(scale<float, 16>), hipFuncAttributeMaxDynamicSharedMemorySize, 1024);
  cudaFuncSetAttribute(scale<float, 16>, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  // CHECK: hipFuncSetAttribute(reinterpret_cast<const void*>(scale<float, (8 > 4 ? 8 : 4)>), hipFuncAttributePreferredSharedMemoryCarveout, a < b);
  cudaFuncSetAttribute(scale<float, (8 > 4 ? 8 : 4)>, cudaFuncAttributePreferredSharedMemoryCarveout, a < b);
  cudaFuncAttributes attr;
  // CHECK: hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(scale<double, Table<int, 4>::size>));
  cudaFuncGetAttributes(&attr, scale<double, Table<int, 4>::size>);
  float host[8] = {};
  // CHECK: hipMemcpyToSymbol(HIP_SYMBOL(coeffs), host, sizeof(float) * (a < b ? 8 : 4));
  cudaMemcpyToSymbol(coeffs, host, sizeof(float) * (a < b ? 8 : 4));
  // CHECK: hipLaunchKernelGGL((scale<float, 16>), 1, 64, 0, 0, d, static_cast<float>(Table<float, 2>::size));
  scale<float, 16><<<1, 64>>>(d, static_cast<float>(Table<float, 2>::size));
  // CHECK: return hipGetLastError() == hipSuccess && a < b;
  return cudaGetLastError() == cudaSuccess && a < b;
}
// DIAG-NOT: malformed-call
