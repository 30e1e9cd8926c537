#include <cuda_runtime.h>

#include <cstdio>

#include "scaler.h"

__global__ void scale(float* values, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) values[i] *= factor;
}

static int fail(cudaError_t err, char* message, int size) {
  std::snprintf(message, size, "%s", cudaGetErrorString(err));
  return 1;
}

extern "C" int scaler_run(float* values, int n, float factor, char* message, int size) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::snprintf(message, size, "no CUDA device");
    return 1;
  }
  float* device = nullptr;
  cudaError_t err = cudaMalloc(&device, n * sizeof(float));
  if (err != cudaSuccess) return fail(err, message, size);
  err = cudaMemcpy(device, values, n * sizeof(float), cudaMemcpyHostToDevice);
  if (err == cudaSuccess) {
    scale<<<(n + 255) / 256, 256>>>(device, n, factor);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpy(values, device, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(device);
  return err == cudaSuccess ? 0 : fail(err, message, size);
}
