"""A deterministic generator of synthetic but realistic CUDA source trees.

Every file is assembled from hand-written templates (kernels, device helpers,
host drivers, library calls, comments) with random names, sizes and types, so
the corpus looks like a real CUDA project to a lexer: threadIdx/blockIdx
indexing, shared memory, barriers, warp shuffles with full masks, atomics, math
functions, streams and events, cuBLAS/cuRAND, templates, ``<<<...>>>`` launches,
error-check macros, comments and strings mentioning CUDA APIs, ``#include``
lines and ``__CUDA_ARCH__`` conditionals. Nothing is copied from real programs.

The output depends only on the seed and the size: file ``i`` is drawn from
``random.Random(f"{seed}:{i}")``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GENERATOR_VERSION", "CorpusInfo", "generate_corpus", "generate_file", "main"]


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: Bump when the templates change, so a cached corpus is regenerated.
GENERATOR_VERSION = 1

_VERBS = _words(
    "compute reduce scan apply update fused batched tiled gather scatter normalize softmax "
    "layernorm conv pool transpose histogram prefix sort merge stencil nbody matmul axpy dot "
    "accumulate project relax advect integrate quantize dequantize pack unpack"
)
_NOUNS = _words(
    "values weights grads particles cells rows cols tiles bins keys edges nodes pixels voxels "
    "samples features tokens logits forces states coeffs residuals fluxes photons spins "
    "queries scores"
)
_SUFFIXES = ("", "", "", "_v2", "_fast", "_impl", "_f32", "_f16", "_tc", "_naive", "_opt")
_VARS = _words(
    "acc sum val tmp x y z w a b c v s r p q alpha beta gamma scale bias eps mu sigma theta "
    "phi delta"
)
_UNARY_MATH = _words(
    "expf logf sinf cosf tanhf sqrtf rsqrtf fabsf erff log1pf expm1f cbrtf __expf __logf "
    "__sinf __cosf ceilf floorf truncf roundf exp2f log2f __saturatef atanf asinhf"
)
_BINARY_MATH = _words(
    "powf fminf fmaxf atan2f fmodf hypotf __fdividef __powf copysignf __fmul_rn __fadd_rz fdimf"
)
_DOUBLE_MATH = ("exp", "log", "sin", "cos", "sqrt", "rsqrt", "fabs", "tanh", "erf", "pow")
_ATOMICS = ("atomicAdd", "atomicAdd", "atomicMax", "atomicMin", "atomicOr", "atomicExch")
_HEADERS_SYS = _words(
    "<cuda_runtime.h> <cuda.h> <cuda_fp16.h> <cuda_bf16.h> <cublas_v2.h> <curand.h> "
    "<curand_kernel.h> <cooperative_groups.h> <cuda_runtime_api.h> "
    "<device_launch_parameters.h> <math_constants.h> <cub/cub.cuh> <thrust/device_vector.h> "
    "<cooperative_groups/reduce.h>"
)
_HEADERS_STD = _words(
    "<cstdio> <cstdlib> <cstdint> <vector> <algorithm> <cmath> <iostream> <memory> <string> "
    "<chrono> <cassert> <numeric>"
)
_API_WORDS = _words(
    "cudaMalloc cudaMemcpy cudaMemcpyAsync cudaFree cudaStreamSynchronize "
    "cudaDeviceSynchronize __syncthreads __shfl_down_sync cudaEventRecord cublasSgemm "
    "curand_uniform atomicAdd cudaGetLastError __ldg"
)
_PROSE = (
    "Each thread handles one element; the grid-stride loop covers inputs larger than the grid.",
    "Shared memory is padded by one column to avoid bank conflicts on the transpose.",
    "The warp-level reduction uses shuffles so no shared memory is needed in the last stage.",
    "Launch with a block size that is a multiple of the warp size.",
    "This path is only taken on devices with compute capability 8.0 or newer.",
    "Results are accumulated in double precision and rounded once at the end.",
    "The stream is synchronized by the caller; do not free the buffers before that.",
    "Keep this in sync with the host-side reference implementation in the tests.",
    "TODO: fuse this with the preceding kernel once the tiling is settled.",
    "Note: the input must be padded to a multiple of TILE in both dimensions.",
    "Timing uses events recorded on the same stream as the kernels.",
    "Atomics on shared memory are much cheaper than global atomics here.",
)


def _name(rng: random.Random, kind: str = "") -> str:
    base = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}"
    return f"{base}{kind}{rng.choice(_SUFFIXES)}"


def _camel(rng: random.Random) -> str:
    return rng.choice(_VERBS).capitalize() + rng.choice(_NOUNS).capitalize()


def _comment(rng: random.Random, what: str) -> str:
    lines = [f"/**\n * {what}"]
    for _ in range(rng.randint(1, 5)):
        lines.append(f" * {rng.choice(_PROSE)}")
    if rng.random() < 0.5:
        lines.append(f" * See also {rng.choice(_API_WORDS)}() and {rng.choice(_API_WORDS)}().")
    if rng.random() < 0.4:
        lines.append(f" * @param n number of {rng.choice(_NOUNS)}")
    lines.append(" */\n")
    return "\n".join(lines)


def _line_comment(rng: random.Random) -> str:
    api = rng.choice(_API_WORDS)
    return rng.choice(
        (
            f"// {rng.choice(_PROSE)}\n",
            f"    // uses {api} under the hood\n",
            f"    // NOTE: {api} is asynchronous with respect to the host\n",
            "    // --------------------------------------------------------------\n",
        )
    )


def _header(rng: random.Random, is_header: bool, guard: str) -> str:
    out = [
        "// SPDX-License-Identifier: Apache-2.0\n",
        f"// Copyright {rng.randint(2015, 2025)} The {_camel(rng)} Authors.\n",
        f"// Generated benchmark source: {rng.choice(_PROSE)}\n\n",
    ]
    if is_header:
        once = rng.random() < 0.5
        out.append("#pragma once\n" if once else f"#ifndef {guard}\n#define {guard}\n")
    includes = rng.sample(_HEADERS_SYS, rng.randint(2, 6)) + rng.sample(
        _HEADERS_STD, rng.randint(2, 5)
    )
    out.extend(f"#include {h}\n" for h in includes)
    for _ in range(rng.randint(0, 3)):
        out.append(f'#include "{rng.choice(_NOUNS)}/{_name(rng)}.cuh"\n')
    out.append("\n")
    return "".join(out)


def _macros(rng: random.Random) -> str:
    out = [
        "#define CUDA_CHECK(call)                                                        \\\n"
        "    do {                                                                        \\\n"
        "        cudaError_t err__ = (call);                                             \\\n"
        "        if (err__ != cudaSuccess) {                                             \\\n"
        '            fprintf(stderr, "CUDA error %s (%d) at %s:%d: %s\\n",                \\\n'
        "                    cudaGetErrorName(err__), (int)err__, __FILE__, __LINE__,    \\\n"
        "                    cudaGetErrorString(err__));                                 \\\n"
        "            exit(EXIT_FAILURE);                                                 \\\n"
        "        }                                                                       \\\n"
        "    } while (0)\n\n",
    ]
    if rng.random() < 0.5:
        out.append(
            "#define CUBLAS_CHECK(call)                                              \\\n"
            "    do {                                                                \\\n"
            "        cublasStatus_t st__ = (call);                                   \\\n"
            "        if (st__ != CUBLAS_STATUS_SUCCESS) {                            \\\n"
            '            fprintf(stderr, "cuBLAS error %d at %s:%d\\n", (int)st__,    \\\n'
            "                    __FILE__, __LINE__);                                \\\n"
            "            exit(EXIT_FAILURE);                                         \\\n"
            "        }                                                               \\\n"
            "    } while (0)\n\n"
        )
    if rng.random() < 0.4:
        out.append(
            "#define CURAND_CHECK(call)                                              \\\n"
            "    do {                                                                \\\n"
            "        if ((call) != CURAND_STATUS_SUCCESS) {                          \\\n"
            '            fprintf(stderr, "cuRAND failure at %s:%d\\n", __FILE__,      \\\n'
            "                    __LINE__);                                          \\\n"
            "            exit(EXIT_FAILURE);                                         \\\n"
            "        }                                                               \\\n"
            "    } while (0)\n\n"
        )
    out.append(f"#define FULL_MASK 0xffffffff\n#define BLOCK_SIZE {rng.choice((128, 256, 512))}\n")
    if rng.random() < 0.5:
        out.append("#define WARP_SIZE 32\n")
    out.append(f"#define TILE {rng.choice((8, 16, 32))}\n")
    out.append("#define DIV_UP(a, b) (((a) + (b) - 1) / (b))\n\n")
    if rng.random() < 0.6:
        out.append(
            "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n"
            "#define HAS_ASYNC_COPY 1\n"
            "#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n"
            "#define HAS_ASYNC_COPY 0\n"
            "#else\n"
            "#define HAS_ASYNC_COPY 0\n"
            "#endif\n\n"
        )
    if rng.random() < 0.3:
        out.append(
            "#if CUDART_VERSION >= 11000\n#define HAVE_CUDA11 1\n#else\n#define HAVE_CUDA11 0\n"
            "#endif\n\n"
        )
    return "".join(out)


def _expr(rng: random.Random, var: str, depth: int = 2) -> str:
    r = rng.random()
    if depth == 0 or r < 0.25:
        return rng.choice((var, f"{rng.uniform(0.1, 9.9):.3f}f", "scale", "bias", f"in[{var}i]"))
    if r < 0.55:
        return f"{rng.choice(_UNARY_MATH)}({_expr(rng, var, depth - 1)})"
    if r < 0.75:
        return f"{rng.choice(_BINARY_MATH)}({_expr(rng, var, depth - 1)}, {_expr(rng, var, 0)})"
    op = rng.choice(("+", "-", "*", "/"))
    return f"({_expr(rng, var, depth - 1)} {op} {_expr(rng, var, depth - 1)})"


def _k_elementwise(rng: random.Random) -> str:
    name = _name(rng, "_kernel")
    v = rng.choice(_VARS)
    body = [f"        float {v} = in[i];\n"]
    for _ in range(rng.randint(2, 6)):
        body.append(f"        {v} = {_expr(rng, v).replace(f'in[{v}i]', 'in[i]')};\n")
    return (
        _comment(rng, f"Elementwise {name}: out[i] = f(in[i]).")
        + f"__global__ void {name}(const float* __restrict__ in, float* __restrict__ out,\n"
        f"{' ' * (16 + len(name))}float scale, float bias, int n)\n{{\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
        "         i += blockDim.x * gridDim.x) {\n"
        + "".join(body)
        + f"        out[i] = {v} * scale + bias;\n    }}\n}}\n\n"
    )


def _k_reduce(rng: random.Random) -> str:
    name = _name(rng, "_reduce")
    t = rng.choice(("float", "double", "int"))
    mask = rng.choice(("0xffffffff", "FULL_MASK", "0xffffffffu", "__activemask()"))
    loop = rng.choice(
        (
            "for (int offset = 16; offset > 0; offset /= 2)",
            "for (int offset = warpSize / 2; offset > 0; offset >>= 1)",
            "#pragma unroll\n    for (int offset = 16; offset > 0; offset >>= 1)",
        )
    )
    shfl = rng.choice(("__shfl_down_sync", "__shfl_xor_sync"))
    return (
        _comment(rng, f"Block reduction {name} with warp shuffles.")
        + f"__device__ __forceinline__ {t} warp_reduce_{name}({t} v)\n{{\n"
        f"    {loop}\n        v += {shfl}({mask}, v, offset);\n    return v;\n}}\n\n"
        f"template <int BLOCK>\n"
        f"__global__ void {name}(const {t}* __restrict__ in, {t}* out, int n)\n"
        f"{{\n    __shared__ {t} warp_sums[BLOCK / 32];\n"
        "    const int tid = threadIdx.x;\n"
        "    const int lane = threadIdx.x & 31;\n"
        "    const int warp = threadIdx.x / 32;\n"
        f"    {t} sum = 0;\n"
        "    for (int i = blockIdx.x * BLOCK + tid; i < n; i += BLOCK * gridDim.x) {\n"
        + ("        sum += __ldg(&in[i]);\n" if rng.random() < 0.5 else "        sum += in[i];\n")
        + f"    }}\n    sum = warp_reduce_{name}(sum);\n"
        "    if (lane == 0) warp_sums[warp] = sum;\n"
        "    __syncthreads();\n"
        "    if (warp == 0) {\n"
        f"        sum = (tid < BLOCK / 32) ? warp_sums[lane] : ({t})0;\n"
        f"        sum = warp_reduce_{name}(sum);\n"
        "        if (tid == 0) atomicAdd(out, sum);\n    }\n}\n\n"
    )


def _k_matmul(rng: random.Random) -> str:
    name = _name(rng, "_gemm")
    return (
        _comment(rng, f"Tiled matrix multiply {name}: C = alpha * A * B + beta * C.")
        + "template <typename T, int TILE_DIM>\n"
        f"__global__ void {name}(const T* A, const T* B, T* C, int M, int N, int K,\n"
        f"{' ' * (16 + len(name))}T alpha, T beta)\n{{\n"
        "    __shared__ T As[TILE_DIM][TILE_DIM + 1];\n"
        "    __shared__ T Bs[TILE_DIM][TILE_DIM + 1];\n"
        "    const int row = blockIdx.y * TILE_DIM + threadIdx.y;\n"
        "    const int col = blockIdx.x * TILE_DIM + threadIdx.x;\n"
        "    T acc = T(0);\n"
        "    for (int t = 0; t < (K + TILE_DIM - 1) / TILE_DIM; ++t) {\n"
        "        const int ak = t * TILE_DIM + threadIdx.x;\n"
        "        const int bk = t * TILE_DIM + threadIdx.y;\n"
        "        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : T(0);\n"
        "        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : T(0);\n"
        "        __syncthreads();\n"
        "#pragma unroll\n"
        "        for (int k = 0; k < TILE_DIM; ++k) {\n"
        "            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];\n"
        "        }\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (row < M && col < N) {\n"
        "        C[row * N + col] = alpha * acc + beta * C[row * N + col];\n"
        "    }\n}\n\n"
    )


def _k_histogram(rng: random.Random) -> str:
    name = _name(rng, "_hist")
    bins = rng.choice((64, 128, 256, 1024))
    atomic = rng.choice(_ATOMICS)
    return (
        _comment(rng, f"Shared-memory histogram {name} with {bins} bins.")
        + f"__global__ void {name}(const unsigned int* data, unsigned int* hist, size_t n)\n{{\n"
        f"    __shared__ unsigned int local[{bins}];\n"
        f"    for (int b = threadIdx.x; b < {bins}; b += blockDim.x) local[b] = 0;\n"
        "    __syncthreads();\n"
        "    size_t stride = (size_t)blockDim.x * gridDim.x;\n"
        "    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {\n"
        f"        atomicAdd(&local[data[i] % {bins}u], 1u);\n"
        "    }\n    __syncthreads();\n"
        f"    for (int b = threadIdx.x; b < {bins}; b += blockDim.x) {{\n"
        f"        if (local[b]) {atomic}(&hist[b], local[b]);\n"
        "    }\n}\n\n"
        f"__device__ float atomic_max_float_{name}(float* addr, float value)\n{{\n"
        "    int* p = reinterpret_cast<int*>(addr);\n"
        "    int old = *p, assumed;\n"
        "    do {\n"
        "        assumed = old;\n"
        "        old = atomicCAS(p, assumed,\n"
        "                        __float_as_int(fmaxf(value, __int_as_float(assumed))));\n"
        "    } while (assumed != old);\n"
        "    return __int_as_float(old);\n}\n\n"
    )


def _k_scan(rng: random.Random) -> str:
    name = _name(rng, "_scan")
    return (
        _comment(rng, f"Warp-synchronous inclusive scan {name}.")
        + f"__global__ void {name}(const int* in, int* out, int* flags, int n)\n{{\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const int lane = threadIdx.x % 32;\n"
        "    int v = (i < n) ? in[i] : 0;\n"
        "    for (int d = 1; d < 32; d <<= 1) {\n"
        "        int up = __shfl_up_sync(0xffffffff, v, d);\n"
        "        if (lane >= d) v += up;\n"
        "    }\n"
        "    unsigned int ballot = __ballot_sync(0xffffffff, v > 0);\n"
        "    if (lane == 0) flags[i / 32] = __popc(ballot);\n"
        "    int leader = __ffs(ballot) - 1;\n"
        "    v = __shfl_sync(0xffffffff, v, leader < 0 ? 0 : leader);\n"
        "    if (__any_sync(0xffffffff, v < 0)) v = 0;\n"
        "    if (i < n) out[i] = v;\n}\n\n"
    )


def _k_half(rng: random.Random) -> str:
    name = _name(rng, "_h2")
    return (
        _comment(rng, f"Half-precision {name} on __half2 pairs.")
        + f"__global__ void {name}(const __half2* x, __half2* y, float a, int n2)\n{{\n"
        "    const __half2 ha = __float2half2_rn(a);\n"
        "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2;\n"
        "         i += blockDim.x * gridDim.x) {\n"
        "        __half2 v = __hfma2(ha, x[i], y[i]);\n"
        "        float lo = __low2float(v);\n"
        "        float hi = __high2float(v);\n"
        f"        lo = {rng.choice(_UNARY_MATH)}(lo);\n"
        "        y[i] = __floats2half2_rn(lo, hi);\n"
        "    }\n}\n\n"
        f"__device__ __half scale_half_{name}(__half h, float s)\n{{\n"
        "    return __hmul(h, __float2half(s));\n}\n\n"
    )


def _k_rand(rng: random.Random) -> str:
    name = _name(rng, "_rng")
    return (
        _comment(rng, f"Monte Carlo sampler {name} using cuRAND device API.")
        + f"__global__ void setup_{name}(curandState* states, unsigned long long seed)\n{{\n"
        "    int id = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    curand_init(seed, id, 0, &states[id]);\n}\n\n"
        f"__global__ void {name}(curandState* states, float* out, int per_thread)\n{{\n"
        "    int id = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    curandState local = states[id];\n"
        "    float acc = 0.0f;\n"
        "    for (int k = 0; k < per_thread; ++k) {\n"
        "        float x = curand_uniform(&local);\n"
        "        float y = curand_normal(&local);\n"
        f"        acc += {rng.choice(_UNARY_MATH)}(x) * y;\n"
        "    }\n"
        "    states[id] = local;\n"
        "    out[id] = acc / per_thread;\n}\n\n"
    )


def _k_coop(rng: random.Random) -> str:
    name = _name(rng, "_cg")
    return (
        _comment(rng, f"Cooperative-groups version of {name}.")
        + f"__global__ void {name}(const float* in, float* out, int n)\n{{\n"
        "    namespace cg = cooperative_groups;\n"
        "    cg::thread_block block = cg::this_thread_block();\n"
        "    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);\n"
        "    int i = block.group_index().x * block.size() + block.thread_rank();\n"
        "    float v = i < n ? in[i] : 0.0f;\n"
        "    for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);\n"
        "    block.sync();\n"
        "    if (tile.thread_rank() == 0) atomicAdd(out, v);\n}\n\n"
    )


def _k_stencil(rng: random.Random) -> str:
    name = _name(rng, "_stencil")
    r = rng.randint(1, 4)
    return (
        _comment(rng, f"{2 * r + 1}-point stencil {name} with dynamic shared memory.")
        + f"__constant__ float c_{name}[{2 * r + 1}];\n\n"
        f"__global__ void {name}(const float* __restrict__ in,\n"
        f"{' ' * (16 + len(name))}float* __restrict__ out, int n)\n{{\n"
        "    extern __shared__ float smem[];\n"
        "    const int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
        f"    const int l = threadIdx.x + {r};\n"
        "    smem[l] = g < n ? in[g] : 0.0f;\n"
        f"    if (threadIdx.x < {r}) {{\n"
        f"        smem[threadIdx.x] = g >= {r} ? in[g - {r}] : 0.0f;\n"
        f"        smem[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.0f;\n"
        "    }\n    __syncthreads();\n"
        "    float acc = 0.0f;\n"
        "#pragma unroll\n"
        f"    for (int k = -{r}; k <= {r}; ++k) acc = fmaf(c_{name}[k + {r}], smem[l + k], acc);\n"
        "    if (g < n) out[g] = acc;\n}\n\n"
    )


def _k_arch(rng: random.Random) -> str:
    name = _name(rng, "_load")
    asm = ""
    if rng.random() < 0.08:
        asm = (
            "    unsigned int laneid;\n"
            '    asm volatile("mov.u32 %0, %%laneid;" : "=r"(laneid));\n'
            "    (void)laneid;\n"
        )
    return (
        f"__device__ __forceinline__ float {name}(const float* p)\n{{\n"
        + asm
        + "#if __CUDA_ARCH__ >= 350\n"
        "    return __ldg(p);\n"
        "#else\n"
        "    return *p;\n"
        "#endif\n}\n\n"
        "#ifdef __CUDACC__\n"
        f"__host__ __device__ inline int {name}_clamp(int v, int lo, int hi)\n{{\n"
        "    return min(max(v, lo), hi);\n}\n"
        "#endif\n\n"
    )


def _k_double(rng: random.Random) -> str:
    name = _name(rng, "_f64")
    f = rng.sample(_DOUBLE_MATH, 3)
    return (
        f"__global__ void {name}(const double* a, double* b, double k, long long n)\n{{\n"
        "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        f"    double t = {f[0]}(a[i]) * k;\n"
        f"    b[i] = {f[1]}(t) + {f[2]}(fabs(t) + 1.0);\n"
        "    atomicAdd(&b[0], 0.0);\n}\n\n"
    )


def _host_driver(rng: random.Random, kernels: list[str]) -> str:
    fn = f"run_{_name(rng)}"
    t = rng.choice(("float", "float", "double"))
    n = rng.choice(("1 << 20", "1 << 22", "n", "4096 * 1024", "count"))
    kname = rng.choice(kernels) if kernels else "kernel"
    streams = rng.randint(1, 4)
    out = [
        _comment(rng, f"Host driver {fn}: allocate, copy, launch, time and verify."),
        f"int {fn}(int n, int count, int device)\n{{\n",
        "    CUDA_CHECK(cudaSetDevice(device));\n",
        "    cudaDeviceProp prop;\n",
        "    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));\n",
        '    printf("Running on %s (%d SMs)\\n", prop.name, prop.multiProcessorCount);\n',
        f"    const size_t elems = (size_t)({n});\n",
        f"    const size_t bytes = elems * sizeof({t});\n",
        f"    std::vector<{t}> h_in(elems), h_out(elems);\n",
        f"    for (size_t i = 0; i < elems; ++i) h_in[i] = static_cast<{t}>(i % 97) * 0.5;\n",
        f"    {t} *d_in = nullptr, *d_out = nullptr, *h_pinned = nullptr;\n",
        "    CUDA_CHECK(cudaMalloc((void**)&d_in, bytes));\n",
        "    CUDA_CHECK(cudaMalloc(&d_out, bytes));\n",
        "    CUDA_CHECK(cudaMallocHost(&h_pinned, bytes));\n",
        "    CUDA_CHECK(cudaMemset(d_out, 0, bytes));\n",
        f"    cudaStream_t streams[{streams}];\n",
        f"    for (int s = 0; s < {streams}; ++s)\n",
        "        CUDA_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));\n",
        "    cudaEvent_t start, stop;\n",
        "    CUDA_CHECK(cudaEventCreate(&start));\n",
        "    CUDA_CHECK(cudaEventCreate(&stop));\n",
        "    CUDA_CHECK(cudaEventRecord(start, streams[0]));\n",
        f"    const size_t chunk = DIV_UP(elems, {streams});\n",
        f"    for (int s = 0; s < {streams}; ++s) {{\n",
        "        const size_t off = s * chunk;\n",
        "        const size_t len = off + chunk > elems ? elems - off : chunk;\n",
        f"        CUDA_CHECK(cudaMemcpyAsync(d_in + off, h_in.data() + off, len * sizeof({t}),\n",
        "                                   cudaMemcpyHostToDevice, streams[s]));\n",
        "        dim3 block(BLOCK_SIZE);\n",
        "        dim3 grid(DIV_UP(len, BLOCK_SIZE));\n",
    ]
    launch = rng.choice(
        (
            f"        {kname}<<<grid, block, 0, streams[s]>>>(d_in + off, d_out + off, 1.0f,\n"
            "            0.0f, (int)len);\n",
            f"        {kname}<<<grid, block>>>(d_in + off, d_out + off, (int)len);\n",
            f"        {kname}<256><<<grid, block, 256 * sizeof({t}), streams[s]>>>(\n"
            "            d_in + off, d_out, (int)len);\n",
        )
    )
    out += [
        launch,
        "        CUDA_CHECK(cudaGetLastError());\n",
        f"        CUDA_CHECK(cudaMemcpyAsync(h_out.data() + off, d_out + off, len * sizeof({t}),\n",
        "                                   cudaMemcpyDeviceToHost, streams[s]));\n",
        "    }\n",
        "    CUDA_CHECK(cudaEventRecord(stop, streams[0]));\n",
        f"    for (int s = 0; s < {streams}; ++s) CUDA_CHECK(cudaStreamSynchronize(streams[s]));\n",
        "    CUDA_CHECK(cudaEventSynchronize(stop));\n",
        "    float ms = 0.0f;\n",
        "    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));\n",
        f'    printf("{fn}: %.3f ms, %.2f GB/s\\n", ms, 2.0 * bytes / ms / 1e6);\n',
        "    CUDA_CHECK(cudaMemcpy(h_pinned, d_out, bytes, cudaMemcpyDeviceToHost));\n",
        "    CUDA_CHECK(cudaDeviceSynchronize());\n",
        "    cudaError_t err = cudaGetLastError();\n",
        "    if (err != cudaSuccess) {\n",
        '        fprintf(stderr, "kernel failed: %s\\n", cudaGetErrorString(err));\n',
        "        return 1;\n    }\n",
        f"    for (int s = 0; s < {streams}; ++s) CUDA_CHECK(cudaStreamDestroy(streams[s]));\n",
        "    CUDA_CHECK(cudaEventDestroy(start));\n",
        "    CUDA_CHECK(cudaEventDestroy(stop));\n",
        "    CUDA_CHECK(cudaFreeHost(h_pinned));\n",
        "    CUDA_CHECK(cudaFree(d_in));\n",
        "    CUDA_CHECK(cudaFree(d_out));\n",
        "    return 0;\n}\n\n",
    ]
    return "".join(out)


def _host_cublas(rng: random.Random) -> str:
    fn = f"gemm_{_name(rng)}"
    op_a = rng.choice(("CUBLAS_OP_N", "CUBLAS_OP_T"))
    op_b = rng.choice(("CUBLAS_OP_N", "CUBLAS_OP_T"))
    t, gemm = rng.choice((("float", "cublasSgemm"), ("double", "cublasDgemm")))
    p = "S" if t == "float" else "D"
    return (
        _comment(rng, f"{fn}: C = A * B with cuBLAS ({gemm}).")
        + f"void {fn}(cudaStream_t stream, const {t}* dA, const {t}* dB, {t}* dC,\n"
        f"{' ' * (6 + len(fn))}int m, int n, int k)\n"
        "{\n"
        "    cublasHandle_t handle;\n"
        "    CUBLAS_CHECK(cublasCreate(&handle));\n"
        "    CUBLAS_CHECK(cublasSetStream(handle, stream));\n"
        "    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));\n"
        f"    const {t} alpha = 1, beta = 0;\n"
        f"    CUBLAS_CHECK({gemm}(handle, {op_a}, {op_b}, m, n, k, &alpha, dA, m, dB, k,\n"
        "                        &beta, dC, m));\n"
        f"    {t} nrm = 0;\n"
        f"    CUBLAS_CHECK(cublas{p}nrm2(handle, m * n, dC, 1, &nrm));\n"
        f"    CUBLAS_CHECK(cublas{p}axpy(handle, m * n, &alpha, dA, 1, dC, 1));\n"
        "    CUBLAS_CHECK(cublasDestroy(handle));\n"
        '    // "cublasSgemm failed" is reported by CUBLAS_CHECK above\n'
        "}\n\n"
    )


_CURAND_RNGS = (
    "CURAND_RNG_PSEUDO_DEFAULT",
    "CURAND_RNG_PSEUDO_PHILOX4_32_10",
    "CURAND_RNG_QUASI_SOBOL32",
)
_CURAND_GENERATE = (
    "curandGenerateUniform(gen, d_buf, n)",
    "curandGenerateNormal(gen, d_buf, n, 0.0f, 1.0f)",
)


def _host_curand(rng: random.Random) -> str:
    fn = f"fill_{_name(rng)}"
    return (
        f"void {fn}(float* d_buf, size_t n, unsigned long long seed, cudaStream_t stream)\n{{\n"
        "    curandGenerator_t gen;\n"
        f"    CURAND_CHECK(curandCreateGenerator(&gen, {rng.choice(_CURAND_RNGS)}));\n"
        "    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed));\n"
        "    CURAND_CHECK(curandSetStream(gen, stream));\n"
        f"    CURAND_CHECK({rng.choice(_CURAND_GENERATE)});\n"
        "    CURAND_CHECK(curandDestroyGenerator(gen));\n}\n\n"
    )


def _host_misc(rng: random.Random) -> str:
    name = _name(rng)
    return (
        f"static void upload_coeffs_{name}(const float* host, size_t count)\n{{\n"
        "    CUDA_CHECK(cudaMemcpyToSymbol(c_coeffs, host, count * sizeof(float)));\n"
        "    float* managed = nullptr;\n"
        "    CUDA_CHECK(cudaMallocManaged(&managed, count * sizeof(float)));\n"
        "    int device = 0;\n"
        "    CUDA_CHECK(cudaGetDevice(&device));\n"
        "    CUDA_CHECK(cudaMemPrefetchAsync(managed, count * sizeof(float), device, 0));\n"
        "    CUDA_CHECK(cudaDeviceSynchronize());\n"
        "    CUDA_CHECK(cudaFree(managed));\n"
        '    const char* msg = "uploaded with cudaMemcpyToSymbol; see cudaMemcpyFromSymbol";\n'
        "    (void)msg;\n}\n\n"
    )


def _class_template(rng: random.Random) -> str:
    cls = _camel(rng) + "Buffer"
    return (
        _comment(rng, f"RAII owner of a device allocation ({cls}).") + "template <typename T>\n"
        f"class {cls} {{\npublic:\n"
        f"    explicit {cls}(size_t n) : n_(n) {{\n"
        "        CUDA_CHECK(cudaMalloc(&ptr_, n * sizeof(T)));\n    }\n"
        f"    ~{cls}() {{ if (ptr_) cudaFree(ptr_); }}\n"
        f"    {cls}(const {cls}&) = delete;\n"
        f"    {cls}& operator=(const {cls}&) = delete;\n"
        "    void upload(const T* src, cudaStream_t s = 0) {\n"
        "        CUDA_CHECK(cudaMemcpyAsync(ptr_, src, n_ * sizeof(T),\n"
        "                                   cudaMemcpyHostToDevice, s));\n"
        "    }\n"
        "    void download(T* dst) const {\n"
        "        CUDA_CHECK(cudaMemcpy(dst, ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));\n"
        "    }\n"
        "    T* data() { return ptr_; }\n"
        "    size_t size() const { return n_; }\n"
        "private:\n    T* ptr_ = nullptr;\n    size_t n_ = 0;\n};\n\n"
    )


_UNITS: tuple[tuple[Callable[[random.Random], str], int], ...] = (
    (_k_elementwise, 8),
    (_k_reduce, 6),
    (_k_matmul, 3),
    (_k_histogram, 3),
    (_k_scan, 3),
    (_k_half, 2),
    (_k_rand, 2),
    (_k_coop, 1),
    (_k_stencil, 3),
    (_k_arch, 3),
    (_k_double, 2),
    (_host_cublas, 2),
    (_host_curand, 1),
    (_host_misc, 1),
    (_class_template, 2),
)
_UNIT_FUNCS = [u for u, _ in _UNITS]
_UNIT_WEIGHTS = [w for _, w in _UNITS]


def generate_file(rng: random.Random, target_bytes: int, *, is_header: bool = False) -> str:
    """One source of about ``target_bytes`` (a little over) drawn from ``rng``."""
    guard = f"{_camel(rng).upper()}_CUH_"
    parts = [_header(rng, is_header, guard), _macros(rng)]
    size = sum(len(p) for p in parts)
    kernels: list[str] = []
    while size < target_bytes:
        if kernels and rng.random() < 0.12:
            unit = _host_driver(rng, kernels)
        else:
            unit = rng.choices(_UNIT_FUNCS, _UNIT_WEIGHTS)[0](rng)
            if unit.startswith(("/**", "template", "__global__")) and "__global__ void " in unit:
                kernels.append(unit.split("__global__ void ", 1)[1].split("(", 1)[0])
        if rng.random() < 0.15:
            unit = _line_comment(rng) + unit
        parts.append(unit)
        size += len(unit)
    if is_header and not parts[0].count("#pragma once"):
        parts.append(f"#endif  // {guard}\n")
    return "".join(parts)


@dataclass(frozen=True)
class CorpusInfo:
    root: Path
    files: list[Path]
    bytes: int
    seed: int
    reused: bool


def generate_corpus(
    root: Path, size_bytes: int, seed: int, *, min_kb: int = 20, max_kb: int = 200
) -> CorpusInfo:
    """Write files under ``root`` until they hold at least ``size_bytes``.

    A corpus already at ``root`` with the same seed, size and generator version
    is reused as is.
    """
    manifest = root / "MANIFEST.json"
    key = {
        "version": GENERATOR_VERSION,
        "seed": seed,
        "size_bytes": size_bytes,
        "min_kb": min_kb,
        "max_kb": max_kb,
    }
    if manifest.is_file():
        data = json.loads(manifest.read_text())
        if data.get("key") == key:
            cached = [root / f for f in data["files"]]
            if all(f.is_file() for f in cached):
                return CorpusInfo(root, cached, int(data["bytes"]), seed, True)
    root.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    total = 0
    index = 0
    while total < size_bytes:
        rng = random.Random(f"{seed}:{index}")
        target = int(rng.uniform(min_kb, max_kb) * 1024)
        is_header = rng.random() < 0.2
        text = generate_file(rng, target, is_header=is_header)
        module = f"module{index % 16:02d}"
        stem = f"{_name(rng)}_{index:04d}"
        rel = Path("src") / module / (stem + (".cuh" if is_header else ".cu"))
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data_bytes = text.encode("utf-8")
        path.write_bytes(data_bytes)
        files.append(path)
        total += len(data_bytes)
        index += 1
    manifest.write_text(
        json.dumps(
            {"key": key, "bytes": total, "files": [str(f.relative_to(root)) for f in files]},
            indent=1,
        )
    )
    return CorpusInfo(root, files, total, seed, False)


def main(argv: list[str] | None = None) -> int:
    """``python bench/corpus_gen.py DIR [--size-mb N] [--seed S]``: write a corpus only."""
    import argparse

    p = argparse.ArgumentParser(description="Write a synthetic CUDA corpus.")
    p.add_argument("dir", type=Path)
    p.add_argument("--size-mb", type=float, default=50.0, help="size in MiB (default 50)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    info = generate_corpus(args.dir, int(args.size_mb * 2**20), args.seed)
    print(f"{len(info.files)} files, {info.bytes:,} bytes in {info.root}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
