// CASS runtime operations: CUDA runtime calls the targeted HIP runtime lacks.
//
// HIP 5.2's hip_runtime_api.h declares hipLaunchHostFunc, but its libamdhip64 does not
// export it (runtime.toml gates it to HIP 5.3). __cass_rt_hipLaunchHostFunc queues the
// host function with hipStreamAddCallback, which every supported HIP has: like a CUDA
// host function it runs once the stream's earlier work is done, and the stream's later
// work waits for it.
#pragma once

#include <hip/hip_runtime.h>

#include <new>

// The HIP-on-CUDA layer (cass_build/runcheck/hip_on_cuda.py) maps these names to CUDA's own
// as macros; with it the definitions here stand down.
#ifndef __cass_rt_hipLaunchHostFunc
struct __cass_rt_host_call {
    hipHostFn_t fn;
    void* data;
};

inline void __cass_rt_run_host_call(hipStream_t, hipError_t, void* call) {
    __cass_rt_host_call* c = static_cast<__cass_rt_host_call*>(call);
    c->fn(c->data);
    delete c;
}

inline hipError_t __cass_rt_hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* data) {
    __cass_rt_host_call* c = new (std::nothrow) __cass_rt_host_call{fn, data};
    if (c == nullptr) return hipErrorOutOfMemory;
    const hipError_t status = hipStreamAddCallback(stream, __cass_rt_run_host_call, c, 0);
    if (status != hipSuccess) delete c;
    return status;
}
#endif

// Device limits. HIP 5.2 has hipDeviceGetLimit, which reads the malloc heap limit (its
// header documents no other), and neither hipDeviceSetLimit nor hipLimitStackSize: both
// came with HIP 5.3 (runtime.toml). For HIP 5.2 the three names below stand in for them,
// and say so at run time: no limit can be set (hipErrorUnsupportedLimit, as HIP itself
// returns for a limit it lacks), and the stack size cannot be read; hipDeviceGetLimit
// answers for the others. With HIP 5.3 or newer they are HIP's own, so a translation made
// for HIP 5.2 sets and reads limits as the CUDA program did when built with a newer HIP.
#ifndef __cass_rt_hipLimitStackSize
#if HIP_VERSION_MAJOR > 5 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR >= 3)
constexpr hipLimit_t __cass_rt_hipLimitStackSize = hipLimitStackSize;
#else
// HIP 5.3's value of hipLimitStackSize, which HIP 5.2's enum leaves unused.
constexpr hipLimit_t __cass_rt_hipLimitStackSize = static_cast<hipLimit_t>(0);
#endif
#endif

#ifndef __cass_rt_hipDeviceSetLimit
inline hipError_t __cass_rt_hipDeviceSetLimit(hipLimit_t limit, size_t value) {
#if HIP_VERSION_MAJOR > 5 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR >= 3)
    return hipDeviceSetLimit(limit, value);
#else
    (void)limit;
    (void)value;
    return hipErrorUnsupportedLimit;
#endif
}
#endif

#ifndef __cass_rt_hipDeviceGetLimit
inline hipError_t __cass_rt_hipDeviceGetLimit(size_t* value, hipLimit_t limit) {
#if !(HIP_VERSION_MAJOR > 5 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR >= 3))
    if (value == nullptr) return hipErrorInvalidValue;
    if (limit == __cass_rt_hipLimitStackSize) return hipErrorUnsupportedLimit;
#endif
    return hipDeviceGetLimit(value, limit);
}
#endif

// Memory types. HIP 6.0 added hipMemoryTypeUnregistered (CUDA's type for pageable host
// memory); HIP 5's hipMemoryType uses each of its values (0 to 3), so the stand-in is an
// int that equals none of them. Either way HIP's hipPointerGetAttributes returns
// hipErrorInvalidValue for a pointer it does not know, as CUDA did before 11.0.
#ifndef __cass_rt_hipMemoryTypeUnregistered
#if HIP_VERSION_MAJOR >= 6
constexpr hipMemoryType __cass_rt_hipMemoryTypeUnregistered = hipMemoryTypeUnregistered;
#else
constexpr int __cass_rt_hipMemoryTypeUnregistered = -1;
#endif
#endif
