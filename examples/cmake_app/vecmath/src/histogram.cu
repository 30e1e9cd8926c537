#include "vecmath/check.cuh"
#include "block_reduce.cuh"

namespace {

constexpr int kMaxBins = 256;

// Each block counts into shared memory, then adds its counts to the global bins.
__global__ void histogram_kernel(const float* __restrict__ x, std::size_t n, float lo, float hi,
                                 int bins, unsigned* counts, unsigned* dropped) {
  __shared__ unsigned local[kMaxBins];
  __shared__ unsigned scratch[vecmath::detail::kBlock];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    local[b] = 0;
  }
  __syncthreads();
  const float scale = bins / (hi - lo);
  unsigned outside = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(blockDim.x) * gridDim.x) {
    const float v = x[i];
    if (v >= lo && v < hi) {
      int b = static_cast<int>((v - lo) * scale);
      atomicAdd(&local[b < bins ? b : bins - 1], 1u);
    } else {
      ++outside;
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    atomicAdd(&counts[b], local[b]);
  }
  unsigned block_outside = vecmath::detail::block_sum(outside, scratch);
  if (threadIdx.x == 0) {
    atomicAdd(dropped, block_outside);
  }
}

}  // namespace

namespace vecmath {

std::vector<std::uint32_t> histogram(const std::vector<float>& x, float lo, float hi, int bins) {
  if (bins < 1 || bins > kMaxBins || !(hi > lo)) {
    throw std::invalid_argument("histogram: need 1..256 bins and hi > lo");
  }
  std::vector<std::uint32_t> counts(bins, 0);
  if (x.empty()) {
    return counts;
  }
  detail::DeviceBuffer<float> dx(x.size());
  detail::DeviceBuffer<unsigned> dcounts(bins), ddropped(1);
  dx.upload(x.data());
  dcounts.zero();
  ddropped.zero();
  histogram_kernel<<<detail::grid_for(x.size()), detail::kBlock>>>(
      dx.get(), x.size(), lo, hi, bins, dcounts.get(), ddropped.get());
  VECMATH_CHECK(cudaGetLastError());
  std::vector<unsigned> host(bins);
  dcounts.download(host.data());
  for (int b = 0; b < bins; ++b) {
    counts[b] = host[b];
  }
  return counts;
}

}  // namespace vecmath
