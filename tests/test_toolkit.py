"""The CUDA toolkit stand-in (cass_build/toolkit): generated files in step with the
tables, its headers under a real host compiler, its bin/nvcc launcher, and `cass env`."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build.cli.env import lines, variables
from cass_build.nvcc.libraries import driver_map
from cass_build.toolkit import CUDA_VERSION, root
from cass_build.toolkit.generate import generated_files, libraries, main
from tests.build_helpers import ROOT

TOOLKIT = ROOT / "cass_build" / "toolkit"
GXX = shutil.which("g++")
HIP_HEADERS = Path("/usr/include/hip/hip_runtime_api.h").is_file()
needs_host_hip = pytest.mark.skipif(
    GXX is None or not HIP_HEADERS, reason="needs g++ and HIP's headers in /usr/include"
)


def test_generated_files_match_the_tables() -> None:
    """The committed include/, lib64/ and version files are what the generator writes
    from today's tables (run python -m cass_build.toolkit.generate after a table edit)."""
    files = generated_files()
    stale = [p for p, text in files.items() if (TOOLKIT / p).read_text(encoding="utf-8") != text]
    assert not stale, f"out of date: {stale[:5]}; run python -m cass_build.toolkit.generate"
    assert main(["--check"]) == 0


def test_check_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cass_build.toolkit import generate

    copy = tmp_path / "toolkit"
    shutil.copytree(TOOLKIT, copy, ignore=shutil.ignore_patterns("__pycache__", ".python"))
    (copy / "include" / "cuda_runtime.h").write_text("/* edited */\n")
    (copy / "lib64" / "libstray.so").write_text("INPUT(-lc)\n")
    monkeypatch.setattr(generate, "toolkit_dir", lambda: copy)
    assert generate.main(["--check"]) == 1
    assert generate.main([]) == 0
    assert generate.main(["--check"]) == 0
    assert not (copy / "lib64" / "libstray.so").exists()


def test_every_runtime_function_of_the_tables_is_mapped() -> None:
    from cass_build.rules.tables import load_tables

    text = generated_files()["include/cass_toolkit/runtime.h"]
    (runtime,) = (f for f in load_tables() if f.name == "runtime")
    plain = [
        r
        for r in runtime.rows
        if r.kind == "function" and r.status == "supported" and r.since is None and r.hip
    ]
    assert plain
    for row in plain:
        assert f"#define {row.cuda} {row.hip}\n" in text


def test_layout_findcudatoolkit_probes() -> None:
    """What CMake's FindCUDAToolkit and FindCUDA look for is there."""
    top = root()
    for path in (
        "bin/nvcc",
        "include/cuda_runtime.h",
        "include/cublas_v2.h",
        "include/device_functions.h",
        "lib64/libcudart.so",
        "lib64/libcudart_static.a",
        "lib64/libcuda.so",
        "lib64/libcublas.so",
        "lib64/libcurand.so",
        "lib64/libcufft.so",
        "lib64/libcusparse.so",
        "lib64/libcudadevrt.a",
        "nvvm/libdevice",
    ):
        assert (top / path).exists(), path
    version = ".".join(map(str, CUDA_VERSION))
    assert (top / "version.txt").read_text() == f"CUDA Version {version}\n"
    assert f'"version": "{version}"' in (top / "version.json").read_text()
    assert (top / "bin" / "nvcc").stat().st_mode & stat.S_IXUSR


def test_ld_scripts_name_the_hip_libraries() -> None:
    by_name = {lib.cuda: lib for lib in libraries()}
    assert by_name["cudart"].stand_in == ("amdhip64",)
    assert by_name["cublas"].stand_in == ("hipblas",)
    text = (root() / "lib64" / "libcusparse.so").read_text()
    assert "INPUT(-lhipsparse)" in text


