// Host code compiled by the C++ compiler: it manages memory with the CUDA runtime
// and leaves the kernel to scale.cu.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "scale.h"

int main() {
  const int n = 4096;
  std::vector<float> host(n, 1.5f);
  float *device = nullptr;
  cudaError_t status = cudaMalloc(reinterpret_cast<void **>(&device), n * sizeof(float));
  if (status != cudaSuccess) {
    std::printf("host_scale: no device (%s)\n", cudaGetErrorString(status));
    return 0;
  }
  status = cudaMemcpy(device, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  launchScale(device, n, 4.0f);
  if (status == cudaSuccess) status = cudaDeviceSynchronize();
  if (status == cudaSuccess)
    status = cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(device);
  if (status != cudaSuccess) {
    std::printf("host_scale: %s\n", cudaGetErrorString(status));
    return 1;
  }
  int bad = 0;
  for (float v : host) bad += v != 6.0f;
  std::printf("host_scale: %s (CUDART_VERSION %d)\n", bad ? "FAILED" : "ok", CUDART_VERSION);
  return bad ? 1 : 0;
}
