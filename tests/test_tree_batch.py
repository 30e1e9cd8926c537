"""The batch path of ``cass translate DIR --out-dir OUT --verify none`` (cli/tree_batch.py):
the core reads, translates and writes on its own threads, and every file's result,
output, message and exit status is the per-file pipeline's."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build import _core
from cass_build.cli.tree_batch import Batch
from cass_build.pipeline import options_from_env, translate_file
from cass_build.rules import core_options, core_table
from cass_build.rules.diagnostics import SEVERITIES, Diagnostic
from cass_build.settings import Settings

KERNEL = b"__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"


def _tree(root: Path) -> Path:
    src = root / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_bytes(b'#include "common.cuh"\n#include "sub/b.inc"\n' + KERNEL)
    (src / "common.cuh").write_bytes(b'#include "sub/deep.h"\ncudaStream_t s;\n')
    (src / "sub" / "deep.h").write_bytes(b"#include <cuda_runtime.h>\ncudaError_t e;\n")
    (src / "sub" / "b.inc").write_bytes(b"cudaEvent_t ev; // only reached through a.cu\n")
    (src / "sub" / "c.cu").write_bytes(b'#include "../a.cu"\n  #  include "x.cu"\n' + KERNEL)
    (src / "sub" / "x.cu").write_bytes(b"#include <hip/hip_runtime.h>\n" + KERNEL)
    (src / "bom.cu").write_bytes(b"\xef\xbb\xbf" + KERNEL)
    (src / "empty.cu").write_bytes(b" \n\t\n")
    (src / "latin1.cu").write_bytes(b"// caf\xe9\n" + KERNEL)
    (src / "binary.cu").write_bytes(b"\x7fELF\0\0")
    (src / "api.cpp").write_bytes(b"#include <cuda.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    (src / "unknown.cu").write_bytes(b"void g() { cudaNotAnApi(1); __shfl_down_sync(0, ); }\n")
    return src


def _options(src: Path, out: Path) -> object:
    settings = Settings(rename_cu_includes=True, hip_version=(6, 2))
    return options_from_env(
        settings=settings, verify="none", use_cache=False, mirror=((src.resolve(), out.resolve()),)
    )


def _same(a: object, b: object) -> None:
    from cass_build.pipeline import Result

    assert isinstance(a, Result) and isinstance(b, Result), (a, b)
    assert a.data == b.data
    assert a.diagnostics == b.diagnostics
    assert a.stats == b.stats
    assert a.headers == b.headers
    assert a.depends == b.depends
    assert [x.as_dict() | {"seconds": 0} for x in a.attempts] == [
        x.as_dict() | {"seconds": 0} for x in b.attempts
    ]
    assert (a.path, a.strategy, a.level, a.verified) == (b.path, b.strategy, b.level, b.verified)


@pytest.mark.parametrize("threads", [1, 3])
def test_batch_results_are_the_pipelines(tmp_path: Path, threads: int) -> None:
    src = _tree(tmp_path)
    options = _options(src, tmp_path / "out")
    sources = sorted(p for p in src.rglob("*") if p.is_file())
    batch = Batch(sources, options, threads)  # type: ignore[arg-type]
    for source, got in zip(sources, batch.results, strict=True):
        try:
            want: object = translate_file(source, options)  # type: ignore[arg-type]
        except Exception as exc:
            want = exc
        if isinstance(want, Exception):
            assert type(got) is type(want) and str(got) == str(want), source
        else:
            _same(got, want)
    by_name = {Path(str(r.path)).name: r for r in batch.results if not isinstance(r, Exception)}
    assert by_name["a.cu"].data.startswith(b"#include <hip/hip_runtime.h>\n#line 1\n")
    assert len(by_name["a.cu"].headers) == 3  # common.cuh, sub/deep.h, sub/b.inc
    assert isinstance(batch.results[sources.index(src / "binary.cu")], Exception)


def test_core_reads_what_python_reads(tmp_path: Path) -> None:
    # The core's UTF-8, NUL and size checks agree with _files.check_source on random bytes.
    rng = random.Random(7)
    alphabet = [b"a", b"\n", b"\0", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80"]
    alphabet += [
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"\xf4\x90\x80\x80",
        b"\xe0\x80\x80",
        b"\xff",
        b"\x80",
        b"\xc3",
    ]
    paths, datas = [], []
    for k in range(400):
        data = b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        path = tmp_path / f"f{k}.cu"
        path.write_bytes(data)
        paths.append(str(path))
        datas.append(data)
    found = _core.translate_files(
        paths, [False] * len(paths), core_table(), core_options(Settings()), 10, 2,
        Diagnostic, SEVERITIES,
    )  # fmt: skip
    for data, item in zip(datas, found, strict=True):
        try:
            data.decode("utf-8")
            readable = b"\0" not in data and len(data) <= 10
        except UnicodeDecodeError:
            readable = False
        assert (item is not None) == readable, data


def _cass(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CASS_CACHE_DIR": str(cwd / "cache")}
    argv = [sys.executable, "-m", "cass_build", "translate", *args]
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_tree_run_writes_outputs_and_keeps_unchanged_ones(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    first = _cass("src", "--out-dir", "out", "--verify", "none", cwd=tmp_path)
    assert first.returncode == 2, first.stderr  # binary.cu and latin1.cu are input errors
    assert "src/binary.cu: binary file (NUL byte at offset 4)" in first.stderr
    assert "src/latin1.cu:1:7: not UTF-8 text (byte 0xe9)" in first.stderr
    out = tmp_path / "out"
    assert (out / "sub" / "b.inc").read_bytes() == (src / "sub" / "b.inc").read_bytes().replace(
        b"cudaEvent_t", b"hipEvent_t"
    )
    assert (out / "sub" / "x.hip").is_file() and not (out / "binary.hip").exists()
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    again = _cass("src", "--out-dir", "out", "--verify", "none", cwd=tmp_path)
    assert (again.returncode, again.stderr) == (first.returncode, first.stderr)
    assert stamps == {p: p.stat().st_mtime_ns for p in out.rglob("*")}  # nothing rewritten


def test_tree_run_refuses_an_output_that_is_an_input(tmp_path: Path) -> None:
    src = _tree(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "api.cpp").symlink_to(src / "api.cpp")  # the output of api.cpp is api.cpp itself
    before = (src / "api.cpp").read_bytes()
    done = _cass("src", "--out-dir", "out", "--verify", "none", "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "out/api.cpp: refusing to overwrite an input file" in done.stderr
    assert (src / "api.cpp").read_bytes() == before
    assert (out / "a.hip").is_file()  # the rest of the tree is still written
