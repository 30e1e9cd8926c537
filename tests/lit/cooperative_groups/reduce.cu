// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 6.2
// Cooperative groups: the header and namespace become HIP's; the group API is the same.
// CHECK: #include <hip/hip_cooperative_groups.h>
#include <cooperative_groups.h>
// CHECK: namespace cg = cooperative_groups;
namespace cg = cooperative_groups;

__global__ void block_sum(const float* x, float* out) {
  // CHECK: cg::thread_block block = cg::this_thread_block();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float partial[256];
  partial[block.thread_rank()] = x[blockIdx.x * blockDim.x + threadIdx.x];
  // CHECK: block.sync();
  block.sync();
  // CHECK: cg::grid_group grid = cg::this_grid();
  cg::grid_group grid = cg::this_grid();
  if (block.thread_rank() == 0) out[blockIdx.x] = partial[0];
  // CHECK: grid.sync();
  grid.sync();
  // CHECK: cg::sync(block);
  cg::sync(block);
}
