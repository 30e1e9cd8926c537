"""``cass bench`` on a directory of programs: discovery, compile rate, reports."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from cass_build.cli import main

needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")

GOOD = """\
#include <cstdio>
#include <cuda_runtime.h>
#include "twice.cuh"

int main() {
  int *d, h[64];
  cudaMalloc(&d, sizeof h);
  twice<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  unsigned sum = 0;
  for (int i = 0; i < 64; ++i) sum = sum * 31 + h[i];
  printf("VERDICT: PASS checksum=%08x\\n", sum);
  return 0;
}
"""
TWICE = """\
#pragma once
__global__ void twice(int *p) { p[threadIdx.x] = 2 * threadIdx.x; }
"""
PTX = """\
#include <cstdio>
__global__ void lane(unsigned *p) {
  unsigned id = threadIdx.x;
  asm volatile("brkpt;" ::: "memory");
  p[threadIdx.x] = id;
}
int main() { printf("VERDICT: PASS checksum=00000000\\n"); return 0; }
"""
BLAS = """\
#include <cublas_v2.h>
int main() { cublasHandle_t h; cublasCreate(&h); cublasDestroy(h); return 0; }
"""


def program(root: Path, name: str, source: str, **manifest: object) -> None:
    d = root / name
    d.mkdir(parents=True)
    (d / "main.cu").write_text(source)
    fields = {"domain": "basic-vector", "hazards": [], **manifest}
    (d / "manifest.toml").write_text(
        "\n".join(f"{k} = {json.dumps(v)}" for k, v in fields.items()) + "\n"
    )


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_bench_scores_compile_rate_and_writes_reports(tmp_path: Path) -> None:
    root = tmp_path / "programs"
    program(root, "basic_twice", GOOD)
    (root / "basic_twice" / "twice.cuh").write_text(TWICE)
    program(root, "basic_ptx", PTX, hazards=["inline-ptx"])
    program(root, "linalg_blas", BLAS, domain="linear-algebra", libs=["cublas"])
    err = io.StringIO()
    code = main(
        [
            "bench",
            str(root),
            "--out",
            str(tmp_path / "reports"),
            "--offload-arch",
            "gfx90a",
            "--no-gpu",
            "-j",
            "2",
        ],
        err=err,
    )
    assert code == 0, err.getvalue()
    doc = json.loads((tmp_path / "reports" / "programs.json").read_text())
    rows = {r["program"]: r for r in doc["rows"]}
    assert rows["basic_twice"]["compiled"] is True
    assert rows["basic_ptx"]["compiled"] is False
    # PTX is not AMD assembly: the assembler rejects it at its line in main.cu.
    ptx_note = rows["basic_ptx"]["compile_note"]
    assert (
        ptx_note == f"{(root / 'basic_ptx' / 'main.cu').resolve()}:4:16: error: invalid instruction"
    )
    # hipBLAS is not installable on this machine: not counted, and said why.
    if not Path("/usr/include/hipblas/hipblas.h").exists():
        assert rows["linalg_blas"]["compiled"] is None
        assert rows["linalg_blas"]["compile_note"] == "hipblas/hipblas.h is not installed here"
    totals = doc["totals"]["rules"]
    assert (totals["programs"], totals["compiled"]) == (3, 1)
    assert doc["per_hazard"]["rules"]["inline-ptx"]["compiled"] == 0
    assert doc["per_domain"]["rules"]["basic-vector"]["programs"] == 2
    md = (tmp_path / "reports" / "programs.md").read_text()
    assert md.startswith("# cass bench: programs\n\nCommand: `cass ")
    assert "| basic_ptx | basic-vector | rules | **no** |" in md


def test_bench_rejects_bad_layouts(tmp_path: Path) -> None:
    err = io.StringIO()
    assert main(["bench", str(tmp_path / "none")], err=err) == 2
    assert err.getvalue().startswith(f"cass: error: {tmp_path / 'none'}: no such directory")
    d = tmp_path / "p" / "x"
    d.mkdir(parents=True)
    (d / "main.cu").write_text("int main() {}\n")
    (d / "manifest.toml").write_text('domian = "typo"\n')
    err = io.StringIO()
    assert main(["bench", str(tmp_path / "p"), "--no-gpu"], err=err) == 2
    assert (
        err.getvalue().splitlines()[0]
        == f"cass: error: {d / 'manifest.toml'}: unknown key(s) domian"
    )


@needs_hipcc
@pytest.mark.usefixtures("cache_dir")
def test_split_run_keeps_translations_and_merges_compile_columns(tmp_path: Path) -> None:
    """A GPU machine without hipcc runs what a machine with CASS translated and compiled."""
    root = tmp_path / "programs"
    program(root, "basic_twice", GOOD)
    (root / "basic_twice" / "twice.cuh").write_text(TWICE)
    program(root, "basic_ptx", PTX, hazards=["inline-ptx"])
    kept = tmp_path / "kept"
    args = ["bench", str(root), "--offload-arch", "gfx90a", "--no-gpu", "-j", "1"]
    assert main([*args, "--out", str(tmp_path / "a"), "--keep", str(kept)], err=io.StringIO()) == 0
    assert (kept / "rules" / "basic_twice" / "main.hip").is_file()
    assert (kept / "rules" / "basic_twice" / "twice.cuh").read_text() == TWICE
    code = main(
        [
            *args,
            "--out",
            str(tmp_path / "b"),
            "--translations",
            str(kept),
            "--compile-report",
            str(tmp_path / "a" / "programs.json"),
        ],
        err=io.StringIO(),
    )
    assert code == 0
    first = json.loads((tmp_path / "a" / "programs.json").read_text())["rows"]
    second = json.loads((tmp_path / "b" / "programs.json").read_text())["rows"]
    columns = ("program", "strategy", "compiled", "compile_note", "translated")
    assert [[r[c] for c in columns] for r in second] == [[r[c] for c in columns] for r in first]


# --- the resource column (cass bench --resources) ------------------------------------------

SMEM48K = """\
#include <cstdio>
#include <cuda_runtime.h>

