"""--warp cuda (logical 32-lane warps through <cass/warp.h>) and --warp native, with real hipcc.

Translation tests pin what each mode emits; the compile tests build the headers and the
bench's warp programs (bench/warp_programs) for gfx90a and gfx1030 with the installed
HIP (5.2 here), and for gfx942 and gfx1100 through cass asm's llvmlite route; the asm
test compares a wave32 build of --warp cuda output with --warp native's.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cass_build import Settings, include_dir, translate
from cass_build.__main__ import main
from cass_build.pipeline import PipelineOptions, translate_file
from cass_build.rules import warp_include
from cass_build.rules.tables import load_tables

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "bench" / "warp_programs"
HEADERS = Path(include_dir()) / "cass"
CUDA = Settings(hip_version=(5, 2))
NATIVE = Settings(hip_version=(5, 2), warp="native")

needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")

KERNEL = """\
__global__ void k(unsigned* out, float x) {
  int lane = threadIdx.x & 31;
  float v = __shfl_down_sync(0xffffffff, x, 1);
  unsigned b = __ballot_sync(0xffffffff, v > 0.f);
  out[lane] = __popc(b) + warpSize + __activemask();
}
"""


def test_cuda_mode_is_the_default_and_keeps_cuda_arguments() -> None:
    assert Settings().warp == "cuda"
    out = translate(KERNEL, options=CUDA).text
    assert out.startswith("#include <cass/warp.h>\n#line 1\n")
    assert "__cass_shfl_down_sync(0xffffffff, x, 1)" in out
    assert "unsigned b = __cass_ballot_sync(0xffffffff, v > 0.f);" in out
    assert "__popc(b) + __cass_warp_size + __cass_activemask()" in out
    assert "int lane = threadIdx.x & 31;" in out  # right as written on logical warps


def test_native_mode_is_todays_translation() -> None:
    out = translate(KERNEL, options=NATIVE).text
    assert "__cass_" not in out
    assert "__shfl_down(x, 1)" in out
    assert "warpSize" in out


def test_cuda_mode_emits_the_same_for_every_hip_version() -> None:
    texts = {translate(KERNEL, options=Settings(hip_version=v)).text for v in [(5, 2), (7, 2)]}
    assert len(texts) == 1


def test_nothing_emitted_that_the_target_hip_lacks() -> None:
    """In cuda mode a routed row's HIP spelling (which may need a newer HIP) never appears:
    its <cass/warp.h> name does, whatever --hip-version says."""
    routed = [r for f in load_tables() for r in f.rows if r.warp and r.kind == "function"]
    assert len(routed) >= 28
    source = "\n".join(f"void f{i}() {{ {r.cuda}(a, b, c); }}" for i, r in enumerate(routed))
    for version in [(5, 2), (6, 2), (7, 2)]:
        out = translate(source, options=Settings(hip_version=version)).text
        for r in routed:
            assert f"{r.warp}(a, b, c)" in out
            emitted = set(re.findall(r"\b\w+(?=\(a, b, c\))", out))
            assert emitted <= {r.warp for r in routed}


def test_hazards_are_notes_in_cuda_mode_and_warnings_in_native() -> None:
    cuda = translate(KERNEL, path="k.cu", options=CUDA).diagnostics
    native = translate(KERNEL, path="k.cu", options=NATIVE).diagnostics
    assert {d.severity for d in cuda} == {"note"}
    lane = [d for d in cuda if d.rule == "cass-warp-lane-arith"]
    assert lane[0].message.endswith("runs CUDA code as 32-lane logical warps (--warp cuda)")
    assert "warning" in {d.severity for d in native}
    assert "cass-ballot-width" in {d.rule for d in native}
    assert "cass-ballot-width" not in {d.rule for d in cuda}


def test_literal_widths_are_checked() -> None:
    src = "v = __shfl_xor_sync(0xffffffff, v, 1, 24) + __shfl_sync(m, v, 0, 8) + __shfl(v, 0, 64);"
    diags = translate(src, path="w.cu", options=CUDA).diagnostics
    widths = [(d.column, d.severity) for d in diags if d.rule == "cass-shfl-width"]
    assert widths == [(src.index("24") + 1, "warning"), (src.index("64") + 1, "warning")]


def test_cooperative_groups_route_to_the_cass_namespace() -> None:
    src = (
        "#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n"
        "namespace cg = cooperative_groups;\nusing namespace cooperative_groups;\n"
        "__device__ int f() { return cooperative_groups::this_thread_block().size(); }\n"
    )
    t = translate(src, options=CUDA)
    assert t.text.splitlines()[:4] == [
        "#include <cass/cooperative_groups.h>",
        "",  # the second include of the same header is blanked
        "namespace cg = __cass_cg;",
        "using namespace __cass_cg;",
    ]
    assert "__cass_cg::this_thread_block()" in t.text
    assert not [d for d in t.diagnostics if d.severity != "note"]
    native = translate(src, options=NATIVE)
    assert "namespace cg = cooperative_groups;" in native.text
    assert "cass-unsupported-api" in {d.rule for d in native.diagnostics}  # scan.h


def test_host_side_reports_32_lanes() -> None:
    src = (
        "void f(cudaDeviceProp* p, int* v) { cudaGetDeviceProperties(p, 0);\n"
        "cudaDeviceGetAttribute(v, cudaDevAttrWarpSize, 0); }\n"
    )
    out = translate(src, options=CUDA).text
    assert "__cass_hipGetDeviceProperties(p, 0)" in out
    assert "__cass_hipDeviceGetAttribute(v, hipDeviceAttributeWarpSize, 0)" in out
    assert "hipGetDeviceProperties(p, 0)" in translate(src, options=NATIVE).text


def test_function_names_route_only_when_called() -> None:
    src = "struct __any { int x; };\nint g(int p) { return __any(p); }\n"
    out = translate(src, options=CUDA).text
    assert "struct __any {" in out and "return __cass_any(p);" in out


def test_the_include_comes_once_first_keeping_lines() -> None:
    data = b"#pragma once\n__device__ int f(int v) { return __cass_shfl_xor(v, 1); }\n"
    out = warp_include(data)
    assert out == b"#include <cass/warp.h>\n#line 1\n" + data
    assert warp_include(out) == out
    assert warp_include(b"int x;\n") == b"int x;\n"
    cg = warp_include(b"namespace cg = __cass_cg;\nint y = __cass_lane_id();\n")
    assert cg.startswith(b"#include <cass/cooperative_groups.h>\n#line 1\n")


def test_only_names_that_start_a_word_count() -> None:
    # Inside a longer name, `__cass_` is not the header's: no include; `__cass_cgx` is
    # not the cooperative groups' namespace, which is the whole word `__cass_cg`.
    inside = b"int my__cass_shfl = 1;\n"
    assert warp_include(inside) == inside
    late = b"int my__cass_x;\nint y = __cass_lane_id() + __cass_cgx;\n"
    assert warp_include(late).startswith(b"#include <cass/warp.h>\n#line 1\n")
    cg = b"int y = __cass_lane_id();\nnamespace g = __cass_cg"
    assert warp_include(cg).startswith(b"#include <cass/cooperative_groups.h>\n#line 1\n")
    # The header already included (the second translation): unchanged.
    both = b'#include "cass/cooperative_groups.h"\nnamespace g = __cass_cg;\n'
    assert warp_include(both) == both


def test_pipeline_output_includes_the_header(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "k.cuh").write_text(
        "__device__ int f(int v) { return __shfl_xor_sync(~0u, v, 1); }\n"
    )
    options = PipelineOptions(verify="none", strategy="rules", settings=CUDA)
    text = translate_file(tmp_path / "k.cu", options).text
    assert text.startswith(
        "#include <hip/hip_runtime.h>\n#line 1\n#include <cass/warp.h>\n#line 1\n"
    )
    header = translate_file(tmp_path / "k.cuh", options).text
    assert header.startswith("#include <cass/warp.h>\n#line 1\n")


def test_cli_and_environment_pick_the_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    out = tmp_path / "k.hip"
    monkeypatch.setenv("CASS_WARP", "native")
    assert main(["translate", str(src), "-o", str(out), "--verify", "none", "-q"]) == 0
    assert "__cass_" not in out.read_text()
    args = ["translate", str(src), "-o", str(out), "--verify", "none", "-q", "--warp", "cuda"]
    assert main(args) == 0
    assert "__cass_shfl_down_sync" in out.read_text()


# --- real compilers ------------------------------------------------------------------------


def _hipcc(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    cmd = ["hipcc", f"-I{include_dir()}", *args]
    env = {"HIP_PLATFORM": "amd", "PATH": "/usr/bin:/bin:/usr/local/bin"}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, check=False)


@needs_hipcc
@pytest.mark.parametrize("std", ["c++11", "c++17"])
def test_headers_compile_alone_for_both_wave_sizes(tmp_path: Path, std: str) -> None:
    """Every name of the contract (docs/warps.md) and the cooperative groups' API."""
    names = re.findall(r"\b(__cass_\w+)\s*\(", (HEADERS / "warp.h").read_text())
    contract = {
        "__cass_lane_id", "__cass_warp_id", "__cass_activemask", "__cass_shfl_sync",
        "__cass_shfl_up_sync", "__cass_shfl_down_sync", "__cass_shfl_xor_sync", "__cass_shfl",
        "__cass_shfl_up", "__cass_shfl_down", "__cass_shfl_xor", "__cass_ballot_sync",
        "__cass_ballot", "__cass_any_sync", "__cass_all_sync", "__cass_uni_sync", "__cass_any",
        "__cass_all", "__cass_match_any_sync", "__cass_match_all_sync", "__cass_syncwarp",
        *(f"__cass_lanemask_{m}" for m in ("eq", "lt", "le", "gt", "ge")),
    }  # fmt: skip
    assert contract <= set(names)
    body = """
#include <cass/cooperative_groups.h>
namespace cg = __cass_cg;
__global__ void k(unsigned* o, const float* f, const double* d) {
  static_assert(__cass_warp_size == 32, "");
  unsigned t = threadIdx.x; float v = f[t]; int p;
  o[t] = __cass_lane_id() + __cass_warp_id() + __cass_lanemask_eq() + __cass_lanemask_lt()
    + __cass_lanemask_le() + __cass_lanemask_gt() + __cass_lanemask_ge() + __cass_activemask()
    + __cass_ballot_sync(0xffu, v > 0) + __cass_ballot(v > 1) + __cass_any_sync(~0u, v > 2)
    + __cass_all_sync(~0u, v > 3) + __cass_uni_sync(~0u, t & 1) + __cass_any(t > 3)
    + __cass_all(t > 4) + __cass_match_any_sync(~0u, t / 4) + __cass_match_all_sync(~0u, v, &p)
    + __cass_match_any_sync(~0u, d[t]) + __cass_match_all_sync(~0u, blockIdx.x, &p)
    + (unsigned)__cass_shfl_sync(0xffffu, v, 3, 16) + __cass_shfl_up_sync(~0u, t, 1u, 8)
    + __cass_shfl_down_sync(~0u, t, 2u) + __cass_shfl_xor_sync(~0u, t, 1, 4)
    + (unsigned)__cass_shfl(d[t], 5) + __cass_shfl_up(t, 1u) + __cass_shfl_down(t, 1u)
    + __cass_shfl_xor(blockIdx.x, 1) + __cass_reduce_add_sync(~0u, t)
    + __cass_reduce_min_sync(0xf0u, (int)t) + __cass_reduce_max_sync(~0u, t)
    + __cass_reduce_and_sync(~0u, t) + __cass_reduce_or_sync(~0u, t)
    + __cass_reduce_xor_sync(~0u, t) + p;
  __cass_syncwarp(); __cass_syncwarp(0xffu);
  cg::thread_block b = cg::this_thread_block();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(b);
  auto h = cg::tiled_partition<8>(w);
  o[t] += cg::reduce(w, t, cg::plus<unsigned>()) + cg::inclusive_scan(h, t, cg::bit_xor<unsigned>())
    + cg::exclusive_scan(w, t, cg::less<unsigned>()) + w.meta_group_rank() + h.meta_group_size()
    + h.ballot(t & 1) + h.shfl(t, 1) + w.any(t > 4) + w.all(t > 0)
    + cg::reduce(h, t, cg::greater<unsigned>());
  if (t & 1) {
    cg::coalesced_group c = cg::coalesced_threads();
    o[t] += c.thread_rank() + c.size() + c.ballot(t & 2) + cg::reduce(c, t, cg::bit_or<unsigned>());
  }
}
int main() { hipDeviceProp_t p; int v; __cass_hipGetDeviceProperties(&p, 0);
  __cass_hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0); return p.warpSize + v; }
"""
    (tmp_path / "all.hip").write_text(body)
    done = _hipcc(
        [f"-std={std}", "--offload-arch=gfx90a", "--offload-arch=gfx1030", "-c", "all.hip"],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@needs_hipcc
def test_warp_programs_translate_and_compile_for_hip_52(tmp_path: Path) -> None:
    """Every bench/warp_programs program, --warp cuda, verified by hipcc for both archs."""
    programs = sorted(p.parent.name for p in PROGRAMS.glob("*/main.cu"))
    assert len(programs) == 9
    out = tmp_path / "out"
    code = main(
        ["translate", str(PROGRAMS), "--out-dir", str(out), "--verify", "compile",
         "--offload-arch", "gfx90a", "--offload-arch", "gfx1030", "--hip-version", "5.2",
         "--strategy", "rules", "--no-cache", "-q"]
    )  # fmt: skip
    assert code == 0
    for name in programs:
        text = (out / name / "main.hip").read_text()
        assert (
            "__cass_" in text
            and re.search(r"\b__(shfl|ballot|reduce|match)\w*_sync\(", text) is None
        )


HAVE_LLVM = importlib.util.find_spec("llvmlite") is not None


@needs_hipcc
@pytest.mark.slow
@pytest.mark.skipif(not HAVE_LLVM, reason="llvmlite: pip install 'cass-build[asm]'")
def test_llvmlite_route_builds_gfx942_and_gfx1100(tmp_path: Path) -> None:
    from cass_build.asm.build import build_file
    from cass_build.asm.targets import AMD_ARCHS

    archs = [a for a in AMD_ARCHS.values() if a.name in ("gfx942", "gfx1100")]
    build = build_file(PROGRAMS / "cg_reduce_scan" / "main.cu", [], archs, jobs=2)
    assert build.errors == {}
    assert {t.target for t in build.targets} == {"gfx942", "gfx1100"}


@needs_hipcc
@pytest.mark.slow
def test_wave32_builds_carry_no_extra_instructions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cass asm's instruction counts of a warp reduction and vote: --warp cuda against
    --warp native, on gfx1030 (wave32) equal; on gfx90a (wave64) cuda mode adds the
    shifts that pick the caller's half of each ballot."""
    from cass_build.asm.build import build_file
    from cass_build.asm.resources import AmdResources
    from cass_build.asm.targets import AMD_ARCHS

    src = tmp_path / "red.cu"
    src.write_text(
        "__global__ void warp_sum(const float* in, float* out) {\n"
        "  float v = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
        "  unsigned b = __ballot_sync(0xffffffff, v > 0.f);\n"
        "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if ((threadIdx.x & 31) == 0) out[t / 32] = v + __popc(b);\n"
        "}\n"
    )
    archs = [a for a in AMD_ARCHS.values() if a.name in ("gfx1030", "gfx90a")]
    counts = {}
    for mode in ("cuda", "native"):
        monkeypatch.setenv("CASS_WARP", mode)
        build = build_file(src, [], archs, jobs=2)
        assert build.errors == {}
        assert ("__cass_" in build.hip) == (mode == "cuda")
        for target in build.targets:
            (kernel,) = target.kernels.values()
            assert isinstance(kernel.resources, AmdResources)
            counts[mode, target.target] = kernel.resources.total
    assert counts["cuda", "gfx1030"] == counts["native", "gfx1030"]
    assert counts["cuda", "gfx90a"] >= counts["native", "gfx90a"]


def test_native_mode_checks_literal_widths_too() -> None:
    diags = translate("v = __shfl_down_sync(~0u, v, 1, 12);", options=NATIVE).diagnostics
    assert [d.rule for d in diags if d.severity == "warning"] == ["cass-shfl-width"]
