// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// HIP 5.2 has no edge data or kernel node ports: the HIP names are written and each is an error.
#include <cuda_runtime.h>

void ports() {
  // CHECK: hipGraphEdgeData edge = {};
  cudaGraphEdgeData edge = {};
  // CHECK: edge.from_port = hipGraphKernelNodePortProgrammatic;
  edge.from_port = cudaGraphKernelNodePortProgrammatic;
  // CHECK: hipGraph_t graph;
  cudaGraph_t graph;
}
// DIAG: 'hipGraphEdgeData' needs HIP 6.2 or newer; the target is HIP 5.2
// DIAG: 'hipGraphKernelNodePortProgrammatic' needs HIP 6.2 or newer
// DIAG: [cass-hip-version]
