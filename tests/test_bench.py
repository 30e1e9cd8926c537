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
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
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
def test_bench_scores_compile_rate_and_writes_reports(tmp_path: Path, cache_dir: Path) -> None:
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
def test_split_run_keeps_translations_and_merges_compile_columns(
    tmp_path: Path, cache_dir: Path
) -> None:
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
