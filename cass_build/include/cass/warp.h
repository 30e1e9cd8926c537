// CASS logical warps: CUDA's 32-lane warp operations on every AMD wave size.
//
// CASS's `--warp cuda` mode (the default) routes CUDA's warp intrinsics, device-side
// warpSize and (through <cass/cooperative_groups.h>) cooperative groups' tiles here.
// On a wave64 target (CDNA: gfx90a, gfx942, gfx950; RDNA built with -mwavefrontsize64)
// each 64-lane wavefront runs as two logical 32-lane warps, lanes 0-31 and 32-63, and
// every operation acts within the caller's half: shuffles stay inside it (CUDA's
// out-of-range rules included), ballots and lane masks are the caller's 32 bits, the
// lane id is 0..31 and the warp size 32. On a wave32 target (RDNA: gfx10xx to gfx12xx)
// the same source compiles to the plain HIP operations. docs/warps.md has the model.
//
// Only what every supported HIP declares is used (HIP 5.2 has no _sync forms, no
// __syncwarp, no __activemask): __shfl*, __ballot, __any, __all, __lane_id,
// __threadfence_block and __popc/__ffs. The same names are all CASS's HIP-on-CUDA
// layer needs, so translated programs run there in both of its wave modes.
#pragma once

#include <hip/hip_runtime.h>

// The wave size the code is compiled for, per target: clang defines it for each AMD
// device pass (the trailing-underscore spelling since clang 19). The host pass and
// CUDA-side builds see 32; the HIP-on-CUDA layer's wave64 mode defines the old name.
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define __CASS_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define __CASS_WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define __CASS_WAVE_SIZE 32
#endif

#if __CASS_WAVE_SIZE != 32 && __CASS_WAVE_SIZE != 64
#error "cass/warp.h: expected a wave size of 32 or 64"
#endif

// CUDA's warp size, for device and host code alike.
constexpr int __cass_warp_size = 32;

// ---- host side ---------------------------------------------------------------------
// The device reports the logical warp's size, so launch geometry the host computes from
// it (warps per block, per-warp buffers) agrees with the device code. Occupancy APIs
// count blocks and threads, which logical warps do not change.

inline hipError_t __cass_hipGetDeviceProperties(hipDeviceProp_t* prop, int device) {
    const hipError_t status = hipGetDeviceProperties(prop, device);
    if (status == hipSuccess) prop->warpSize = __cass_warp_size;
    return status;
}

inline hipError_t __cass_hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attribute,
                                               int device) {
    const hipError_t status = hipDeviceGetAttribute(value, attribute, device);
    if (status == hipSuccess && attribute == hipDeviceAttributeWarpSize) *value = __cass_warp_size;
    return status;
}

namespace __cass_warp_detail {

constexpr bool kWave64 = __CASS_WAVE_SIZE == 64;

// The thread's lane in its hardware wavefront (0..63 on wave64).
__device__ __forceinline__ unsigned wave_lane() {
#if defined(__HIP__)
    return __lane_id();
#else
    // Translated HIP compiled for NVIDIA (CASS's HIP-on-CUDA layer): lanes follow the
    // block's linear thread order there, as on AMD.
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) &
           (__CASS_WAVE_SIZE - 1);
#endif
}

// Where the caller's logical warp starts in its wavefront: 0, or 32 on the upper half.
__device__ __forceinline__ unsigned half_base() { return kWave64 ? (wave_lane() & 32u) : 0u; }

// The caller's 32 bits of a wavefront-wide lane mask.
__device__ __forceinline__ unsigned own_bits(unsigned long long wave_mask) {
    return static_cast<unsigned>(kWave64 ? wave_mask >> half_base() : wave_mask);
}

}  // namespace __cass_warp_detail

// ---- lane numbering ----------------------------------------------------------------

__device__ __forceinline__ unsigned __cass_lane_id() {
    return __cass_warp_detail::kWave64 ? (__cass_warp_detail::wave_lane() & 31u)
                                       : __cass_warp_detail::wave_lane();
}

// CUDA numbers warps by the block's linear thread id, 32 threads each.
__device__ __forceinline__ unsigned __cass_warp_id() {
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) >> 5;
}

__device__ __forceinline__ unsigned __cass_lanemask_eq() { return 1u << __cass_lane_id(); }
__device__ __forceinline__ unsigned __cass_lanemask_lt() { return (1u << __cass_lane_id()) - 1u; }
// 2u << 31 wraps to 0, so lane 31 gets all 32 bits.
__device__ __forceinline__ unsigned __cass_lanemask_le() { return (2u << __cass_lane_id()) - 1u; }
__device__ __forceinline__ unsigned __cass_lanemask_gt() { return ~__cass_lanemask_le(); }
__device__ __forceinline__ unsigned __cass_lanemask_ge() { return ~__cass_lanemask_lt(); }

// ---- votes -------------------------------------------------------------------------

