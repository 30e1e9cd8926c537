// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2
// REQUIRES: hipcc
// The translation is handed to hipcc's front end (--verify syntax): it must parse
// against the installed HIP headers, not just read right.
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int run(int n, float* hx, float* hy) {
  float *x = nullptr, *y = nullptr;
  // CHECK: if (hipMalloc(&x, n * sizeof(float)) != hipSuccess) return 1;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess) return 1;
  // CHECK: if (hipMalloc(&y, n * sizeof(float)) != hipSuccess) return 1;
  if (cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) return 1;
  // CHECK: hipMemcpy(x, hx, n * sizeof(float), hipMemcpyHostToDevice);
  cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
  // CHECK: hipMemcpy(y, hy, n * sizeof(float), hipMemcpyHostToDevice);
  cudaMemcpy(y, hy, n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
  // CHECK: hipError_t err = hipDeviceSynchronize();
  cudaError_t err = cudaDeviceSynchronize();
  // CHECK: hipMemcpy(hy, y, n * sizeof(float), hipMemcpyDeviceToHost);
  cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK: hipFree(x);
  cudaFree(x);
  // CHECK-NEXT: hipFree(y);
  cudaFree(y);
  // CHECK: return err == hipSuccess ? 0 : 1;
  return err == cudaSuccess ? 0 : 1;
}
// DIAG: 1 file(s) translated (1 verified to syntax): 0 error(s)