def test_one_library_table_feeds_both_links() -> None:
    """data/nvcc/libraries.toml: the stand-in's ld scripts and the driver's -l mapping
    are its two columns, so they cannot disagree on which HIP library a CUDA one is."""
    rows = libraries()
    scripts = {p.name for p in (root() / "lib64").iterdir() if p.is_file()}
    expected = set()
    for lib in rows:
        if lib.stand_in is None:
            assert f"lib{lib.cuda}.so" not in scripts
            continue
        # The driver links what the script names, or nothing where hipcc links it anyway.
        assert lib.driver in ("", *lib.stand_in), lib.cuda
        expected.add(f"lib{lib.cuda}.a" if lib.static_only else f"lib{lib.cuda}.so")
        if lib.static:
            expected.add(f"lib{lib.cuda}_static.a")
    assert scripts == expected
    mapped = driver_map()
    assert mapped["cublas"] == mapped["cublas_static"] == "hipblas"
    assert mapped["cudart"] == mapped["cudart_static"] == ""  # hipcc links amdhip64
    assert mapped["nccl"] == "rccl" and "libnccl.so" not in scripts  # not a toolkit library


@needs_host_hip
def test_host_program_calls_the_runtime_and_links_hip(tmp_path: Path) -> None:
    """A .cpp built by g++ against the stand-in: CUDA names compile to HIP calls, the
    guard and version macros helper headers test are defined, -lcudart links HIP."""
    assert GXX is not None
    src = tmp_path / "host.cpp"
    src.write_text(
        "#include <cuda_runtime.h>\n"
        "#include <curand.h>\n"
        "#include <cusparse.h>\n"
        "#include <cstdio>\n"
        "#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__) || !defined(CURAND_H_)\n"
        "#error guard macros missing\n"
        "#endif\n"
        'static_assert(CUDART_VERSION == 12080, "CUDART_VERSION");\n'
        'static_assert(sizeof(cudaStream_t) == sizeof(hipStream_t), "");\n'
        "int main() {\n"
        "  float h = 1.0f, *d = nullptr;\n"
        "  cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&d), sizeof h);\n"
        "  if (e == cudaSuccess) e = cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);\n"
        "  curandGenerator_t gen;\n"
        "  if (e == cudaSuccess) curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT);\n"
        '  std::printf("%s\\n", cudaGetErrorName(e));\n'
        "  return 0;\n"
        "}\n"
    )
    top = root()
    exe = tmp_path / "host"
    argv = [GXX, "-isystem", str(top / "include"), str(src), f"-L{top / 'lib64'}"]
    argv += ["-lcudart", "-lcurand", "-lcusparse", "-o", str(exe)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, check=True).stdout
    assert "libamdhip64" in ldd and "libhiprand" in ldd
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert out.stdout.startswith("hip"), out.stdout + out.stderr  # a HIP error name, or hipSuccess


# Host code naming each CUDA name family the stand-in maps to a CASS-supplied HIP name
# (<cass/fp16.h>, <cass/bf16.h>, <cass/runtime.h>): a helper's device function, the bf16
# pair type and its packing on the host, a runtime function's address.
_CASS_NAMES_HOST = """\
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
__device__ inline __half2 clamp2(__half2 v, __half2 lo, __half2 hi) {
  return __hmin2(__hmax2(v, lo), hi);
}
int main() {
  __nv_bfloat162 pair = __floats2bfloat162_rn(1.5f, -2.25f);
  nv_bfloat162 same = __float2bfloat162_rn(3.0f);
  __nv_bfloat162 swapped = make_bfloat162(pair.y, pair.x);
  cudaError_t (*launch)(cudaStream_t, cudaHostFn_t, void*) = &cudaLaunchHostFunc;
  std::printf("%04x %04x %04x %04x %d\\n", pair.x.data, pair.y.data, same.y.data,
              swapped.x.data, launch != nullptr);
  return 0;
}
"""


def test_every_cass_name_the_stand_in_maps_has_its_header_included() -> None:
    headers = {"fp16": "fp16.h", "bf16": "bf16.h", "rt": "runtime.h"}
    seen = 0
    for path in sorted((TOOLKIT / "include" / "cass_toolkit").glob("*.h")):
        text = path.read_text()
        for family, header in headers.items():
            if f" __cass_{family}_" in text:
                seen += 1
                assert f'#include "../../../include/cass/{header}"' in text, path.name
                assert (
                    TOOLKIT / "include" / "cass_toolkit" / "../../../include/cass" / header
                ).is_file()
    assert seen >= 3  # fp16, bf16 and runtime maps each name one


