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
