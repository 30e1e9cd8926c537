// CASS bfloat16 operations: the cuda_bf16.h pair operations the targeted HIP lacks.
//
// HIP 5.2 has no hip_bf16.h: only hip_bfloat16.h's scalar hip_bfloat16, whose float
// constructor rounds to nearest even. For it, this header has a pair type and the pair
// operations bf16.toml emits for targets before HIP 5.7 (__cass_bf16_*), plus __hadd,
// __hsub, __hmul and __hfma (and their pair forms) as overloads for hip_bfloat16, which
// compute in float and round once, as cuda_bf16.h's do.
//
// From HIP 5.7 hip_bf16.h has the pair type, but no release declares
// __floats2bfloat162_rn or __float2bfloat162_rn, and before the HIP whose
// __hip_bfloat16 converts from float (6.2, bf16.toml says why) they cannot
// be spelled as constructor calls: the two functions below pack through
// __float22bfloat162_rn, which every hip_bf16.h has, on the host and the device.
#pragma once

#include <hip/hip_runtime.h>

// The HIP-on-CUDA layer (cass_build/runcheck/hip_on_cuda.py) maps these names to CUDA's own
// as macros; with it the definitions here stand down.
#if __has_include(<hip/hip_bf16.h>) && !defined(__cass_bf16_floats2bfloat162_rn)
#include <hip/hip_bf16.h>

__host__ __device__ inline __hip_bfloat162 __cass_bf16_floats2bfloat162_rn(float a, float b) {
    return __float22bfloat162_rn(make_float2(a, b));
}

__host__ __device__ inline __hip_bfloat162 __cass_bf16_float2bfloat162_rn(float a) {
    return __float22bfloat162_rn(make_float2(a, a));
}

#endif

// The HIP 5.2 forms need only hip_bfloat16.h, which every HIP has, so a translation for
// HIP 5.2 builds with a newer HIP too.
#include <hip/hip_bfloat16.h>

#ifndef __cass_bf16_pair
#ifdef __HIPCC__
#define __CASS_BF16_ROUND(f) hip_bfloat16(f)
#define __CASS_BF16_WIDEN(b) static_cast<float>(b)
#else
// A host compiler (g++ through the CUDA toolkit stand-in's cuda_bf16.h): hip_bfloat16.h
// then declares hip_bfloat16 as a plain struct of its bits, with no conversions, so the
// conversions are done here: round to nearest even (a NaN stays a quiet NaN), and widen.
#include <cstdint>
#include <cstring>
inline hip_bfloat16 __cass_bf16_round_host(float f) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    hip_bfloat16 out;
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
        out.data = static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    } else {
        out.data = static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
    return out;
}
inline float __cass_bf16_widen_host(hip_bfloat16 b) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b.data) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
#define __CASS_BF16_ROUND(f) __cass_bf16_round_host(f)
#define __CASS_BF16_WIDEN(b) __cass_bf16_widen_host(b)
#endif

// cuda_bf16.h's __nv_bfloat162: two bfloat16, x the low half.
struct __attribute__((aligned(4))) __cass_bf16_pair {
    hip_bfloat16 x, y;
};

__host__ __device__ inline __cass_bf16_pair __cass_bf16_halves2bfloat162(hip_bfloat16 a,
                                                                         hip_bfloat16 b) {
    __cass_bf16_pair p;
    p.x = a;
    p.y = b;
    return p;
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_floats2bfloat162_rn(float a, float b) {
    return __cass_bf16_halves2bfloat162(__CASS_BF16_ROUND(a), __CASS_BF16_ROUND(b));
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_float2bfloat162_rn(float a) {
    return __cass_bf16_floats2bfloat162_rn(a, a);
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_float22bfloat162_rn(float2 a) {
    return __cass_bf16_floats2bfloat162_rn(a.x, a.y);
}

__host__ __device__ inline float2 __cass_bf16_bfloat1622float2(__cass_bf16_pair a) {
    return make_float2(__CASS_BF16_WIDEN(a.x), __CASS_BF16_WIDEN(a.y));
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_bfloat162bfloat162(hip_bfloat16 a) {
    return __cass_bf16_halves2bfloat162(a, a);
}

__host__ __device__ inline hip_bfloat16 __cass_bf16_low2bfloat16(__cass_bf16_pair a) { return a.x; }
__host__ __device__ inline hip_bfloat16 __cass_bf16_high2bfloat16(__cass_bf16_pair a) { return a.y; }

__host__ __device__ inline __cass_bf16_pair __cass_bf16_low2bfloat162(__cass_bf16_pair a) {
    return __cass_bf16_halves2bfloat162(a.x, a.x);
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_high2bfloat162(__cass_bf16_pair a) {
    return __cass_bf16_halves2bfloat162(a.y, a.y);
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_lows2bfloat162(__cass_bf16_pair a,
                                                                       __cass_bf16_pair b) {
    return __cass_bf16_halves2bfloat162(a.x, b.x);
}

__host__ __device__ inline __cass_bf16_pair __cass_bf16_highs2bfloat162(__cass_bf16_pair a,
                                                                        __cass_bf16_pair b) {
    return __cass_bf16_halves2bfloat162(a.y, b.y);
}

// Arithmetic in float, rounded once: a bfloat16 product is exact in float.
__device__ inline hip_bfloat16 __hadd(hip_bfloat16 a, hip_bfloat16 b) {
    return __CASS_BF16_ROUND(__CASS_BF16_WIDEN(a) + __CASS_BF16_WIDEN(b));
}
__device__ inline hip_bfloat16 __hsub(hip_bfloat16 a, hip_bfloat16 b) {
    return __CASS_BF16_ROUND(__CASS_BF16_WIDEN(a) - __CASS_BF16_WIDEN(b));
}
__device__ inline hip_bfloat16 __hmul(hip_bfloat16 a, hip_bfloat16 b) {
    return __CASS_BF16_ROUND(__CASS_BF16_WIDEN(a) * __CASS_BF16_WIDEN(b));
}
__device__ inline hip_bfloat16 __hfma(hip_bfloat16 a, hip_bfloat16 b, hip_bfloat16 c) {
    return __CASS_BF16_ROUND(fmaf(__CASS_BF16_WIDEN(a), __CASS_BF16_WIDEN(b), __CASS_BF16_WIDEN(c)));
}
__device__ inline __cass_bf16_pair __hadd2(__cass_bf16_pair a, __cass_bf16_pair b) {
    return __cass_bf16_halves2bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y));
}
__device__ inline __cass_bf16_pair __hsub2(__cass_bf16_pair a, __cass_bf16_pair b) {
    return __cass_bf16_halves2bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y));
}
__device__ inline __cass_bf16_pair __hmul2(__cass_bf16_pair a, __cass_bf16_pair b) {
    return __cass_bf16_halves2bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y));
}
__device__ inline __cass_bf16_pair __hfma2(__cass_bf16_pair a, __cass_bf16_pair b,
                                           __cass_bf16_pair c) {
    return __cass_bf16_halves2bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
#endif
