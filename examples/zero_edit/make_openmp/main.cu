// Fills an array on the host with OpenMP threads, scales it on the GPU, checks it on the host.
#include <omp.h>

#include <cstdio>
#include <vector>

#include "scale.cuh"

int main() {
  const int n = 1 << 20;
  std::vector<float> values(n);
#pragma omp parallel for
  for (int i = 0; i < n; ++i) values[i] = static_cast<float>(i % 1000);

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device (OpenMP threads: %d)\n", omp_get_max_threads());
    return 0;
  }
  cudaError_t err = scale_on_device(values.data(), n, 3.0f);
  if (err != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(err));
    return 1;
  }
  long bad = 0;
#pragma omp parallel for reduction(+ : bad)
  for (int i = 0; i < n; ++i) bad += values[i] != 3.0f * static_cast<float>(i % 1000);
  std::printf("%s: %ld of %d values wrong\n", bad ? "FAIL" : "ok", bad, n);
  return bad ? 1 : 0;
}