@needs_host_hip
@pytest.mark.parametrize("compiler", ["g++", "hipcc"])
def test_host_code_uses_the_names_cass_headers_supply(tmp_path: Path, compiler: str) -> None:
    """Through the stand-in, host code compiles, links and runs with the CUDA names whose
    HIP names come from CASS's own headers, with the host compiler and with hipcc."""
    tool = shutil.which(compiler)
    if tool is None:
        pytest.skip(f"needs {compiler}")
    src = tmp_path / "host.cpp"
    src.write_text(_CASS_NAMES_HOST)
    top = root()
    exe = tmp_path / "host"
    argv = [tool, "-std=c++17", "-Wall", "-Werror"]
    if (
        compiler == "hipcc"
    ):  # as cass nvcc compiles a host input; the arch keeps it off the GPU probe
        argv += ["-x", "c++", "--offload-arch=gfx90a"]
    argv += ["-isystem", str(top / "include"), str(src), f"-L{top / 'lib64'}", "-lcudart"]
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    proc = subprocess.run(
        [*argv, "-o", str(exe)], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    # bfloat16 bits of 1.5, -2.25, 3.0 (rounded on the host) and the swapped pair's low half.
    assert out.stdout.split() == ["3fc0", "c010", "4040", "c010", "1"], out.stdout + out.stderr


@needs_host_hip
def test_missing_hip_library_header_names_the_package(tmp_path: Path) -> None:
    assert GXX is not None
    if Path("/usr/include/hipblas/hipblas.h").exists() or Path("/usr/include/hipblas.h").exists():
        pytest.skip("hipBLAS is installed here")
    src = tmp_path / "blas.cpp"
    src.write_text("#include <cublas_v2.h>\n")
    argv = [GXX, "-fsyntax-only", "-isystem", str(root() / "include"), str(src)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "libhipblas-dev" in proc.stderr and "cublas" in proc.stderr


def test_unsupported_header_is_one_clear_error(tmp_path: Path) -> None:
    text = (root() / "include" / "cublasXt.h").read_text()
    assert '#error "cublasXt.h: CASS has no HIP counterpart' in text


def _bare_env() -> dict[str, str]:
    """No activated environment: PATH without the venv's bin."""
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(d for d in os.environ["PATH"].split(os.pathsep) if d != venv_bin)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = path
    return env


def test_bin_nvcc_runs_the_driver_without_an_activated_venv(tmp_path: Path) -> None:
    nvcc = root() / "bin" / "nvcc"  # root() records this interpreter where the layout can't
    proc = subprocess.run(
        [str(nvcc), "--version"],
        capture_output=True,
        text=True,
        env=_bare_env(),
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "V12.8.0" in proc.stdout


def test_cass_env_puts_the_stand_in_first(tmp_path: Path) -> None:
    cass = [sys.executable, "-m", "cass_build", "env"]
    script = f'eval "$({" ".join(cass)})"; command -v nvcc; echo "$CUDA_HOME"; echo "$CUDACXX"'
    proc = subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, env=_bare_env(), check=False
    )
    assert proc.returncode == 0, proc.stderr
    found, home, cudacxx = proc.stdout.split()
    top = root()
    assert found == cudacxx == str(top / "bin" / "nvcc")
    assert home == str(top)


def test_cass_env_fish_and_quoting(tmp_path: Path) -> None:
    odd = tmp_path / "it's here"
    fish = lines(odd, "fish")
    assert fish[-1] == f"set -gx PATH '{odd}/bin' $PATH".replace("'s", "\\'s", 1)
    sh = lines(odd, "sh")
    proc = subprocess.run(
        ["sh", "-c", "\n".join(sh) + '\nprintf %s "$CUDA_PATH"'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert proc.stdout == str(odd)
    assert set(variables(odd)) >= {"CUDA_PATH", "CUDA_HOME", "CUDAToolkit_ROOT", "CUDACXX"}
