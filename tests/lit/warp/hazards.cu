// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 7.1
// --warp cuda keeps 32-lane code as written (logical warps make it right) and says so in
// notes; native mode's warnings and rewrites (widened ballots, warpSize loop bounds) are gone.
#define WARP_SIZE 32
__global__ void reduce(const float* in, float* out, int n) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  // CHECK: for (int o = 16; o > 0; o /= 2) v += __cass_shfl_down_sync(0xffffffff, v, o);
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  // CHECK: unsigned bits = __cass_ballot_sync(0xffffffff, v > 0.f);
  unsigned bits = __ballot_sync(0xffffffff, v > 0.f);
  // CHECK: int lane = threadIdx.x & 31, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
  int lane = threadIdx.x & 31, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
  // CHECK: if (lane == 0) out[warp * nwarps] = v + __popc(bits) + (1u << lane) + __cass_warp_size * 0 + __cass_warp_size;
  if (lane == 0) out[warp * nwarps] = v + __popc(bits) + (1u << lane) + warpSize * 0 + warpSize;
}
// DIAG: note: 'WARP_SIZE' fixes the warp size at 32: right as written
// DIAG: note: '0xffffffff' is a full mask of 32 lanes: right as written
// DIAG: note: '& 31' assumes 32-lane warps: right as written
// DIAG: note: 'blockDim.x / 32' counts 32-lane warps: right as written
// DIAG: note: '1u << lane' is a 32-lane mask: right as written
// DIAG-NOT: warning:
// DIAG-NOT: ballot-width
// DIAG-NOT: warpsize-constant
