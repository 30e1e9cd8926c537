// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// CUB is hipCUB: the header and namespace change, the algorithms keep their names.
// CHECK: #include <hipcub/hipcub.hpp>
#include <cub/cub.cuh>

__global__ void block_sum(const int* in, int* out) {
  // CHECK: using BlockReduce = hipcub::BlockReduce<int, 128>;
  using BlockReduce = cub::BlockReduce<int, 128>;
  __shared__ typename BlockReduce::TempStorage storage;
  int v = in[blockIdx.x * 128 + threadIdx.x];
  int total = BlockReduce(storage).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

void device_sum(const int* in, int* out, int n, cudaStream_t s) {
  void* temp = nullptr;
  size_t bytes = 0;
  // CHECK: hipcub::DeviceReduce::Sum(temp, bytes, in, out, n, s);
  cub::DeviceReduce::Sum(temp, bytes, in, out, n, s);
  // CHECK: hipMalloc(&temp, bytes);
  cudaMalloc(&temp, bytes);
  // CHECK: hipcub::DeviceReduce::Sum(temp, bytes, in, out, n, s);
  cub::DeviceReduce::Sum(temp, bytes, in, out, n, s);
  // CHECK: hipcub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, s);
  cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, s);
  // CHECK: hipFree(temp);
  cudaFree(temp);
}
