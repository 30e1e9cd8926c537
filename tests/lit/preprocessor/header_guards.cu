// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2
// REQUIRES: hipcc
// Helper headers define their checks only when CUDA's runtime header is in: the
// guards become the guards of the HIP headers that replace CUDA's, so the helpers
// keep their definitions (and hipcc sees them: --verify syntax).
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

// CHECK: #ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
#ifdef __DRIVER_TYPES_H__
static const char* error_name(cudaError_t e) { return cudaGetErrorName(e); }
#endif

// CHECK: #if defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H) && defined(HIP_INCLUDE_HIP_HIP_RUNTIME_API_H)
#if defined(__CUDA_RUNTIME_H__) && defined(__CUDA_RUNTIME_API_H__)
#define checkCudaErrors(call) check((call), #call, __FILE__, __LINE__)
static void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s:%d: %s: %s\n", file, line, what, error_name(e));
}
static int findCudaDevice() {
  int dev = 0;
  checkCudaErrors(cudaGetDevice(&dev));
  return dev;
}
#endif

// The driver API's guard stays: its CUresult overload would be a second
// hipError_t one.
// CHECK: #ifdef __cuda_cuda_h__
#ifdef __cuda_cuda_h__
static const char* error_name(CUresult e) { return "driver"; }
#endif

// CHECK: #ifndef HIP_INCLUDE_HIP_HIP_FP16_H
#ifndef __CUDA_FP16_H__
#error the fp16 header is in
#endif

int main() { return findCudaDevice(); }
// DIAG-NOT: error:
