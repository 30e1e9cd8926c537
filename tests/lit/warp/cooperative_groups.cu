// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// --warp cuda: cooperative groups come from <cass/cooperative_groups.h> (namespace __cass_cg),
// whose warp-sized tiles and coalesced groups are 32-lane logical-warp groups and which has
// cg::reduce and the scans on every HIP.
// CHECK-NOT: cass/warp.h
// CHECK: #include <cass/cooperative_groups.h>
#include <cooperative_groups.h>
// (the same header again: its directive is blanked)
// CHECK-NOT: #include
#include <cooperative_groups/reduce.h>
// CHECK: namespace cg = __cass_cg;
namespace cg = cooperative_groups;

__global__ void k(int* out) {
  // CHECK: cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  // CHECK: int s = cg::reduce(warp, (int)warp.thread_rank(), cg::plus<int>());
  int s = cg::reduce(warp, (int)warp.thread_rank(), cg::plus<int>());
  // CHECK: out[warp.meta_group_rank()] = s + __cass_cg::coalesced_threads().size();
  out[warp.meta_group_rank()] = s + cooperative_groups::coalesced_threads().size();
}
// DIAG-NOT: error:
// DIAG-NOT: warning:
