global__wa 
#endif
for (int o = 1; o < 32rpSize 
#include <cudloat>(s, x, y) 
#if )CUDART_VERSION __CUDA_ARCH__
 <<<g, b>>>( R"(cu>_sh for 'c' __shfl_down_sync  __CUDA_ARCH__
\

__shfl_down_sync(0xffffffff, v, o)
32 k<<<>>>()mask
5 ) 
#eùdi(int o = 1; o < 32; o *=cusparseOperation_t 2)k<<<g, b>>>( R"(cudaMalloc)"cudcublasDtbmv_v2aMemAdvise surf2Dread<
13000cusparseCreateBlockedEllcudaMemLocation blockDim.x / 32
cudaMet), cudaMeGetSize2d;mcpyHostToDevice));
  CUDAmcpyToSymbol