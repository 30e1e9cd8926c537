// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// blockDim.x / 32 counts 32-lane warps; on AMD a block has (blockDim.x + 63) / 64 waves.
__global__ void rows(const int* in, int* out) {
  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  // CHECK: int rowsPerBlock = (blockDim.x + warpSize - 1) / warpSize;
  int rowsPerBlock = blockDim.x / 32;
  // CHECK: int last = 1 + (blockDim.x + warpSize - 1) / warpSize - 1;
  int last = 1 + blockDim.x / 32 - 1;
  // In a product the division applies to the product: reported, not rewritten.
  // CHECK: int half = 2 * blockDim.x / 32;
  int half = 2 * blockDim.x / 32;
  out[lane + warp + rowsPerBlock + last + half] = in[0];
}
// DIAG: warp_count.cu:6:35: note: 'blockDim.x / 32' counts 32-lane warps; rewritten as '(blockDim.x + warpSize - 1) / warpSize', the number of wavefronts (a partial last one included) [cass-warp-count]
// DIAG: warp_count.cu:8:31: note: 'blockDim.x / 32'
// DIAG: warp_count.cu:11:31: warning: 'blockDim.x / 32' counts 32-lane warps; a block has half as many 64-lane wavefronts. Write '(blockDim.x + warpSize - 1) / warpSize' (CASS rewrites it only in functions that name warpSize, outside a product) [cass-warp-count]

__global__ void noWarpSize(int* out) {
  // CHECK: out[0] = blockDim.x / 32;
  out[0] = blockDim.x / 32;
}
// DIAG: warp_count.cu:20:25: warning: 'blockDim.x / 32' counts 32-lane warps
