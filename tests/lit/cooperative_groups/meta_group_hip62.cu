// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Newer HIP has them: the calls stay and nothing is reported.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tiles(int* out) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  // CHECK: out[tile.meta_group_rank()] = tile.meta_group_size();
  out[tile.meta_group_rank()] = tile.meta_group_size();
}
// DIAG-NOT: meta_group