__device__ __forceinline__ unsigned __cass_ballot(int predicate) {
    return __cass_warp_detail::own_bits(__ballot(predicate));
}

__device__ __forceinline__ unsigned __cass_activemask() { return __cass_ballot(1); }

// CUDA sets only bits of lanes in the mask; a full literal mask folds away.
__device__ __forceinline__ unsigned __cass_ballot_sync(unsigned mask, int predicate) {
    return __cass_ballot(predicate) & mask;
}

__device__ __forceinline__ int __cass_any(int predicate) {
    if (!__cass_warp_detail::kWave64) return __any(predicate);
    return __cass_ballot(predicate) != 0u;
}

__device__ __forceinline__ int __cass_all(int predicate) {
    if (!__cass_warp_detail::kWave64) return __all(predicate);
    return __cass_ballot(!predicate) == 0u;
}

__device__ __forceinline__ int __cass_any_sync(unsigned mask, int predicate) {
    if (!__cass_warp_detail::kWave64 && mask == 0xffffffffu) return __any(predicate);
    return (__cass_ballot(predicate) & mask) != 0u;
}

__device__ __forceinline__ int __cass_all_sync(unsigned mask, int predicate) {
    if (!__cass_warp_detail::kWave64 && mask == 0xffffffffu) return __all(predicate);
    return (__cass_ballot(!predicate) & mask) == 0u;
}

// True when the predicate is the same in every active lane of the mask.
__device__ __forceinline__ int __cass_uni_sync(unsigned mask, int predicate) {
    const unsigned yes = __cass_ballot(predicate) & mask;
    return yes == 0u || yes == (__cass_activemask() & mask);
}

// ---- shuffles ----------------------------------------------------------------------
// HIP's shuffles take a width and keep CUDA's rules for it (a source outside the
// caller's segment of `width` lanes reads the caller's own value; __shfl's source is
// taken modulo the width), and segments of at most 32 lanes never straddle the two
// halves of a wavefront. So a logical-warp shuffle is HIP's with a width of 32 at most
// and __shfl's source reduced to the segment: on wave32 the plain operation.

// Each returns what HIP's own overload for the argument returns (blockIdx.x, a HIP
// coordinate object, is shuffled as the unsigned it converts to), as a plain HIP call would.
template <class T>
__device__ __forceinline__ auto __cass_shfl(T var, int src_lane, int width = 32)
    -> decltype(__shfl(var, src_lane, width)) {
    // CUDA reads lane src_lane % width; HIP adds the source to the segment's first lane.
    // (A literal source folds; a computed one costs one AND on wave32 too.)
    return __shfl(var, src_lane & (width - 1), width);
}

template <class T>
__device__ __forceinline__ auto __cass_shfl_up(T var, unsigned delta, int width = 32)
    -> decltype(__shfl_up(var, delta, width)) {
    return __shfl_up(var, delta, width);
}

template <class T>
__device__ __forceinline__ auto __cass_shfl_down(T var, unsigned delta, int width = 32)
    -> decltype(__shfl_down(var, delta, width)) {
    return __shfl_down(var, delta, width);
}

template <class T>
__device__ __forceinline__ auto __cass_shfl_xor(T var, int lane_mask, int width = 32)
    -> decltype(__shfl_xor(var, lane_mask, width)) {
    // CUDA reads only the mask's low 5 bits (shfl.bfly's b[4:0]): a mask of 32 returns the
    // caller's own value. HIP's bounds check is one-sided (sources below the segment pass),
    // so on a 64-lane wave the mask's bit 5 would reach the other logical warp.
    return __shfl_xor(var, lane_mask & 31, width);
}

// The lanes of a mask run in lockstep on AMD, so a shuffle's mask selects nothing.
template <class T>
__device__ __forceinline__ auto __cass_shfl_sync(unsigned mask, T var, int src_lane,
                                                 int width = 32)
    -> decltype(__cass_shfl(var, src_lane, width)) {
    (void)mask;
    return __cass_shfl(var, src_lane, width);
}

template <class T>
__device__ __forceinline__ auto __cass_shfl_up_sync(unsigned mask, T var, unsigned delta,
                                                    int width = 32)
    -> decltype(__cass_shfl_up(var, delta, width)) {
    (void)mask;
    return __cass_shfl_up(var, delta, width);
}

template <class T>
__device__ __forceinline__ auto __cass_shfl_down_sync(unsigned mask, T var, unsigned delta,
                                                      int width = 32)
    -> decltype(__cass_shfl_down(var, delta, width)) {
    (void)mask;
    return __cass_shfl_down(var, delta, width);
}

template <class T>
__device__ __forceinline__ auto __cass_shfl_xor_sync(unsigned mask, T var, int lane_mask,
                                                     int width = 32)
    -> decltype(__cass_shfl_xor(var, lane_mask, width)) {
    (void)mask;
    return __cass_shfl_xor(var, lane_mask, width);
}

