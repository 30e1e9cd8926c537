#include <cuda_runtime.h>
#include "blur.h"

int blurDevices() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}
