#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "stencil.h"

#if defined(__HIPCC__)
#define STENCIL_RUNTIME "HIP"
#else
#define STENCIL_RUNTIME "CUDA"
#endif

namespace {

constexpr int kBlock = 128;

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

// Each block stages its tile plus one halo cell per side in shared memory.
__global__ void heat_step(const float* in, float* out, int n, float alpha) {
  __shared__ float tile[kBlock + 2];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = threadIdx.x + 1;
  if (i < n) {
    tile[t] = in[i];
    if (threadIdx.x == 0) tile[0] = i > 0 ? in[i - 1] : in[i];
    if (threadIdx.x == blockDim.x - 1 || i == n - 1) tile[t + 1] = i + 1 < n ? in[i + 1] : in[i];
  }
  __syncthreads();
  if (i >= n) return;
  if (i == 0 || i == n - 1) {
    out[i] = tile[t];
  } else {
    out[i] = tile[t] + alpha * (tile[t - 1] - 2.0f * tile[t] + tile[t + 1]);
  }
}

}  // namespace

namespace stencil {

std::string runtime() { return STENCIL_RUNTIME; }

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::vector<float> heat(const std::vector<float>& u, float alpha, int steps) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw std::runtime_error(std::string("no " STENCIL_RUNTIME " device: ") +
                             (err != cudaSuccess ? cudaGetErrorString(err) : "none found"));
  }
  const int n = static_cast<int>(u.size());
  std::vector<float> result(u);
  if (n == 0 || steps <= 0) return result;
  float *a = nullptr, *b = nullptr;
  check(cudaMalloc(&a, n * sizeof(float)), "cudaMalloc");
  err = cudaMalloc(&b, n * sizeof(float));
  if (err != cudaSuccess) {
    (void)cudaFree(a);
    check(err, "cudaMalloc");
  }
  try {
    check(cudaMemcpy(a, u.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy in");
    for (int s = 0; s < steps; ++s) {
      heat_step<<<(n + kBlock - 1) / kBlock, kBlock>>>(a, b, n, alpha);
      std::swap(a, b);
    }
    check(cudaGetLastError(), "heat_step launch");
    check(cudaMemcpy(result.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  } catch (...) {
    (void)cudaFree(a);
    (void)cudaFree(b);
    throw;
  }
  (void)cudaFree(a);
  (void)cudaFree(b);
  return result;
}

}  // namespace stencil
