"""A real unit verified with its context: the local definitions it uses, from its package."""

from __future__ import annotations

import pytest

from cass_build.pipeline.toolchain import find_hip
from cass_build.rules import translate_bytes
from cass_build.train.context import PackageContext, cuda_view, warp_forms, warp_names
from cass_build.train.dataset import _ALONE_PRELUDE, compile_batches, data_settings

# A small package: a header of macros, a constant that differs on AMD, a helper in a
# namespace and a struct; a header nothing uses that would not compile; a kernel file.
UTIL_H = b"""#pragma once
#include <cuda_runtime.h>
#include <torch/extension.h>

#define KSUM_INLINE __device__ __forceinline__
#define LANES_LOG 5

#ifdef __HIP_PLATFORM_AMD__
constexpr int kWarpLanes = ROCM_WAVEFRONT_SIZE;
#else
constexpr int kWarpLanes = 32;
#endif

struct Pair {
    float sum;
    int count;
};

namespace ksum {
KSUM_INLINE float warp_sum(float v)
{
    for (int off = kWarpLanes / 2; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffff, v, off);
    return v;
}
}  // namespace ksum

// Unused by the kernel: were it pulled in, the check would fail.
inline void needs_torch(torch::Tensor t) { t.zero_(); }
"""

KERNEL_CU = b"""#include "util.h"

namespace ksum {
__global__ void row_sums(const float* x, Pair* out, int n)
{
    const int lane = threadIdx.x % kWarpLanes;
    const int row = threadIdx.x >> LANES_LOG;
    float v = row * kWarpLanes + lane < n ? x[row * kWarpLanes + lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) out[row] = Pair{v, kWarpLanes};
}
}  // namespace ksum
"""

TREE = {"csrc/includes/util.h": UTIL_H, "csrc/kernels/row_sums.cu": KERNEL_CU}


def _context() -> PackageContext:
    return PackageContext(TREE, ["", "csrc"])


def test_closure_takes_what_the_unit_uses_in_the_cuda_view() -> None:
    uc = _context().for_unit("csrc/kernels/row_sums.cu", 0)
    text = uc.source
    # The header is found by its path's tail (the build adds csrc/includes), and the
    # closure follows warp_sum to KSUM_INLINE and kWarpLanes.
    assert b"struct Pair" in text and b"warp_sum" in text and b"KSUM_INLINE __device__" in text
    assert b"needs_torch" not in text
    # nvcc's branch: the AMD definition is left out, the kept one keeps a balanced frame.
    assert b"ROCM_WAVEFRONT_SIZE" not in text and b"kWarpLanes = 32" in text
    assert text.count(b"#if") == text.count(b"#endif")
    assert text.count(b"namespace ksum {") == text.count(b"namespace ksum {\n}") + 1
    assert uc.spaces == (b"namespace ksum {",)
    assert uc.constants == {b"kWarpLanes": 32, b"LANES_LOG": 5}
    assert warp_names(TREE) == {b"kWarpLanes", b"LANES_LOG"}
    assert cuda_view(b"#ifdef __HIP_PLATFORM_AMD__\n") == b"#if 0\n"
    assert cuda_view(b"#if defined(USE_ROCM) || X\n") == b"#if 0 || X\n"


def test_warp_forms_spell_the_constants() -> None:
    uc = _context().for_unit("csrc/kernels/row_sums.cu", 0)
    forms = warp_forms(_unit(), uc.constants)
    assert forms is not None
    naive, agnostic = forms
    assert b"threadIdx.x % 32" in naive and b"threadIdx.x >> 5" in naive
    assert b"kWarpLanes" not in naive and b"LANES_LOG" not in naive
    assert b"threadIdx.x % warpSize" in agnostic and b"threadIdx.x / warpSize" in agnostic
    # A bits constant used any other way has no agnostic spelling here.
    assert warp_forms(b"int f() { return 1 + LANES_LOG; }", {b"LANES_LOG": 5}) is None
    assert warp_forms(b"int f() { return 1; }", {b"kWarpLanes": 32}) is None


def _unit() -> bytes:
    start = KERNEL_CU.index(b"__global__")
    return KERNEL_CU[start : KERNEL_CU.index(b"}\n}") + 2]


@pytest.mark.slow
def test_unit_fails_alone_and_verifies_with_its_context() -> None:
    toolchain = find_hip()
    if toolchain is None:
        pytest.skip("hipcc not found (apt install hipcc libamdhip64-dev rocm-device-libs)")
    settings = data_settings()
    uc = _context().for_unit("csrc/kernels/row_sums.cu", 0)
    naive, agnostic = warp_forms(_unit(), uc.constants) or (b"", b"")
    context = translate_bytes(uc.source, "ctx.cu", settings).data
    # Includes that resolve nowhere (torch) are dropped by the check; here by hand.
    context = b"".join(line for line in context.splitlines(keepends=True) if b"torch/" not in line)
    target = translate_bytes(agnostic, "unit.cu", settings).data
    alone = _ALONE_PRELUDE + target
    with_context = _ALONE_PRELUDE + context + b"\n" + uc.wrap(target)
    source = translate_bytes(uc.source + b"\n" + uc.wrap(naive), "src.cu", settings).data
    source = b"".join(line for line in source.splitlines(keepends=True) if b"torch/" not in line)
    programs = [
        ("cass_p0", alone),
        ("cass_p1", with_context),
        ("cass_p2", _ALONE_PRELUDE + source),
    ]
    failed, _ = compile_batches(programs, toolchain, batch=1, jobs=1, syntax=True)
    assert set(failed) == {"cass_p0"}
    assert "warp_sum" in failed["cass_p0"] or "Pair" in failed["cass_p0"]


def test_data_build_makes_a_context_pair_from_the_package() -> None:
    from collections import Counter

    from cass_build.train.corpus import SourceFile
    from cass_build.train.dataset import _file_units, _Units

    rel = "csrc/kernels/row_sums.cu"
    f = SourceFile(file_id=f"pkg/{rel}", source="sdist:pkg", data=KERNEL_CU, tree=TREE, relpath=rel)
    units, counts = _Units(), Counter[str]()
    _file_units(0, f, data_settings(), units, counts)
    pairs = [r for r in units.records if r["origin"] == "context"]
    assert len(pairs) == 1 and counts["units_context_hazard_candidates"] == 1
    pair = pairs[0]
    assert pair["_route"] == "context" and pair["_ctx"] == (0, 0) and pair["naive"]
    assert "threadIdx.x % 32" in pair["cuda"] and "kWarpLanes" not in pair["cuda"]
    assert "warpSize" in pair["hip"] and "kWarpLanes" not in pair["hip"]
    assert "cass-warp-lane-arith" in pair["hazards"]


def test_host_code_is_no_device_unit() -> None:
    uc = _context().for_unit("csrc/kernels/row_sums.cu", 0)
    assert uc.device(b"KSUM_INLINE int f() { return kWarpLanes; }")
    assert not uc.device(b"void launch(int n) { dim3 block(n / kWarpLanes * kWarpLanes); }")
