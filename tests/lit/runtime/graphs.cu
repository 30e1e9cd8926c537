// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Stream capture into a graph, instantiation and replay; edge data and ports (HIP 6.2).
#include <cuda_runtime.h>

__global__ void scale(float* x, float s) { x[threadIdx.x] *= s; }

void replay(float* x, cudaStream_t s) {
  // CHECK: hipGraph_t graph;
  cudaGraph_t graph;
  // CHECK: hipGraphExec_t exec;
  cudaGraphExec_t exec;
  // CHECK: hipStreamBeginCapture(s, hipStreamCaptureModeGlobal);
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<1, 64, 0, s>>>(x, 2.0f);
  // CHECK: hipStreamEndCapture(s, &graph);
  cudaStreamEndCapture(s, &graph);
  // CHECK: hipGraphInstantiateWithFlags(&exec, graph, 0);
  cudaGraphInstantiateWithFlags(&exec, graph, 0);
  for (int i = 0; i < 10; ++i) {
    // CHECK: hipGraphLaunch(exec, s);
    cudaGraphLaunch(exec, s);
  }
  size_t nodes = 0;
  // CHECK: hipGraphGetNodes(graph, nullptr, &nodes);
  cudaGraphGetNodes(graph, nullptr, &nodes);
  // CHECK: hipGraphEdgeData edge = {};
  cudaGraphEdgeData edge = {};
  // CHECK: edge.from_port = hipGraphKernelNodePortProgrammatic;
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  // CHECK: edge.to_port = hipGraphKernelNodePortDefault;
  edge.to_port = cudaGraphKernelNodePortDefault;
  // CHECK: edge.type = hipGraphDependencyTypeProgrammatic;
  edge.type = cudaGraphDependencyTypeProgrammatic;
  // CHECK: unsigned char launch_port = hipGraphKernelNodePortLaunchCompletion;
  unsigned char launch_port = cudaGraphKernelNodePortLaunchCompletion;
  // CHECK: hipGraphExecDestroy(exec);
  cudaGraphExecDestroy(exec);
  // CHECK: hipGraphDestroy(graph);
  cudaGraphDestroy(graph);
}
