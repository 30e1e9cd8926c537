"""cass asm and cass dataset asm with the real compilers, on every target.

Compiles are slow on this machine, so each module fixture builds once for every target
and the tests read what it produced: a file of kernels whose figures are known from
their source, and two fixture programs through ``cass dataset asm``.
"""

from __future__ import annotations

import html.parser
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cass_build.asm._tools import nvidia_disassembler
from cass_build.asm.occupancy import sgpr_waves, vgpr_waves
from cass_build.asm.targets import AMD_ARCHS
from cass_build.cli import main

from .fixture_programs import PROGRAMS, load_fixtures

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed"),
    pytest.mark.skipif(
        shutil.which("nvcc") is None and not os.environ.get("CUDA_HOME"),
        reason="nvcc is not installed",
    ),
    pytest.mark.skipif(
        nvidia_disassembler() is None, reason="no nvdisasm/cuobjdump: pip install 'cass-build[asm]'"
    ),
]

#: Every AMD target where llvmlite is installed, else those clang 15 finishes itself.
HAVE_LLVM = importlib.util.find_spec("llvmlite") is not None
AMD = [a for a in AMD_ARCHS if HAVE_LLVM or a in ("gfx90a", "gfx1030")]
ALL = ["sm_90", *AMD]
needs_llvm = pytest.mark.skipif(not HAVE_LLVM, reason="llvmlite: pip install 'cass-build[asm]'")

KNOWN_CU = r"""
// Kernels whose resource figures follow from their source.
#include <cuda_runtime.h>

// 12288 floats: exactly 48 KiB of static shared memory.
__global__ void smem48k(float *out) {
  __shared__ float tile[12288];
  for (int i = threadIdx.x; i < 12288; i += blockDim.x) tile[i] = out[i];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 7) % 12288];
}

// A 1 KiB private array indexed at run time cannot live in registers.
__global__ void local1k(int *out, int n) {
  int buf[256];
  for (int i = 0; i < 256; ++i) buf[i] = out[i] * n;
  out[threadIdx.x] = buf[(threadIdx.x * n) & 255];
}

// __launch_bounds__ caps the block both vendors compile for.
__global__ void __launch_bounds__(128) bounded(float *out) {
  out[blockIdx.x * 128 + threadIdx.x] *= 2.0f;
}

// 96 live accumulators under __launch_bounds__(256, W). ptxas reads W as blocks per SM
// (registers <= 65536 / (256 * W)); HIP reads it as at least W waves per SIMD, which caps
// the VGPRs at the register file over W (LLVM ignores a W the target cannot hold).
#define CAPPED(NAME, W)                                                                  \
  __global__ void __launch_bounds__(256, W) NAME(const float *in, float *out, int n) {  \
    float acc[96];                                                                       \
    _Pragma("unroll") for (int i = 0; i < 96; ++i) acc[i] = in[threadIdx.x + i * n];    \
    _Pragma("unroll") for (int i = 0; i < 96; ++i)                                       \
      acc[i] = acc[i] * acc[(i + 1) % 96] + in[i];                                       \
    float s = 0.0f;                                                                      \
    _Pragma("unroll") for (int i = 0; i < 96; ++i) s += acc[i] * (float)i;               \
    out[threadIdx.x] = s;                                                                \
  }
CAPPED(capped8, 8)
CAPPED(capped16, 16)

// Inline PTX is copied into the AMD assembly as written (it would not assemble there).
__global__ void ptxfence(int *p) {
  p[threadIdx.x] = 1;
  asm volatile("membar.gl;");
}

// HIP's float4 is HIP_vector_type<float, 4u>: another mangled name for the same kernel.
__global__ void vec4(float4 *p, uchar2 *q) {
  p[threadIdx.x].x += 1.0f;
  q[threadIdx.x].y = 1;
}

namespace ns {
template <typename T, int N> __global__ void scale(T *p) { p[threadIdx.x] *= T(N); }
template __global__ void scale<double, 3>(double *);
}  // namespace ns

int main() { return 0; }
"""

