"""A compile check that fails in a local header nothing translated names ``--mirror``.

``cass translate src/reduce.cu -o m/src/reduce.hip`` on a project whose source includes
``../common/warp_util.cuh`` writes only the source: the header lies outside the output
tree, so the check compiles it as CUDA and fails there. The hint must say so and give the
``--mirror`` that fixes it; that command must then translate both files, and hipcc must
build the result. Real hipcc throughout.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cass_build import include_dir
from cass_build.cli import main
from cass_build.pipeline.failures import (
    UntranslatedHeader,
    mirror_hint,
    untranslated_header,
)

needs_hipcc = pytest.mark.skipif(
    shutil.which("hipcc") is None, reason="hipcc is not installed (.ci/setup)"
)

HEADER = """#pragma once
// The sum over a warp of 32 lanes.
__device__ inline int warp_sum(int v) {
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}
"""

SOURCE = """#include <cstdio>
#include <cuda_runtime.h>
#include "../common/warp_util.cuh"

__global__ void reduce(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = warp_sum(i < n ? in[i] : 0);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}

int main() {
  int *in, *out;
  if (cudaMalloc(&in, 1024 * sizeof(int)) != cudaSuccess) return 1;
  if (cudaMalloc(&out, sizeof(int)) != cudaSuccess) return 1;
  reduce<<<4, 256>>>(in, out, 1024);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""


def project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "common").mkdir()
    (root / "common" / "warp_util.cuh").write_text(HEADER)
    (root / "src" / "reduce.cu").write_text(SOURCE)
    return root


RULES = ("--strategy", "rules", "--verify", "compile")


def cass(*args: object) -> tuple[int, str]:
    err = io.StringIO()
    code = main([str(a) for a in args], err=err)
    return code, err.getvalue()


@needs_hipcc
def test_the_hint_names_the_mirror_that_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj")
    monkeypatch.chdir(root)
    code, err = cass("translate", "src/reduce.cu", "-o", "m/src/reduce.hip", *RULES)
    assert code == 1, err
    assert "warp_util.cuh:4:" in err and "[cass-verify-failed]" in err, err
    [hint] = [ln for ln in err.splitlines() if ln.startswith("cass: hint: ")]
    header = (root / "common" / "warp_util.cuh").resolve()
    mirror = f"{root.resolve()}={(root / 'm').resolve()}"
    assert f"{header} is a local header outside the output tree" in hint, hint
    assert f"--mirror {mirror} " in hint, hint
    assert "fix the CUDA source" not in hint
    assert not (root / "m" / "src" / "reduce.hip").exists()
    # The failure is cached with what the hint needs: the same inputs fail the same way.
    again, err = cass("translate", "src/reduce.cu", "-o", "m/src/reduce.hip", *RULES)
    assert again == 1 and hint in err.splitlines(), err

    # The command the hint gives translates the header too, and the output builds.
    out = ("-o", "m/src/reduce.hip")
    code, err = cass("translate", "src/reduce.cu", *out, *RULES, "--mirror", mirror)
    assert code == 0, err
    translated = (root / "m" / "common" / "warp_util.cuh").read_text()
    assert "__shfl_down_sync" not in translated.replace("__cass_shfl_down_sync", "")
    assert not (root / "m" / "src" / "reduce.unverified.hip").exists()
    exe = tmp_path / "reduce"
    build = subprocess.run(
        ["hipcc", "--offload-arch=gfx90a", "-std=c++17", "-I", str(include_dir()),
         str(root / "m" / "src" / "reduce.hip"), "-o", str(exe)],
        capture_output=True, text=True, env={**os.environ, "HIP_PLATFORM": "amd"},
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    assert exe.is_file()


@needs_hipcc
def test_an_output_beside_the_source_gets_no_mirror_onto_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written next to its source, the output tree is the source tree: a concrete
    ``--mirror ROOT=ROOT`` would write the header's translation over the header."""
    root = project(tmp_path / "proj")
    monkeypatch.chdir(root)
    code, err = cass("translate", "src/reduce.cu", "-o", "src/reduce.hip", *RULES)
    assert code == 1, err
    [hint] = [ln for ln in err.splitlines() if ln.startswith("cass: hint: ")]
    assert f"--mirror {root.resolve()}=OUT_ROOT (the output tree's counterpart of" in hint, hint


def test_the_header_and_the_root_come_from_the_first_error(tmp_path: Path) -> None:
    root = project(tmp_path / "proj")
    src = root / "src" / "reduce.cu"
    header = root / "common" / "warp_util.cuh"
    message = f"{root}/src/../common/warp_util.cuh:4:47: error: use of undeclared identifier"
    found = untranslated_header(message, src, [header])
    assert found == UntranslatedHeader(header, root.resolve(), 2)
    assert found.out_root(tmp_path / "out" / "src" / "reduce.hip") == (tmp_path / "out").resolve()
    assert found.out_root(root / "src" / "reduce.hip") is None  # the header's own tree
    assert found.out_root(Path("/reduce.hip")) is None  # no directory that far up
    assert "--mirror" in mirror_hint(found)
    # An error in the source itself, or in a header that was translated, names no mirror.
    assert untranslated_header(f"{src}:3:1: error: x", src, [header]) is None
    assert untranslated_header(message, src, []) is None
    assert untranslated_header("ld: cannot find -lfoo", src, [header]) is None
