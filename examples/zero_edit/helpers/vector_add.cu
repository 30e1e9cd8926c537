// Adds two vectors; the error checks come from ../common/cuda_check.h, which defines
// checkCudaErrors and findCudaDevice only after cuda_runtime.h.
#include <cuda_runtime.h>

#include <cstdio>

#include "cuda_check.h"

__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 50000;
  const size_t bytes = n * sizeof(float);
  findCudaDevice();
  float *a = nullptr, *b = nullptr, *c = nullptr;
  checkCudaErrors(cudaMallocManaged(&a, bytes));
  checkCudaErrors(cudaMallocManaged(&b, bytes));
  checkCudaErrors(cudaMallocManaged(&c, bytes));
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  vectorAdd<<<(n + 255) / 256, 256>>>(a, b, c, n);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaDeviceSynchronize());
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += c[i] != 3.0f * i;
  checkCudaErrors(cudaFree(a));
  checkCudaErrors(cudaFree(b));
  checkCudaErrors(cudaFree(c));
  std::printf("vector_add: %s\n", bad ? "FAILED" : "ok");
  return bad ? 1 : 0;
}