// 12288 floats: 48 KiB of static shared memory. At 256 threads sm_90 holds 4 such blocks
// (32 of 64 warps, 50%), a 64 KiB CDNA CU one workgroup (1 of 8 waves, 12.5%).
__global__ void smem48k(float *out) {
  __shared__ float tile[12288];
  for (int i = threadIdx.x; i < 12288; i += blockDim.x) tile[i] = out[i];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 7) % 12288];
}

int main() {
  float *d;
  cudaMalloc(&d, 12288 * sizeof(float));
  cudaMemset(d, 0, 12288 * sizeof(float));
  smem48k<<<1, 256>>>(d);
  cudaDeviceSynchronize();
  printf("VERDICT: PASS checksum=00000000\\n");
  return 0;
}
"""


def _needs_resource_tools() -> str | None:
    import importlib.util

    from cass_build.pipeline.toolchain import find_nvcc

    if shutil.which("hipcc") is None:
        return "hipcc is not installed"
    if find_nvcc() is None:
        return "nvcc is not installed (the sm_90 reference)"
    if importlib.util.find_spec("llvmlite") is None:
        return "llvmlite is not installed (gfx942): pip install 'cass-build[asm]'"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_needs_resource_tools() is not None, reason=str(_needs_resource_tools()))
@pytest.mark.usefixtures("cache_dir")
def test_resource_column_survives_the_split(tmp_path: Path) -> None:
    """Figures computed in the compile phase reach the GPU machine's report through
    --compile-report, which has no hipcc to compute them."""
    root = tmp_path / "programs"
    program(root, "smem_48k", SMEM48K)
    program(root, "basic_ptx", PTX, hazards=["inline-ptx"])
    kept = tmp_path / "kept"
    args = ["bench", str(root), "--offload-arch", "gfx90a", "--no-gpu", "-j", "2"]
    err = io.StringIO()
    first = [*args, "--out", str(tmp_path / "a"), "--keep", str(kept)]
    assert main([*first, "--resources", "sm_90,gfx90a,gfx942"], err=err) == 0, err.getvalue()
    doc = json.loads((tmp_path / "a" / "programs.json").read_text())
    assert doc["resources"] == {
        "reference": "sm_90",
        "amd": ["gfx90a", "gfx942"],
        "block": 256,
        "flag_ratio": 0.5,
    }
    rows = {r["program"]: r for r in doc["rows"]}
    found = rows["smem_48k"]["resources"]
    assert found["errors"] == {}
    assert found["targets"]["sm_90"]["_Z7smem48kPf"]["shared"] == 49152
    for arch in ("gfx90a", "gfx942"):
        assert found["targets"][arch]["_Z7smem48kPf"]["lds"] == 49152, arch
    worst = found["worst"]
    assert (worst["ratio"], worst["amd"], worst["nvidia"]) == (0.25, 0.125, 0.5)
    assert (worst["target"], worst["kernel"], worst["flagged"]) == ("gfx90a", "_Z7smem48kPf", True)
    assert worst["reasons"][0].startswith("LDS limit: 49152 B per workgroup lets 1 workgroup(s)")
    assert sorted(f["target"] for f in found["flags"]) == ["gfx90a", "gfx942"]
    # Inline PTX does not compile for AMD: no figures, the compile column says why.
    assert rows["basic_ptx"]["compiled"] is False and "resources" not in rows["basic_ptx"]
    md = (tmp_path / "a" / "programs.md").read_text()
    assert "## Occupancy: AMD against NVIDIA" in md
    assert "| rules | 1 | 1 | 1 | 1 | 0.25 |" in md
    cell = "| **0.25** smem48k on gfx90a: LDS limit: 49152 B per workgroup lets 1 workgroup(s)"
    assert cell in md

    code = main(
        [*args, "--out", str(tmp_path / "b"), "--translations", str(kept),
         "--compile-report", str(tmp_path / "a" / "programs.json")],
        err=io.StringIO(),
    )  # fmt: skip
    assert code == 0
    second = json.loads((tmp_path / "b" / "programs.json").read_text())
    assert second["resources"] == doc["resources"]
    assert [r.get("resources") for r in second["rows"]] == [r.get("resources") for r in doc["rows"]]
    assert cell in (tmp_path / "b" / "programs.md").read_text()


def test_resources_without_hipcc_is_one_line(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    root = tmp_path / "programs"
    program(root, "basic_twice", GOOD)
    done = subprocess.run(
        [sys.executable, "-m", "cass_build", "bench", str(root), "--no-gpu", "--resources",
         "--out", str(tmp_path / "out")],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "CASS_HIPCC": str(tmp_path / "no-hipcc"),
             "CASS_ROCM_PATH": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "cass: error: cass bench --resources: no HIP toolchain found (hipcc)"
    assert "--compile-report" in lines[1]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("targets", "first"),
    [
        ("gfx9999", "cass: error: cass bench --resources: 'gfx9999' is not an AMD target"),
        ("sm_90,sm_80,gfx942", "cass: error: cass bench --resources sm_90,sm_80,gfx942: name one"),
        ("sm_90", "cass: error: cass bench --resources sm_90: name one NVIDIA reference and"),
    ],
)
def test_resources_bad_targets_are_one_line(tmp_path: Path, targets: str, first: str) -> None:
    root = tmp_path / "programs"
    program(root, "basic_twice", GOOD)
    err = io.StringIO()
    assert main(["bench", str(root), "--no-gpu", "--resources", targets], err=err) == 2
    assert err.getvalue().splitlines()[0].startswith(first), err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_a_failed_comparison_keeps_what_each_side_printed() -> None:
    """The report's ``output`` of a failing row: stdout/stderr tails of both sides, a failed
    build's compiler output, nothing for streams that stayed empty."""
    from cass_build.runcheck.bench import OUTPUT_TAIL, _output_tails
    from cass_build.runcheck.compare import RunRecord

    class Failed:
        cuda = RunRecord("cuda", built=True, stdout="VERDICT: PASS x\n")
        hip = RunRecord("hip", built=True, stdout="VERDICT: FAIL\n", stderr="e" * 5000)

    tails = _output_tails(Failed())
    assert tails == {
        "cuda_stdout": "VERDICT: PASS x\n",
        "hip_stdout": "VERDICT: FAIL\n",
        "hip_stderr": "e" * OUTPUT_TAIL,
    }

    class Unbuilt:
        cuda = RunRecord("cuda", built=True)
        hip = RunRecord("hip", built=False, build_output="main.hip:3:1: error: poisoned")

    assert _output_tails(Unbuilt()) == {"hip_build": "main.hip:3:1: error: poisoned"}
