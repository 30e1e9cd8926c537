#include "vecmath/check.cuh"

namespace {

__global__ void saxpy_kernel(float a, const float* __restrict__ x, float* __restrict__ y,
                             std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    y[i] = a * x[i] + y[i];
  }
}

}  // namespace

namespace vecmath {

void saxpy(float a, const std::vector<float>& x, std::vector<float>& y) {
  if (x.size() != y.size()) {
    throw std::invalid_argument("saxpy: x and y differ in length");
  }
  if (x.empty()) {
    return;
  }
  detail::DeviceBuffer<float> dx(x.size()), dy(y.size());
  dx.upload(x.data());
  dy.upload(y.data());
  saxpy_kernel<<<detail::grid_for(x.size()), detail::kBlock>>>(a, dx.get(), dy.get(), x.size());
  VECMATH_CHECK(cudaGetLastError());
  VECMATH_CHECK(cudaDeviceSynchronize());
  dy.download(y.data());
}

}  // namespace vecmath
