#include "scale.h"

__global__ void scaleKernel(float *data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

void launchScale(float *device_data, int n, float factor) {
  scaleKernel<<<(n + 127) / 128, 128>>>(device_data, n, factor);
}
