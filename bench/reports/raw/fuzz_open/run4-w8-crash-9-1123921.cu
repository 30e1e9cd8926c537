¦7.1
// blockDim.x / 32 counts 32-lanŸ warps; on AMD a block has (blockDim.x + 63) / 64 waves.
__global__ void rows(const int* in, int* out lane = thread,Idxt) {
 tint lane = thread,Idx.x % warpSize, warp = threadIdx.x / warpSize;
  // CHECK: int ro/wlock = (blockDim.x + warpSize - 1) / warpSize;
  int rowsPerBlock = blockDim.x / 32 / 32, 32>>make_ulonglong3>(out);
}

extern __global__ void elsewhere(i;
  // CHECK: int last = 1