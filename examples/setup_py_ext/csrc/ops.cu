#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "ops.h"

#if defined(__HIPCC__)
#define OPS_RUNTIME "HIP"
#else
#define OPS_RUNTIME "CUDA"
#endif

namespace {

constexpr int kBlock = 256;

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
  }
}

// Every entry point starts here, so a machine without a GPU gets one clear message.
void require_device() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw std::runtime_error(std::string("no " OPS_RUNTIME " device: ") +
                             (err != cudaSuccess ? cudaGetErrorString(err) : "none found"));
  }
}

template <typename T>
struct Buffer {
  T* ptr = nullptr;
  explicit Buffer(std::size_t n) { check(cudaMalloc(&ptr, n * sizeof(T)), "cudaMalloc"); }
  ~Buffer() { (void)cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

__global__ void axpby_kernel(float a, const float* x, float b, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + b * y[i];
  }
}

// One partial sum per block in shared memory, then one atomic add per block.
__global__ void dot_kernel(const float* x, const float* y, int n, double* out) {
  __shared__ double partial[kBlock];
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    acc += static_cast<double>(x[i]) * y[i];
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

void same_length(const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("x and y differ in length");
}

}  // namespace

namespace ops {

std::string runtime() { return OPS_RUNTIME; }

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::vector<float> axpby(float a, const std::vector<float>& x, float b, const std::vector<float>& y) {
  same_length(x, y);
  require_device();
  const int n = static_cast<int>(x.size());
  std::vector<float> out(y);
  if (n == 0) return out;
  Buffer<float> dx(n), dy(n);
  check(cudaMemcpy(dx.ptr, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(dy.ptr, y.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy y");
  axpby_kernel<<<(n + kBlock - 1) / kBlock, kBlock>>>(a, dx.ptr, b, dy.ptr, n);
  check(cudaGetLastError(), "axpby launch");
  check(cudaMemcpy(out.data(), dy.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  return out;
}

double dot(const std::vector<float>& x, const std::vector<float>& y) {
  same_length(x, y);
  require_device();
  const int n = static_cast<int>(x.size());
  if (n == 0) return 0.0;
  Buffer<float> dx(n), dy(n);
  Buffer<double> dout(1);
  check(cudaMemcpy(dx.ptr, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy x");
  check(cudaMemcpy(dy.ptr, y.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy y");
  check(cudaMemset(dout.ptr, 0, sizeof(double)), "clear result");
  int blocks = (n + kBlock - 1) / kBlock;
  dot_kernel<<<blocks < 512 ? blocks : 512, kBlock>>>(dx.ptr, dy.ptr, n, dout.ptr);
  check(cudaGetLastError(), "dot launch");
  double result = 0.0;
  check(cudaMemcpy(&result, dout.ptr, sizeof(double), cudaMemcpyDeviceToHost), "copy result");
  return result;
}

}  // namespace ops
