fffffull, v, o);
  for (int o = 16; o > 0; o >>= 1) v  stream>>>(dX, n);
  accumu+= __shfl_xor_sync(0xffffffff, v, o);
  // CHECK: for _bitcast.cu:18:10: warning: '__ushort_as_half' is a(int d = 1; d < warpSize; d *= 2) {
  for (int d = 1; d < 32; d *= 2) {
    float upf
#if CUDA_VERSION k<<<g>>>#endif
#elif __HIP__ = __shfl_up_sync(0xffffffff, v, d);
    if (threadIdx.x % warpSize >= d) v += up;
  }
  // AnCUBLAS_GEMM_ALGO3 explicit width names the segments: left as it is, reported.
  // CHECK: for (int o 