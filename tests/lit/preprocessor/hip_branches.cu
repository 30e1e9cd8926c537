// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// A source's own HIP branch wins over a CUDA-version test that the assumed release
// (12080) would make true; a chain without a HIP branch is left to that release.
#include <cuda_runtime.h>

__device__ int relaxed_load(int* p) {
// CHECK: #if !defined(__HIPCC__) && (12080 >= 12080)
#if CUDA_VERSION >= 12080
  return __nv_atomic_load_n(p, __NV_ATOMIC_RELAXED);
// CHECK: #elif defined(__HIPCC__)
#elif defined(__HIPCC__)
  return __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
#else
  return *p;
#endif
}

__device__ int pick() {
// CHECK: #if !defined(__HIPCC__) && (12 >= 12)
#if __CUDACC_VER_MAJOR__ >= 12
  return 1;
// CHECK: #elif (8 > 0) && defined(USE_ROCM)
#elif (__CUDACC_VER_MINOR__ > 0) && defined(USE_ROCM)
  return 2;
#endif
  return 0;
}

__device__ int no_hip_branch() {
// CHECK: #if 12080 >= 11000
#if CUDA_VERSION >= 11000
  return 1;
#else
  return 0;
#endif
}

__device__ int hip_tested_too() {
// The condition names HIP itself: the author decided; nothing is added.
// CHECK: #if 12080 >= 12000 && !defined(__HIP_PLATFORM_AMD__)
#if CUDART_VERSION >= 12000 && !defined(__HIP_PLATFORM_AMD__)
  return 1;
#elif defined(__HIP_PLATFORM_AMD__)
  return 2;
#endif
  return 0;
}

// Nested chains are separate: the inner #if has no HIP branch of its own.
// CHECK: #if !defined(__HIPCC__) && (12080 >= 12000)
#if CUDA_VERSION >= 12000
// CHECK: #if 12080 >= 12040
#if CUDA_VERSION >= 12040
#define NEWER 1
#endif
#elif defined(__HIP__)
#define NEWER 0
#endif
// DIAG: a later #elif of the same chain tests for HIP; it is made inactive under HIP
// DIAG-NOT: unknown-api
