// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2
// REQUIRES: hipcc
// T** out-parameters HIP 5.2 takes only as void** (CUDA has template overloads)
// get the cast; the graph API's symbol arguments get HIP_SYMBOL, as the memcpy
// ones do. hipcc checks the result against HIP 5.2's headers.
#include <cuda_runtime.h>

__device__ float table[16];

int run(cudaGraph_t graph, cudaGraphNode_t node, cudaGraphExec_t exec) {
  float *host = nullptr, *dev = nullptr;
  size_t pitch = 0;
  // CHECK: hipHostMalloc((void**)(&host), 64, hipHostMallocMapped);
  cudaHostAlloc(&host, 64, cudaHostAllocMapped);
  // CHECK: hipHostGetDevicePointer((void**)(&dev), host, 0);
  cudaHostGetDevicePointer(&dev, host, 0);
  // CHECK: hipMallocPitch((void**)(&dev), &pitch, 64, 4);
  cudaMallocPitch(&dev, &pitch, 64, 4);
  // Already cast: left as it is.
  // CHECK: hipHostGetDevicePointer((void**)&dev, host, 0);
  cudaHostGetDevicePointer((void**)&dev, host, 0);
  float src[16] = {};
  cudaGraphNode_t to, from;
  // CHECK: hipGraphAddMemcpyNodeToSymbol(&to, graph, nullptr, 0, HIP_SYMBOL(table), src, sizeof(src), 0, hipMemcpyHostToDevice);
  cudaGraphAddMemcpyNodeToSymbol(&to, graph, nullptr, 0, table, src, sizeof(src), 0, cudaMemcpyHostToDevice);
  // CHECK: hipGraphAddMemcpyNodeFromSymbol(&from, graph, &to, 1, src, HIP_SYMBOL(table), sizeof(src), 0, hipMemcpyDeviceToHost);
  cudaGraphAddMemcpyNodeFromSymbol(&from, graph, &to, 1, src, table, sizeof(src), 0, cudaMemcpyDeviceToHost);
  // CHECK: hipGraphMemcpyNodeSetParamsToSymbol(node, HIP_SYMBOL(table), src, sizeof(src), 0, hipMemcpyHostToDevice);
  cudaGraphMemcpyNodeSetParamsToSymbol(node, table, src, sizeof(src), 0, cudaMemcpyHostToDevice);
  // CHECK: hipGraphMemcpyNodeSetParamsFromSymbol(node, src, HIP_SYMBOL(table), sizeof(src), 0, hipMemcpyDeviceToHost);
  cudaGraphMemcpyNodeSetParamsFromSymbol(node, src, table, sizeof(src), 0, cudaMemcpyDeviceToHost);
  // CHECK: hipGraphExecMemcpyNodeSetParamsToSymbol(exec, node, HIP_SYMBOL(table), src, sizeof(src), 0, hipMemcpyHostToDevice);
  cudaGraphExecMemcpyNodeSetParamsToSymbol(exec, node, table, src, sizeof(src), 0, cudaMemcpyHostToDevice);
  // CHECK: return hipGraphExecMemcpyNodeSetParamsFromSymbol(exec, node, src, HIP_SYMBOL(table), sizeof(src), 0, hipMemcpyDeviceToHost);
  return cudaGraphExecMemcpyNodeSetParamsFromSymbol(exec, node, src, table, sizeof(src), 0, cudaMemcpyDeviceToHost);
}
