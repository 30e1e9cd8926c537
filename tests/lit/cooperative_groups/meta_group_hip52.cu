// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 5.2 --warp native
// HIP 5.2's groups have no meta_group_rank or meta_group_size: in --warp native mode each
// use is an error for that target (cuda mode takes them from <cass/cooperative_groups.h>),
// whatever the group's type is spelled as.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tiles(int* out) {
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  // CHECK: out[tile.meta_group_rank()] = tile.meta_group_size();
  out[tile.meta_group_rank()] = tile.meta_group_size();
}
// DIAG: 'meta_group_rank' needs HIP 6.0 or newer; the target is HIP 5.2
// DIAG: 'meta_group_size' needs HIP 6.0 or newer
