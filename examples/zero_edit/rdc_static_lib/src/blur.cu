#include <cuda_runtime.h>
#include "cuda_check.h"
#include "blur.h"

__device__ float blurWeight(int offset, int radius);

__global__ void blur1d(const float* in, float* out, int n, int radius) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int d = -radius; d <= radius; ++d) {
    int j = min(max(i + d, 0), n - 1);
    acc += blurWeight(d, radius) * in[j];
  }
  out[i] = acc;
}

void blurOnDevice(float* host, std::size_t n, int radius) {
  float *in = nullptr, *out = nullptr;
  checkCudaErrors(cudaMalloc(&in, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&out, n * sizeof(float)));
  checkCudaErrors(cudaMemcpy(in, host, n * sizeof(float), cudaMemcpyHostToDevice));
  blur1d<<<(unsigned)((n + 255) / 256), 256>>>(in, out, (int)n, radius);
  checkCudaErrors(cudaGetLastError());
  checkCudaErrors(cudaMemcpy(host, out, n * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(in));
  checkCudaErrors(cudaFree(out));
}
