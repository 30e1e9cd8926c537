// The hand-written part of CASS's HIP-on-CUDA layer.
//
// cass_build/hip_on_cuda.py generates the rest of the layer from the mapping tables,
// inverted: one `#define hipX cudaX` per HIP name. The names below are the few where a
// rename is not enough, because HIP and CUDA differ in a signature, a type or a struct
// field. The generator reads the `provides:` lines and leaves those names to this file.
//
// Included after the CUDA headers and before the generated names, so only CUDA
// spellings are used here.
//
// provides: hipDeviceptr_t hipMemPrefetchAsync hipMemAdvise
// provides: hipPointerAttribute_t hipPointerGetAttributes hipPointerAttribute_t::memoryType
// provides: __shfl __shfl_up __shfl_down __shfl_xor __ballot __any __all
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace cass_hip_on_cuda {

template <class T>
struct dependent_false : std::false_type {};

// One argument of a driver call, converted to the driver's parameter type. HIP names
// one set of handles for both APIs where CUDA has two: hipDeviceptr_t is a pointer
// (CUdeviceptr an integer), hipError_t the runtime's enum (CUresult the driver's),
// hipArray_t the runtime's handle (CUarray the driver's).
template <class P, class A>
inline P driver_arg(A&& a) {
    using D = typename std::decay<A>::type;
    if constexpr (std::is_convertible<A&&, P>::value) {
        return std::forward<A>(a);
    } else if constexpr (std::is_enum<D>::value && std::is_enum<P>::value) {
        return static_cast<P>(a);
    } else if constexpr (std::is_null_pointer<D>::value) {
        return P{};
    } else if constexpr (std::is_pointer<D>::value && std::is_integral<P>::value &&
                         sizeof(P) == sizeof(void*)) {
        return reinterpret_cast<P>(a);
    } else if constexpr (std::is_pointer<D>::value && std::is_pointer<P>::value) {
        return reinterpret_cast<P>(a);
    } else {
        static_assert(dependent_false<A>::value,
                      "HIP-on-CUDA: argument does not fit the driver API");
        return P{};
    }
}

// A driver API function called through HIP: arguments converted as above, and the
// CUresult returned as hipError_t (the runtime's cudaError_t; CUDA numbers both alike).
template <class... P>
struct driver_call {
    CUresult (*fn)(P...);

    template <class... A>
    cudaError_t operator()(A&&... a) const {
        static_assert(sizeof...(A) == sizeof...(P), "HIP-on-CUDA: wrong number of arguments");
        return static_cast<cudaError_t>(fn(driver_arg<P>(std::forward<A>(a))...));
    }
};

template <class... P>
inline driver_call<P...> driver(CUresult (*fn)(P...)) {
    return driver_call<P...>{fn};
}

// HIP's warp masks are 64-bit (wavefronts of 64 lanes); a CUDA warp has 32 lanes, so a
// 64-bit mask narrows to its low half. Plain 32-bit masks never match these overloads.
template <class M>
using wide_mask = typename std::enable_if<std::is_integral<M>::value && sizeof(M) == 8, int>::type;

inline cudaMemLocation location(int device) {
    cudaMemLocation where{};
    where.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    where.id = device == cudaCpuDeviceId ? 0 : device;
    return where;
}

}  // namespace cass_hip_on_cuda

// ---------------------------------------------------------------------------------------
// Handles and structs

// HIP's device pointer is a pointer (AMD's hipMalloc fills it); CUDA's is an integer.
typedef void* hipDeviceptr_t;

// HIP before 6.0 called cudaPointerAttributes::type `memoryType`; both spellings work.
struct hipPointerAttribute_t : cudaPointerAttributes {
    cudaMemoryType memoryType;
};

inline cudaError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
    cudaError_t status = cudaPointerGetAttributes(attributes, ptr);
    attributes->memoryType = attributes->type;
    return status;
}

// ---------------------------------------------------------------------------------------
// Unified memory: HIP takes a device number where CUDA 13 takes a cudaMemLocation.

inline cudaError_t hipMemPrefetchAsync(const void* ptr, size_t count, int device,
                                       cudaStream_t stream = 0) {
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(ptr, count, cass_hip_on_cuda::location(device), 0, stream);
#else
    return cudaMemPrefetchAsync(ptr, count, device, stream);
#endif
}

inline cudaError_t hipMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                                int device) {
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(ptr, count, advice, cass_hip_on_cuda::location(device));
#else
    return cudaMemAdvise(ptr, count, advice, device);
#endif
}

// ---------------------------------------------------------------------------------------
// Launches, symbols, dynamic shared memory and HIP's index spellings (no CUDA rows)

#define HIP_SYMBOL(symbol) symbol
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define hipLaunchKernelGGL(kernel, blocks, threads, sharedBytes, stream, ...) \
    kernel<<<(blocks), (threads), (sharedBytes), (stream)>>>(__VA_ARGS__)

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

// ---------------------------------------------------------------------------------------
// Warp intrinsics with HIP's 64-bit masks (HIP 7 `_sync` forms)

template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline T __shfl_sync(M mask, T var, int srcLane, int width = 32) {
    return __shfl_sync(static_cast<unsigned>(mask), var, srcLane, width);
}

template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline T __shfl_up_sync(M mask, T var, unsigned int delta, int width = 32) {
    return __shfl_up_sync(static_cast<unsigned>(mask), var, delta, width);
}

