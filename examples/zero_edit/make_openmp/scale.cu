#include "scale.cuh"

__global__ void scale_kernel(float* data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

cudaError_t scale_on_device(float* host, int n, float factor) {
  float* device = nullptr;
  cudaError_t err = cudaMalloc(&device, n * sizeof(float));
  if (err != cudaSuccess) return err;
  err = cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
  if (err == cudaSuccess) {
    int threads = 256;
    scale_kernel<<<(n + threads - 1) / threads, threads>>>(device, n, factor);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(device);
  return err;
}