KERNELS = {
    "smem48k": "_Z7smem48kPf",
    "local1k": "_Z7local1kPii",
    "bounded": "_Z7boundedPf",
    "capped8": "_Z7capped8PKfPfi",
    "capped16": "_Z8capped16PKfPfi",
    "scale": "_ZN2ns5scaleIdLi3EEEvPT_",
    "ptxfence": "_Z8ptxfencePi",
    "vec4": "_Z4vec4P6float4P6uchar2",
}


@pytest.fixture(scope="module")
def known(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``cass asm known.cu`` for every target, once: JSON, HTML and listing files."""
    root = tmp_path_factory.mktemp("asm-known")
    source = root / "known.cu"
    source.write_text(KNOWN_CU)
    out = root / "out"
    argv = ["asm", str(source), "--offload-arch", ",".join(AMD), "--sm", "90", "-j", "2"]
    argv += ["--json", str(root / "r.json"), "--html", str(root / "r.html"), "-o", str(out)]
    code = main(argv)
    assert code == 0
    report = json.loads((root / "r.json").read_text())
    report["_root"] = root
    report["_by_name"] = {k["name"]: k for k in report["kernels"]}
    return report


def _res(report: dict[str, Any], kernel: str, target: str) -> dict[str, Any]:
    return dict(report["_by_name"][KERNELS[kernel]]["targets"][target]["resources"])


def test_every_target_every_kernel(known: dict[str, Any]) -> None:
    assert [t["target"] for t in known["targets"]] == ALL
    assert known["errors"] == {}
    # Matched by mangled name: every kernel (a namespaced template too) on every target.
    assert set(known["_by_name"]) == set(KERNELS.values())
    for kernel in known["kernels"]:
        assert list(kernel["targets"]) == ALL
    assert known["_by_name"][KERNELS["scale"]]["demangled"] == "void ns::scale<double, 3>(double*)"


def test_vector_types_match_across_manglings(known: dict[str, Any]) -> None:
    kernel = known["_by_name"][KERNELS["vec4"]]
    assert kernel["demangled"] == "vec4(float4*, uchar2*)"
    assert kernel["names"]["sm_90"] == KERNELS["vec4"]
    for arch in AMD:
        assert kernel["names"][arch] == "_Z4vec4P15HIP_vector_typeIfLj4EEPS_IhLj2EE", arch
        assert "global_store" in kernel["targets"][arch]["listing"], arch


def test_48k_static_shared_is_49152_everywhere(known: dict[str, Any]) -> None:
    assert _res(known, "smem48k", "sm_90")["shared"] == 49152
    for arch in AMD:
        assert _res(known, "smem48k", arch)["lds"] == 49152, arch


def test_48k_shared_flags_cdna_on_lds(known: dict[str, Any]) -> None:
    # sm_90 holds 4 such blocks (32 of 64 warps); a 64 KiB CU one (1 of 8 waves). gfx950's
    # 160 KiB hold 3 (37.5%); RDNA's 128 KiB WGP holds 2 (25%): not below half of 50%.
    flags = known["_by_name"][KERNELS["smem48k"]]["flags"]
    assert sorted(f["target"] for f in flags) == [t for t in ("gfx90a", "gfx942") if t in AMD]
    for flag in flags:
        assert flag["reasons"][0].startswith("LDS limit: 49152 B per workgroup")
        assert flag["nvidia_effective"] == 0.5 and flag["amd_effective"] == 0.125
    occ = known["_by_name"][KERNELS["smem48k"]]["targets"]["sm_90"]["occupancy"]
    assert (occ["groups"], occ["limiter"]) == (4, "shared")


def test_private_array_is_stack_and_scratch(known: dict[str, Any]) -> None:
    assert _res(known, "local1k", "sm_90")["stack"] >= 1024
    for arch in AMD:
        assert _res(known, "local1k", arch)["scratch"] >= 1024, arch


def test_launch_bounds_cap_the_block(known: dict[str, Any]) -> None:
    for arch in AMD:
        assert _res(known, "bounded", arch)["max_flat_workgroup_size"] == 128
    kernel = known["_by_name"][KERNELS["bounded"]]
    assert kernel["block"] == 128
    assert {t["occupancy"]["block"] for t in kernel["targets"].values()} == {128}


def test_vgpr_caps_match_the_register_files(known: dict[str, Any]) -> None:
    """The VGPR budget LLVM gives a kernel that must fit W waves per SIMD is the file
    over W, in allocation granules: the same numbers the occupancy model uses."""
    assert _res(known, "capped8", "sm_90")["registers"] <= 65536 // (256 * 8)
    for name, arch in AMD_ARCHS.items():
        if name not in AMD:
            continue
        for kernel, waves in (("capped8", 8), ("capped16", 16)):
            if waves > arch.max_waves:
                continue  # LLVM ignores a waves-per-EU the target cannot hold
            cap = arch.vgprs // waves // arch.vgpr_granule * arch.vgpr_granule
            res = _res(known, kernel, name)
            assert res["vgprs"] <= cap, (kernel, name)
            if res["vgpr_spills"] or res["scratch"]:
                assert res["vgprs"] == cap, (kernel, name)  # spilling: the budget is all used
    # RDNA3/4 have 1.5x the VGPRs of RDNA2: 16 waves leave 96 per wave there, 64 on gfx1030.
    assert _res(known, "capped16", "gfx1030")["vgprs"] == 64
    for arch in ("gfx1100", "gfx1200", "gfx1201") if HAVE_LLVM else ():
        assert 64 < _res(known, "capped16", arch)["vgprs"] <= 96


def test_register_limit_agrees_with_the_compiler(known: dict[str, Any]) -> None:
    """Where clang printed its own occupancy (hipcc -S), the model's register limit is it."""
    checked = 0
    for kernel in known["kernels"]:
        for target, entry in kernel["targets"].items():
            res = entry["resources"]
            if target.startswith("sm_") or res["compiler_occupancy"] is None or res["lds"]:
                continue
            arch = AMD_ARCHS[target]
            model = min(vgpr_waves(arch, res["vgprs"]), sgpr_waves(arch, res["sgprs"]))
            assert res["compiler_occupancy"] == model, (kernel["name"], target)
            checked += 1
    assert checked >= 8


def test_listings_show_what_the_source_does(known: dict[str, Any]) -> None:
    entry = known["_by_name"][KERNELS["smem48k"]]["targets"]
    sass = entry["sm_90"]["listing"]
    assert "STS" in sass and "LDS" in sass and "BAR.SYNC" in sass and "EXIT" in sass
    assert entry["sm_90"]["resources"]["instructions"]["mem_shared"] >= 2
    for arch in AMD:
        text = entry[arch]["listing"]
        assert re.search(r"^  ds_(write|store)_b32", text, re.M), arch
        assert re.search(r"^  ds_(read|load)_b32", text, re.M), arch
        assert "s_barrier" in text and "s_endpgm" in text, arch
        counts = entry[arch]["resources"]["instructions"]
        assert counts["mem_shared"] >= 2 and counts["sync"] >= 1, arch
        assert sum(counts.values()) == entry[arch]["resources"]["total"]
    assert known["targets"][0]["kind"] == "sass"


def test_inline_ptx_is_translated_before_amd_listings(known: dict[str, Any]) -> None:
    # membar.gl becomes __threadfence() (docs/ptx.md): the AMD code holds no inline asm.
    entry = known["_by_name"][KERNELS["ptxfence"]]["targets"]
    assert "MEMBAR" in entry["sm_90"]["listing"]
    for arch in AMD:
        assert entry[arch]["resources"]["inline_asm"] == 0, arch
        assert ";;#ASMSTART" not in entry[arch]["listing"], arch
        assert "membar" not in entry[arch]["listing"], arch


def test_a_target_that_fails_is_one_line_at_the_cuda_line(tmp_path: Path) -> None:
    source = tmp_path / "only_cuda.cu"
    source.write_text(
        "__global__ void k(int *p) { p[0] = 1; }\n"
        "#ifdef __HIP_PLATFORM_AMD__\n"
        "#error this file is CUDA only\n"
        "#endif\n"
    )
    err = io.StringIO()
    assert main(["asm", str(source), "--offload-arch", "gfx90a", "--report-only"], err=err) == 1
    errors = [ln for ln in err.getvalue().splitlines() if ": error: " in ln]
    assert errors == [
        f"cass asm: error: {source}: hipcc failed for gfx90a: {source}:3:2 (in its HIP): "
        "error: this file is CUDA only"
    ]
    assert "Traceback" not in err.getvalue()


TEXTURE_CU = r"""
#include <cuda_runtime.h>
__global__ void sample(cudaTextureObject_t t, float *out) {
  out[threadIdx.x] = tex2D<float>(t, threadIdx.x + 0.5f, 0.5f);
}
int main() { return 0; }
"""


@needs_llvm
def test_a_target_llvm_cannot_lower_is_one_line(tmp_path: Path) -> None:
    """CDNA3 has no image instructions: LLVM 22 refuses ROCm 5.2's texture sampling for
    gfx942. The error names the target and the function; gfx90a is still produced."""
    source = tmp_path / "texture.cu"
    source.write_text(TEXTURE_CU)
    err = io.StringIO()
    argv = ["asm", str(source), "--sm", "none", "--offload-arch", "gfx90a,gfx942", "--json"]
    assert main([*argv, str(tmp_path / "r.json")], err=err) == 1
    lines = err.getvalue().splitlines()
    assert len(lines) == 2, lines
    assert re.fullmatch(
        re.escape(f"cass asm: error: {source}: ") + r"LLVM \d+\.\d+\.\d+ "
        + re.escape("cannot lower it for gfx942: in function _Z6sampleP13__hip_texturePf void "
                    "(ptr addrspace(1), ptr addrspace(1)): requested image instruction is not "
                    "supported on this GPU"),
        lines[0],
    ), lines[0]  # fmt: skip
    assert lines[1] == "cass asm: hint: often an instruction or intrinsic this target lacks"
    report = json.loads((tmp_path / "r.json").read_text())
    assert list(report["errors"]) == ["gfx942"]
    assert [t["target"] for t in report["targets"]] == ["gfx90a"]
    assert list(report["kernels"][0]["targets"]) == ["gfx90a"]


def test_tools_are_recorded(known: dict[str, Any]) -> None:
    tools = {t["target"]: t["tool"] for t in known["targets"]}
    assert tools["sm_90"].startswith("nvcc ")
    assert "hipcc" in tools["gfx90a"] and "clang" in tools["gfx90a"]
    if HAVE_LLVM:
        assert re.search(r"LLVM \d+\.\d+\.\d+ \(llvmlite ", tools["gfx942"])


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href", "xmlns") and v]


def test_html_page_is_self_contained(known: dict[str, Any]) -> None:
    page = (known["_root"] / "r.html").read_text()
    parser = _Tags()
    parser.feed(page)
    assert parser.tags.count("svg") == len(KERNELS)
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    assert set(parser.urls) <= {"http://www.w3.org/2000/svg"}
    for name in KERNELS.values():
        assert name in page


def test_out_dir_holds_hip_and_listings(known: dict[str, Any]) -> None:
    out = known["_root"] / "out"
    assert "#include <hip/hip_runtime.h>" in (out / "known.hip").read_text()
    assert "// kernel _Z7smem48kPf" in (out / "known.sm_90.sass").read_text()
    for arch in AMD:
        assert "// kernel _Z7smem48kPf" in (out / f"known.{arch}.s").read_text()


def test_bench_hook(known: dict[str, Any]) -> None:
    from cass_build.asm import resources_for

    root = known["_root"]
    found = resources_for(root / "out" / "known.hip", ("gfx90a",), cuda_path=root / "known.cu")
    assert found["errors"] == {}
    assert found["targets"]["gfx90a"]["_Z7smem48kPf"]["lds"] == 49152
    assert found["targets"]["sm_90"]["_Z7smem48kPf"]["shared"] == 49152
    assert [f["target"] for f in found["flags"]] == ["gfx90a"]


def test_ptx_when_no_disassembler(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text(KNOWN_CU)
    done = subprocess.run(
        [sys.executable, "-m", "cass_build", "asm", str(source), "--offload-arch", "none",
         "--kernel", "smem48k", "--json"],
        capture_output=True, text=True, check=False, timeout=600,
        env={**os.environ, "CASS_NVDISASM": str(tmp_path / "none")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    target = report["targets"][0]
    assert target["kind"] == "ptx"
    assert any("PTX, not SASS" in n for n in target["notes"])
    entry = report["kernels"][0]["targets"]["sm_90"]
    assert "st.shared" in entry["listing"] and "bar.sync" in entry["listing"]
    assert entry["resources"]["shared"] == 49152  # ptxas' figures whatever the listing
    assert entry["resources"]["instructions"]["mem_shared"] >= 2


# --- cass dataset asm on fixture programs ------------------------------------------------

DATASET_FIXTURES = ("a04_matmul_tiled", "b01_warp_reduce_sum")


@pytest.fixture(scope="module")
def dataset_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], str]:
    """``cass dataset asm`` over two fixture programs, once: the records and the summary."""
    root = tmp_path_factory.mktemp("asm-dataset")
    corpus = root / "corpus"
    corpus.mkdir()
    fixtures = {f.name: f for f in load_fixtures()}
    for name in DATASET_FIXTURES:
        if reason := fixtures[name].missing_requirement():
            pytest.skip(f"{name}: {reason}")
        shutil.copy(PROGRAMS / f"{name}.cu", corpus)
    out = root / "asm.jsonl"
    argv = ["dataset", "asm", str(corpus), "-o", str(out), "--offload-arch", ",".join(AMD), "-q"]
    assert main([*argv, "--summary", str(root / "summary.md")]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    return records, (root / "summary.md").read_text()


@pytest.fixture(scope="module")
def dataset(dataset_run: tuple[list[dict[str, Any]], str]) -> list[dict[str, Any]]:
    return dataset_run[0]


def test_dataset_records_every_kernel_on_every_target(dataset: list[dict[str, Any]]) -> None:
    by_file: dict[str, list[dict[str, Any]]] = {}
    for record in dataset:
        by_file.setdefault(record["source"], []).append(record)
    assert sorted(by_file) == [f"{n}.cu" for n in DATASET_FIXTURES]
    for name, records in by_file.items():
        cuda = (PROGRAMS / name).read_text()
        declared = set(re.findall(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)",
                                  cuda))  # fmt: skip
        found = {re.sub(r"^void |[<(].*$", "", r["demangled"]) for r in records}
        assert found == declared, name
        for record in records:
            assert record["cuda"] == cuda
            assert "hip" in record["hip"].lower() and record["hip"] != cuda
            assert record["id"] == f"{name}::{record['kernel']}"
            assert list(record["sass"]) == ["sm_90"]
            assert list(record["amdgpu"]) == AMD
            assert record["meta"]["missing"] == {}
            assert "EXIT" in record["sass"]["sm_90"]
            for arch, text in record["amdgpu"].items():
                assert text.rstrip().endswith("s_endpgm"), (name, arch)
            assert set(record["meta"]["tools"]) == set(ALL)
            assert set(record["meta"]["resources"]) == set(ALL)
            assert record["meta"]["archs"] == {"nvidia": ["sm_90"], "amd": AMD}


def test_dataset_warp_code_is_wave32_or_wave64(dataset: list[dict[str, Any]]) -> None:
    record = next(r for r in dataset if r["source"] == "b01_warp_reduce_sum.cu")
    waves = {a: record["meta"]["resources"][a]["wave"] for a in AMD}
    assert waves == {a: AMD_ARCHS[a].wave for a in AMD}
    assert "SHFL" in record["sass"]["sm_90"]
    assert record["meta"]["resources"]["sm_90"]["instructions"]["cross_lane"] >= 1
    for arch in AMD:
        counts = record["meta"]["resources"][arch]["instructions"]
        assert counts["cross_lane"] >= 1, arch  # the shuffles became ds_bpermute or DPP


def test_dataset_summary_counts_every_target(
    dataset_run: tuple[list[dict[str, Any]], str],
) -> None:
    dataset, summary = dataset_run
    assert f"{len(dataset)} kernel record(s) from 2 of 2 file(s)" in summary
    for target in ALL:
        row = next(ln for ln in summary.splitlines() if ln.startswith(f"| {target} |"))
        assert row.split("|")[2].strip() == str(len(dataset)), row
