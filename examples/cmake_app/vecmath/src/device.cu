#include "vecmath/check.cuh"

namespace vecmath {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky error so later calls report their own
    return 0;
  }
  return count;
}

std::string device_summary() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    return std::string("no " VECMATH_RUNTIME " device (") +
           (err != cudaSuccess ? cudaGetErrorString(err) : "count is 0") + ")";
  }
  cudaDeviceProp prop;
  VECMATH_CHECK(cudaGetDeviceProperties(&prop, 0));
  return std::string(VECMATH_RUNTIME " device 0: ") + prop.name + ", " +
         std::to_string(prop.multiProcessorCount) + " multiprocessors";
}

}  // namespace vecmath