template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline T __shfl_down_sync(M mask, T var, unsigned int delta, int width = 32) {
    return __shfl_down_sync(static_cast<unsigned>(mask), var, delta, width);
}

template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline T __shfl_xor_sync(M mask, T var, int laneMask, int width = 32) {
    return __shfl_xor_sync(static_cast<unsigned>(mask), var, laneMask, width);
}

// HIP's ballot is 64 bits wide; the upper half stays zero on a 32-lane warp.
template <class M, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline unsigned long long __ballot_sync(M mask, int predicate) {
    return __ballot_sync(static_cast<unsigned>(mask), predicate);
}

template <class M, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline int __any_sync(M mask, int predicate) {
    return __any_sync(static_cast<unsigned>(mask), predicate);
}

template <class M, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline int __all_sync(M mask, int predicate) {
    return __all_sync(static_cast<unsigned>(mask), predicate);
}

template <class M, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline void __syncwarp(M mask) {
    __syncwarp(static_cast<unsigned>(mask));
}

template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline unsigned long long __match_any_sync(M mask, T value) {
    return __match_any_sync(static_cast<unsigned>(mask), value);
}

template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>
__device__ inline unsigned long long __match_all_sync(M mask, T value, int* predicate) {
    return __match_all_sync(static_cast<unsigned>(mask), value, predicate);
}

#define CASS_HIP_ON_CUDA_REDUCE(op)                                      \
    template <class M, class T, cass_hip_on_cuda::wide_mask<M> = 0>      \
    __device__ inline T __reduce_##op##_sync(M mask, T value) {          \
        return __reduce_##op##_sync(static_cast<unsigned>(mask), value); \
    }
CASS_HIP_ON_CUDA_REDUCE(add)
CASS_HIP_ON_CUDA_REDUCE(min)
CASS_HIP_ON_CUDA_REDUCE(max)
CASS_HIP_ON_CUDA_REDUCE(and)
CASS_HIP_ON_CUDA_REDUCE(or)
CASS_HIP_ON_CUDA_REDUCE(xor)
#undef CASS_HIP_ON_CUDA_REDUCE

// ---------------------------------------------------------------------------------------
// Maskless warp intrinsics (HIP before 7.0). HIP runs them over the lanes that are
// active, which is what __activemask() names; CUDA dropped them for sm_70 and newer.
//
// The shuffles: CUDA declares its own only for the host pass and older targets, so
// ours are declared where CUDA's are not. The votes: CUDA declares them everywhere
// (ptxas then rejects them), so a macro must take the name. `__ballot(` and `__all(`
// appear in no other header as calls, so function-like macros are safe; libcu++ has a
// struct `__any` with a constructor `__any(...)`, so `__any` is renamed as a whole word,
// which renames that struct consistently too.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
template <class T>
__device__ inline T __shfl(T var, int srcLane, int width = 32) {
    return __shfl_sync(__activemask(), var, srcLane, width);
}

template <class T>
__device__ inline T __shfl_up(T var, unsigned int delta, int width = 32) {
    return __shfl_up_sync(__activemask(), var, delta, width);
}

template <class T>
__device__ inline T __shfl_down(T var, unsigned int delta, int width = 32) {
    return __shfl_down_sync(__activemask(), var, delta, width);
}

template <class T>
__device__ inline T __shfl_xor(T var, int laneMask, int width = 32) {
    return __shfl_xor_sync(__activemask(), var, laneMask, width);
}
#endif

namespace cass_hip_on_cuda {
__device__ inline unsigned long long ballot(int predicate) {
    return __ballot_sync(__activemask(), predicate);
}

__device__ inline int all_lanes(int predicate) { return __all_sync(__activemask(), predicate); }
}  // namespace cass_hip_on_cuda

__device__ inline int cass_hip_on_cuda_any(int predicate) {
    return __any_sync(__activemask(), predicate);
}

#define __ballot(...) ::cass_hip_on_cuda::ballot(__VA_ARGS__)
#define __all(...) ::cass_hip_on_cuda::all_lanes(__VA_ARGS__)
#define __any cass_hip_on_cuda_any

// Inline PTX's %smid and %globaltimer as CASS translates them (docs/ptx.md): back to
// the PTX they came from. s_memrealtime counts a 100 MHz clock; globaltimer counts ns.
// provides: __smid __builtin_amdgcn_s_memrealtime
namespace cass_hip_on_cuda {
__device__ inline unsigned smid() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}
__device__ inline unsigned long long memrealtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t / 10;
}
}  // namespace cass_hip_on_cuda
#define __smid() ::cass_hip_on_cuda::smid()
#define __builtin_amdgcn_s_memrealtime() ::cass_hip_on_cuda::memrealtime()

// HIP's lane functions (amd_device_functions.h) on NVIDIA's 32-lane warps; wave64.h
// defines the 64-lane ones in its mode.
// provides: __lane_id __lanemask_lt __lanemask_gt __lanemask_eq
#if !(defined(CASS_WAVE) && CASS_WAVE == 64)
__device__ inline unsigned __lane_id() {
    unsigned r;
    asm("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}
__device__ inline unsigned long long __lanemask_lt() { return (1ull << __lane_id()) - 1ull; }
__device__ inline unsigned long long __lanemask_gt() {
    return 0xffffffffull & (~0ull << (__lane_id() + 1u));
}
__device__ inline unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }
#endif