// ---- synchronization ---------------------------------------------------------------

// A wavefront's lanes execute together; what __syncwarp adds is the ordering of their
// shared-memory accesses, which HIP's workgroup fence gives (HIP 5.2 has no __syncwarp).
__device__ __forceinline__ void __cass_syncwarp(unsigned mask = 0xffffffffu) {
#if !defined(__HIP__) && __CASS_WAVE_SIZE == 32
    __syncwarp(mask);  // the HIP-on-CUDA layer's 32-lane mode: CUDA's own, on CUDA's warps
#else
    (void)mask;
    __threadfence_block();
#endif
}

// ---- match -------------------------------------------------------------------------

namespace __cass_warp_detail {

// match compares bits: a float -0.0 and +0.0 differ, two identical NaNs match.
// (C++11: hipcc's default standard.)
template <unsigned Size>
struct bits;
template <>
struct bits<4> {
    typedef unsigned type;
};
template <>
struct bits<8> {
    typedef unsigned long long type;
};

template <class T>
__device__ __forceinline__ typename bits<sizeof(T)>::type bits_of(T v) {
    typename bits<sizeof(T)>::type u;
    __builtin_memcpy(&u, &v, sizeof(T));
    return u;
}

}  // namespace __cass_warp_detail

// The lanes of the mask that hold the caller's value: one ballot per distinct value.
template <class T>
__device__ inline unsigned __cass_match_any_sync(unsigned mask, T value) {
    const auto mine = __cass_warp_detail::bits_of(+value);  // + : blockIdx.x as unsigned
    unsigned left = __cass_activemask() & mask;
    unsigned same = 0u;
    while (left != 0u) {
        const int leader = __ffs(left) - 1;
        const unsigned hit = __cass_ballot(__cass_shfl(mine, leader) == mine) & left;
        if ((hit >> __cass_lane_id()) & 1u) same = hit;
        left &= ~hit;
    }
    return same;
}

// The mask when every lane of it holds the same value (*pred = 1), else 0 (*pred = 0).
template <class T>
__device__ inline unsigned __cass_match_all_sync(unsigned mask, T value, int* pred) {
    const auto mine = __cass_warp_detail::bits_of(+value);
    const unsigned active = __cass_activemask() & mask;
    const int leader = active != 0u ? __ffs(active) - 1 : static_cast<int>(__cass_lane_id());
    const unsigned hit = __cass_ballot(__cass_shfl(mine, leader) == mine) & active;
    const bool all = hit == active;
    *pred = all ? 1 : 0;
    return all ? mask : 0u;
}

// ---- reduce ------------------------------------------------------------------------

namespace __cass_warp_detail {

struct op_add {
    template <class T>
    __device__ T operator()(T a, T b) const { return a + b; }
};
struct op_min {
    template <class T>
    __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
struct op_max {
    template <class T>
    __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
struct op_and {
    template <class T>
    __device__ T operator()(T a, T b) const { return a & b; }
};
struct op_or {
    template <class T>
    __device__ T operator()(T a, T b) const { return a | b; }
};
struct op_xor {
    template <class T>
    __device__ T operator()(T a, T b) const { return a ^ b; }
};

// All 32 lanes in the mask and active: a butterfly; else one shuffle per member lane,
// in lane order (the members may be any lanes, the others may be inactive).
template <class T, class Op>
__device__ inline T reduce(unsigned mask, T value, Op op) {
    const unsigned members = __cass_activemask() & mask;
    if (members == 0xffffffffu) {
        for (int offset = 16; offset > 0; offset >>= 1)
            value = op(value, __cass_shfl_xor(value, offset));
        return value;
    }
    unsigned left = members;
    T acc = __cass_shfl(value, __ffs(left) - 1);
    left &= left - 1u;
    while (left != 0u) {
        acc = op(acc, __cass_shfl(value, __ffs(left) - 1));
        left &= left - 1u;
    }
    return acc;
}

}  // namespace __cass_warp_detail

#define __CASS_REDUCE_SYNC(name, op, T)                                        \
    __device__ inline T __cass_reduce_##name##_sync(unsigned mask, T value) { \
        return __cass_warp_detail::reduce(mask, value, __cass_warp_detail::op{}); \
    }
__CASS_REDUCE_SYNC(add, op_add, int)
__CASS_REDUCE_SYNC(add, op_add, unsigned)
__CASS_REDUCE_SYNC(min, op_min, int)
__CASS_REDUCE_SYNC(min, op_min, unsigned)
__CASS_REDUCE_SYNC(max, op_max, int)
__CASS_REDUCE_SYNC(max, op_max, unsigned)
__CASS_REDUCE_SYNC(and, op_and, unsigned)
__CASS_REDUCE_SYNC(or, op_or, unsigned)
__CASS_REDUCE_SYNC(xor, op_xor, unsigned)
#undef __CASS_REDUCE_SYNC
