// CASS fp16 operations: cuda_fp16.h's max and min, which the targeted HIP lacks.
//
// HIP 5.2's hip_fp16.h has none of __hmax, __hmin, __hmax2 and __hmin2 (fp16.toml gates
// the first two to HIP 7.0 and names these functions for older targets; the pair forms
// it names for every target). They are built from what every supported HIP declares:
// __hisnan, __heq, __hgt, __hlt, the half/half2 moves and __half_as_ushort, and follow
// CUDA's rules: a NaN operand yields the other operand, and of +0 and -0, max is +0 and
// min is -0.
#pragma once

#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

// The HIP-on-CUDA layer (cass_build/runcheck/hip_on_cuda.py) maps these names to CUDA's own
// as macros; with it the definitions here stand down.
#ifndef __cass_fp16_hmax
#ifndef __HIP__
// A host compiler (g++ through the CUDA toolkit stand-in's cuda_fp16.h) has none of the
// device operations these are built from: it sees them declared, as device functions.
__device__ __half __cass_fp16_hmax(__half a, __half b);
__device__ __half __cass_fp16_hmin(__half a, __half b);
__device__ __half2 __cass_fp16_hmax2(__half2 a, __half2 b);
__device__ __half2 __cass_fp16_hmin2(__half2 a, __half2 b);
#else
__device__ inline __half __cass_fp16_hmax(__half a, __half b) {
    if (__hisnan(a)) return b;
    if (__hisnan(b)) return a;
    if (__heq(a, b)) return (__half_as_ushort(a) & 0x8000u) != 0 ? b : a;  // +0 over -0
    return __hgt(a, b) ? a : b;
}

__device__ inline __half __cass_fp16_hmin(__half a, __half b) {
    if (__hisnan(a)) return b;
    if (__hisnan(b)) return a;
    if (__heq(a, b)) return (__half_as_ushort(a) & 0x8000u) != 0 ? a : b;  // -0 under +0
    return __hlt(a, b) ? a : b;
}

__device__ inline __half2 __cass_fp16_hmax2(__half2 a, __half2 b) {
    return __halves2half2(__cass_fp16_hmax(__low2half(a), __low2half(b)),
                          __cass_fp16_hmax(__high2half(a), __high2half(b)));
}

__device__ inline __half2 __cass_fp16_hmin2(__half2 a, __half2 b) {
    return __halves2half2(__cass_fp16_hmin(__low2half(a), __low2half(b)),
                          __cass_fp16_hmin(__high2half(a), __high2half(b)));
}
#endif
#endif
