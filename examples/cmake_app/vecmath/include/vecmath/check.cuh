// Shared by every .cu file of the library and the demo: error checking and
// launch geometry.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "vecmath/vecmath.h"

// Which runtime this translation unit was built against, for messages only.
#if defined(__HIPCC__)
#define VECMATH_RUNTIME "HIP"
#else
#define VECMATH_RUNTIME "CUDA"
#endif

#define VECMATH_CHECK(call)                                                             \
  do {                                                                                  \
    cudaError_t vecmath_err_ = (call);                                                  \
    if (vecmath_err_ != cudaSuccess) {                                                  \
      throw vecmath::GpuError(std::string(#call) + " failed: " +                       \
                              cudaGetErrorString(vecmath_err_) + " (" __FILE__ ")");    \
    }                                                                                   \
  } while (0)

namespace vecmath {
namespace detail {

constexpr int kBlock = 256;

inline int grid_for(std::size_t n) {
  std::size_t blocks = (n + kBlock - 1) / kBlock;
  return static_cast<int>(blocks < 1024 ? (blocks ? blocks : 1) : 1024);
}

// Device buffer owning its allocation; copies in and out with checks.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    VECMATH_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { (void)cudaFree(ptr_); }

  void upload(const T* host) { VECMATH_CHECK(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice)); }
  void download(T* host) const {
    VECMATH_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost));
  }
  void zero() { VECMATH_CHECK(cudaMemset(ptr_, 0, bytes())); }
  T* get() const { return ptr_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_;
};

}  // namespace detail
}  // namespace vecmath
