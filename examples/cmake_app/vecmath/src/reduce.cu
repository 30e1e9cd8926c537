#include "vecmath/check.cuh"
#include "block_reduce.cuh"

namespace {

// One partial sum per block; the host adds the partials.
__global__ void sum_kernel(const float* __restrict__ x, std::size_t n, double* partial) {
  __shared__ double scratch[vecmath::detail::kBlock];
  double acc = 0.0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    acc += x[i];
  }
  double total = vecmath::detail::block_sum(acc, scratch);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = total;
  }
}

}  // namespace

namespace vecmath {

double sum(const std::vector<float>& x) {
  if (x.empty()) {
    return 0.0;
  }
  const int grid = detail::grid_for(x.size());
  detail::DeviceBuffer<float> dx(x.size());
  detail::DeviceBuffer<double> dpartial(grid);
  dx.upload(x.data());
  sum_kernel<<<grid, detail::kBlock>>>(dx.get(), x.size(), dpartial.get());
  VECMATH_CHECK(cudaGetLastError());
  std::vector<double> partial(grid);
  dpartial.download(partial.data());
  double total = 0.0;
  for (double p : partial) {
    total += p;
  }
  return total;
}

}  // namespace vecmath
