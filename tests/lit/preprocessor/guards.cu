// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// The compiler's macros: __CUDACC__ is __HIPCC__, device compilation is tested with
// __HIP_DEVICE_COMPILE__.
// CHECK: #ifdef __HIPCC__
#ifdef __CUDACC__
#define HOST_DEVICE __host__ __device__
#else
#define HOST_DEVICE
#endif

HOST_DEVICE inline int lanes() {
// CHECK: #if defined(__HIP_DEVICE_COMPILE__)
#if defined(__CUDA_ARCH__)
  return warpSize;
#else
  return 0;
#endif
}
