#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "cuda_check.h"
#include "histogram.h"

int main() {
  const int n = 1 << 20;
  std::vector<unsigned char> data(n);
  for (int i = 0; i < n; ++i) data[i] = static_cast<unsigned char>(i * 7);
  findCudaDevice();
  unsigned char *ddata = nullptr;
  unsigned int *dbins = nullptr;
  checkCudaErrors(cudaMalloc(&ddata, n));
  checkCudaErrors(cudaMalloc(&dbins, 256 * sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(ddata, data.data(), n, cudaMemcpyHostToDevice));
  deviceHistogram(ddata, n, dbins);
  std::vector<unsigned int> bins(256);
  checkCudaErrors(cudaMemcpy(bins.data(), dbins, 256 * sizeof(unsigned int),
                             cudaMemcpyDeviceToHost));
  unsigned long total = 0;
  for (unsigned int b : bins) total += b;
  checkCudaErrors(cudaFree(ddata));
  checkCudaErrors(cudaFree(dbins));
  std::printf("legacy_histogram: %s\n", total == static_cast<unsigned long>(n) ? "ok" : "FAILED");
  return total == static_cast<unsigned long>(n) ? 0 : 1;
}
