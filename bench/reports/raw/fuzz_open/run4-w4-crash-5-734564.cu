32 bits
#include <cuda_runtime.h>
 surf2Dread<fl
#include <cuda_runtime.h>
oat>(s, x, y) threadIdx.x % 32, __ballot_sync( 
#endif
 k<<<>>>()
0xffffffff 1
asm constexpr constcudaMemcpy
:: */ cudaMalloc 
#if defined(__CUDA_ARCH__)
// cudaMalloc
constexpr
warpSize
threadIdx <<
for (int o = 16; o > 0; o /= 2) R"(cudaMalloc)"threadIdx.x % 32 constexpr? __any_synck<<<>>>() threadIdx2
blockDim.x / 32
laneId
for (int o = 16; o > 0; o /= 2)
thrust
const 
#include "kernel.cu"

__shfl_down_sync(0xffffffff