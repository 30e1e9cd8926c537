// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2
// REQUIRES: hipcc
// CUDA 12.8's memory-model atomics: without a scope they are the __atomic builtins
// (system scope, CUDA's default too), with one the __hip_atomic_* builtins; the
// orders and scopes are clang's. hipcc checks that every one of them parses.
#include <cuda_runtime.h>

__global__ void atomics(int* p, int* out) {
  // CHECK: int a = __atomic_load_n(p, __ATOMIC_RELAXED);
  int a = __nv_atomic_load_n(p, __NV_ATOMIC_RELAXED);
  // CHECK: int b = __hip_atomic_load(p, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP);
  int b = __nv_atomic_load_n(p, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_BLOCK);
  // CHECK: __atomic_store_n(p, a + b, __ATOMIC_RELEASE);
  __nv_atomic_store_n(p, a + b, __NV_ATOMIC_RELEASE);
  // CHECK: __hip_atomic_store(p, a, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_SYSTEM);
  __nv_atomic_store_n(p, a, __NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_SYSTEM);
  // CHECK: int c = __hip_atomic_exchange(p, 3, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
  int c = __nv_atomic_exchange_n(p, 3, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_DEVICE);
  // CHECK: int d = __atomic_exchange_n(p, 4, __ATOMIC_RELAXED);
  int d = __nv_atomic_exchange_n(p, 4, __NV_ATOMIC_RELAXED);
  int expected = 4;
  // CHECK: bool swapped = __atomic_compare_exchange_n(p, &expected, 5, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
  bool swapped = __nv_atomic_compare_exchange_n(p, &expected, 5, false, __NV_ATOMIC_ACQ_REL, __NV_ATOMIC_RELAXED);
  // CHECK: int e = __atomic_fetch_add(p, 1, __ATOMIC_RELAXED) + __hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SINGLETHREAD);
  int e = __nv_atomic_fetch_add(p, 1, __NV_ATOMIC_RELAXED) + __nv_atomic_fetch_add(p, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_THREAD);
  // CHECK: e += __atomic_fetch_sub(p, 1, __ATOMIC_RELAXED) + __atomic_fetch_min(p, 1, __ATOMIC_RELAXED);
  e += __nv_atomic_fetch_sub(p, 1, __NV_ATOMIC_RELAXED) + __nv_atomic_fetch_min(p, 1, __NV_ATOMIC_RELAXED);
  // CHECK: e += __hip_atomic_fetch_max(p, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  e += __nv_atomic_fetch_max(p, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_CLUSTER);
  // CHECK: e += __atomic_fetch_and(p, 1, __ATOMIC_RELAXED) | __atomic_fetch_or(p, 2, __ATOMIC_RELAXED) | __atomic_fetch_xor(p, 4, __ATOMIC_RELAXED);
  e += __nv_atomic_fetch_and(p, 1, __NV_ATOMIC_RELAXED) | __nv_atomic_fetch_or(p, 2, __NV_ATOMIC_RELAXED) | __nv_atomic_fetch_xor(p, 4, __NV_ATOMIC_RELAXED);
  // CHECK: __atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
  __nv_atomic_add(p, 1, __NV_ATOMIC_RELAXED);
  // CHECK: __hip_atomic_fetch_or(p, 8, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __nv_atomic_or(p, 8, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
  int r = 0;
  // CHECK: __atomic_load(p, &r, __ATOMIC_ACQUIRE);
  __nv_atomic_load(p, &r, __NV_ATOMIC_ACQUIRE);
  // CHECK: __atomic_store(p, &r, __ATOMIC_RELEASE);
  __nv_atomic_store(p, &r, __NV_ATOMIC_RELEASE);
  // CHECK: __atomic_thread_fence(__ATOMIC_SEQ_CST);
  __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST);
  out[threadIdx.x] = a + b + c + d + e + r + swapped;
}
// DIAG: AMD has no thread block clusters
// DIAG-NOT: unknown-api
