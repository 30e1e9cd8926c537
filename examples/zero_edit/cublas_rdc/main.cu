#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "cuda_check.h"
#include "devmath.cuh"

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = axpy(a, x[i], y[i]);
}

#ifdef SAXPY_WITH_CUBLAS
void referenceSaxpy(int n, float a, const float *x, float *y);
#endif

int main() {
  const int n = 1 << 16;
  const float a = 2.0f;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 17);
    y[i] = 1.0f;
  }
  findCudaDevice();
  float *dx = nullptr, *dy = nullptr;
  checkCudaErrors(cudaMalloc(&dx, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dy, n * sizeof(float)));
  checkCudaErrors(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saxpy<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  checkCudaErrors(cudaGetLastError());
#ifdef SAXPY_WITH_CUBLAS
  referenceSaxpy(n, -a, dx, dy);  // undoes the kernel: y is back to 1
  const float kept = 0.0f;
#else
  const float kept = 1.0f;
#endif
  checkCudaErrors(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float want = kept * a * x[i] + 1.0f;
    if (std::fabs(y[i] - want) > 1e-5f) ++bad;
  }
  checkCudaErrors(cudaFree(dx));
  checkCudaErrors(cudaFree(dy));
  std::printf("saxpy: %s (%d of %d wrong)\n", bad ? "FAILED" : "ok", bad, n);
  return bad ? 1 : 0;
}
