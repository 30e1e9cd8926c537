"""Real code's surface on a synthesized program: banners, doc comments, macros, extra kernels.

``decorate(text, seed, naive, hazard)`` is applied to both forms of a program with
the same draws (its own random stream, so the synthesizer's draws are unchanged):
the forms still cut into the same declarations in the same order. What it adds:

- a file banner (an SPDX line, a Doxygen ``@file`` block, a ruled section title);
- Doxygen, ``///`` or ruled comments above kernels;
- macros real extensions define: ``CUDA_KERNEL_LOOP`` for grid-stride loops,
  ``DEVICE_INLINE`` for ``__device__ __forceinline__``, ``#pragma unroll`` on
  halving loops;
- extra kernels and helpers the program does not call (several kernels per file,
  templates): utilities without warp idioms for every program, and for programs
  with warp idioms one with a naive and an agnostic form (a ballot count, a
  templated warp maximum, a lane rank).

Nothing added changes what ``main`` computes, so the self-check still holds.
"""

from __future__ import annotations

import random
import re

__all__ = ["decorate"]

_BANNERS = (
    "// SPDX-License-Identifier: MIT\n// {title}",
    "/**\n * @file {file}\n * @brief {title}\n */",
    "// {rule}\n// {title}\n// {rule}",
    "/*\n * {title}\n *\n * Build: nvcc -O2 {file}\n */",
)
_KERNEL = re.compile(r"^(__global__ void ([A-Za-z_]\w*)\s*\()", re.MULTILINE)
_GRID_LOOP = re.compile(
    r"for \(int ([A-Za-z_]\w*) = blockIdx\.x \* blockDim\.x \+ threadIdx\.x; \1 < ([A-Za-z_]\w*);"
    r" \1 \+= blockDim\.x \* gridDim\.x\)"
)
_HALVING = re.compile(r"^([ \t]*)(for \([^;]*;[^;]*; *\w+ (?:>>= 1|/= 2)\))", re.MULTILINE)
_LOOP_MACRO = (
    "#define CUDA_KERNEL_LOOP(i, n) \\\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)"
)

_PLAIN_UTILS = (
    (
        "fillValues",
        "__global__ void fillValues(float* p, float v, int n) {{\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;"
        " i += blockDim.x * gridDim.x)\n"
        "    p[i] = v;\n}}",
    ),
    (
        "scaleInPlace",
        "template <typename T>\n__global__ void scaleInPlace(T* p, T s, int n) {{\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) p[i] *= s;\n}}",
    ),
    (
        "clampRange",
        "__device__ __forceinline__ float clampRange(float x, float lo, float hi) {{\n"
        "  return x < lo ? lo : (x > hi ? hi : x);\n}}",
    ),
)
# (name, naive form, agnostic form)
_WARP_UTILS = (
    (
        "countSetFlags",
        "__global__ void countSetFlags(const int* flags, int n, int* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  unsigned m = __ballot_sync(0xffffffff, i < n && flags[i] != 0);\n"
        "  if ((threadIdx.x & 31) == 0) atomicAdd(out, __popc(m));\n}",
        "__global__ void countSetFlags(const int* flags, int n, int* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  unsigned long long m = __ballot_sync(0xffffffff, i < n && flags[i] != 0);\n"
        "  if (threadIdx.x % warpSize == 0) atomicAdd(out, __popcll(m));\n}",
    ),
    (
        "warpMaxOf",
        "template <typename T>\n__device__ __forceinline__ T warpMaxOf(T v) {\n"
        "  for (int o = 16; o > 0; o /= 2) v = max(v, __shfl_xor_sync(0xffffffff, v, o));\n"
        "  return v;\n}",
        "template <typename T>\n__device__ __forceinline__ T warpMaxOf(T v) {\n"
        "  for (int o = warpSize / 2; o > 0; o /= 2)"
        " v = max(v, __shfl_xor_sync(0xffffffff, v, o));\n"
        "  return v;\n}",
    ),
    (
        "laneRank",
        "__device__ int laneRank(bool p) {\n"
        "  unsigned b = __ballot_sync(0xffffffff, p);\n"
        "  return __popc(b & ((1u << (threadIdx.x & 31)) - 1));\n}",
        "__device__ int laneRank(bool p) {\n"
        "  unsigned long long b = __ballot_sync(0xffffffff, p);\n"
        "  return __popcll(b & ((1ull << (threadIdx.x % warpSize)) - 1));\n}",
    ),
)


def _doc(name: str, style: int) -> str:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").strip().lower()
    if style == 0:
        return f"/**\n * @brief Kernel: {words}.\n * @note One thread per element.\n */\n"
    if style == 1:
        return f"/// {words} (device kernel)\n"
    return f"// ---- {words} ----\n"


def _unroll(m: re.Match[str]) -> str:
    """``#pragma unroll`` above a halving loop, unless one is there already (clang
    rejects two)."""
    before = m.string[: m.start()].rstrip().rsplit("\n", 1)[-1]
    if before.strip().startswith("#pragma"):
        return m.group(0)
    return f"{m.group(1)}#pragma unroll\n{m.group(1)}{m.group(2)}"


def _after_includes(text: str, block: str) -> str:
    at = text.find("\n\n", max(0, text.rfind("#include")))
    at = len(text) if at < 0 else at
    return text[:at] + "\n\n" + block + text[at:]


def _main_at(text: str) -> int:
    m = re.search(r"^int main\(", text, re.MULTILINE)
    return m.start() if m else len(text)


def decorate(text: str, seed: int, *, naive: bool, hazard: bool, title: str, file: str) -> str:
    """``text`` with real code's surface added; the same draws for both forms."""
    rng = random.Random(f"style:{seed}")
    if rng.random() < 0.5:
        banner = rng.choice(_BANNERS).format(title=title, file=file, rule="=" * 60)
        text = banner + "\n" + text
    doc = rng.randrange(4)
    if doc < 3:
        text = _KERNEL.sub(lambda m: _doc(m.group(2), doc) + m.group(1), text)
    if rng.random() < 0.4 and _GRID_LOOP.search(text):
        text = _GRID_LOOP.sub(r"CUDA_KERNEL_LOOP(\1, \2)", text)
        text = _after_includes(text, _LOOP_MACRO)
    if rng.random() < 0.3 and "__device__ __forceinline__" in text:
        text = text.replace("__device__ __forceinline__", "DEVICE_INLINE")
        text = _after_includes(text, "#define DEVICE_INLINE __device__ __forceinline__")
    if rng.random() < 0.3:
        text = _HALVING.sub(_unroll, text)
    extras: list[str] = []
    if rng.random() < 0.35:
        name, body = rng.choice(_PLAIN_UTILS)
        if name not in text:
            extras.append(body.format())
    if hazard and rng.random() < 0.5:
        name, naive_body, agnostic_body = rng.choice(_WARP_UTILS)
        if name not in text:
            extras.append(naive_body if naive else agnostic_body)
    if extras:
        at = _main_at(text)
        text = text[:at] + "\n\n".join(extras) + "\n\n" + text[at:]
    return text
