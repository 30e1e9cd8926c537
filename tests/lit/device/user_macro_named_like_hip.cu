// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2 --warp native
// REQUIRES: hipcc
// The file's own __shfl macro would hide HIP's __shfl, which HIP 5.2's translation of
// __shfl_sync calls with three arguments: the macro is renamed at every use.
#include <cuda_runtime.h>

// A test before the definition is of HIP's name: HIP's __shfl is no macro.
// CHECK: #ifndef __shfl
#ifndef __shfl
// CHECK: #define cass___shfl(v, d) __shfl(v, d)
#define __shfl(v, d) __shfl_sync(0xffffffff, v, d)
#endif
// A name HIP writes only for other files' CUDA names (min for umin) stays the
// file's: nothing here is translated to it.
// CHECK: #define min(a, b) ((a) < (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))
// An alias of what HIP calls so is harmless and stays.
// CHECK: #define hipMalloc hipMalloc
#define hipMalloc cudaMalloc

__global__ void broadcast(int* p, int width) {
  // CHECK: int v = cass___shfl(p[threadIdx.x], 0);
  int v = __shfl(p[threadIdx.x], 0);
  // CHECK: int w = __shfl(v, 1, width);
  int w = __shfl_sync(0xffffffff, v, 1, width);
  p[threadIdx.x] = v + w;
}
// DIAG: '__shfl' is also a HIP name that the translation writes
// DIAG: renamed 'cass___shfl' from its definition on [cass-macro-shadows-hip]
// DIAG-NOT: 'hipMalloc' is also a HIP name
// DIAG-NOT: 'min' is also a HIP name
