#include <cuda_runtime.h>

#include "histogram.h"

__global__ void histogramKernel(const unsigned char *data, int n, unsigned int *bins) {
  __shared__ unsigned int local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

void deviceHistogram(const unsigned char *data, int n, unsigned int *bins) {
  cudaMemset(bins, 0, 256 * sizeof(unsigned int));
  histogramKernel<<<32, 256>>>(data, n, bins);
}
