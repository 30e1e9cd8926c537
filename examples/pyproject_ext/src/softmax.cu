#include <cuda_runtime.h>

#include <cfloat>
#include <string>

#include "softmax.h"

#if defined(__HIPCC__)
#define SOFTMAX_RUNTIME "HIP"
#else
#define SOFTMAX_RUNTIME "CUDA"
#endif

namespace {

constexpr int kThreads = 128;

// One block per row: a max reduction, then a sum of exponentials, both in
// shared memory, so the result does not overflow for large inputs.
__global__ void softmax_rows(const float* in, float* out, int cols) {
  __shared__ float scratch[kThreads];
  const float* row = in + static_cast<size_t>(blockIdx.x) * cols;
  float* dst = out + static_cast<size_t>(blockIdx.x) * cols;

  float local_max = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) local_max = fmaxf(local_max, row[c]);
  scratch[threadIdx.x] = local_max;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) scratch[threadIdx.x] = fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + s]);
    __syncthreads();
  }
  const float row_max = scratch[0];
  __syncthreads();

  float local_sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) local_sum += expf(row[c] - row_max);
  scratch[threadIdx.x] = local_sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) scratch[threadIdx.x] += scratch[threadIdx.x + s];
    __syncthreads();
  }
  const float total = scratch[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = expf(row[c] - row_max) / total;
}

std::string describe(const char* what, cudaError_t err) {
  return std::string(what) + ": " + cudaGetErrorString(err);
}

}  // namespace

namespace softmax {

const char* runtime() { return SOFTMAX_RUNTIME; }

std::string rows(const std::vector<float>& in, int rows, int cols, std::vector<float>& out) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return std::string("no " SOFTMAX_RUNTIME " device: ") +
           (err != cudaSuccess ? cudaGetErrorString(err) : "none found");
  }
  const size_t bytes = in.size() * sizeof(float);
  out.assign(in.size(), 0.0f);
  if (rows == 0 || cols == 0) return "";
  float *d_in = nullptr, *d_out = nullptr;
  std::string error;
  if ((err = cudaMalloc(&d_in, bytes)) != cudaSuccess) return describe("cudaMalloc", err);
  if ((err = cudaMalloc(&d_out, bytes)) != cudaSuccess) {
    error = describe("cudaMalloc", err);
  } else if ((err = cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice)) != cudaSuccess) {
    error = describe("copy in", err);
  } else {
    softmax_rows<<<rows, kThreads>>>(d_in, d_out, cols);
    if ((err = cudaGetLastError()) != cudaSuccess) {
      error = describe("softmax launch", err);
    } else if ((err = cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess) {
      error = describe("copy out", err);
    }
  }
  (void)cudaFree(d_in);
  (void)cudaFree(d_out);
  return error;
}

}  // namespace softmax
