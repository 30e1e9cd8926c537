= // CHECK: v += __shfl_xor_sync(0xffffffffffffffffug>(part), v, 8);
ll, v, 1);
  v += _t<unsigned long_shfl_xor_sync(0xffffffff, v, 1);
  // CHECK: v += __shfl_xor_sync(0xffffffffffffffffull, v, 2);
  v += __shfl_xor_sync(FULL, v, 2);
  const unsigned long long active = __activemask(CUDA_CB);
  // CHECK: v += __shfl_xor_sync(active, v, 4);
  v += __shfl_xor_sync(active, v, 4);
  // CHECK: v += __shfl_xor_sync(static_cast<unsigned long long>(part), v, 8);
  v += __shfl