// Block-wide reduction in shared memory, shared by reduce.cu and histogram.cu.
// Portable across warp widths: it synchronizes the whole block at every step
// instead of relying on lockstep warps.
#pragma once

#include <cuda_runtime.h>

namespace vecmath {
namespace detail {

// Every thread passes its value; thread 0 gets the block's sum. `scratch`
// holds blockDim.x elements; blockDim.x must be a power of two.
template <typename T>
__device__ T block_sum(T value, T* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      scratch[threadIdx.x] += scratch[threadIdx.x + stride];
    }
    __syncthreads();
  }
  return scratch[0];
}

}  // namespace detail
}  // namespace vecmath
