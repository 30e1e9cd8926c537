"""Issue 18 tests 6c and 6f: unmodified CUDA build files (a Makefile, a setup.py that runs
nvcc itself) built for AMD through ``cass nvcc``, with the real nvcc out of reach: PATH
without it, CUDA_HOME/CUDA_PATH unset, /usr/local/cuda masked in a mount namespace.
The same trees still build with the real nvcc where it is installed."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.build_helpers import (
    CUDA_ROOT,
    HIPCC,
    NVCC,
    archs_in,
    build_env,
    can_mask_cuda,
    copy_example,
    ok,
    run,
    run_without_cuda,
    tool,
)

MAKE = tool("make")
ARCHS = {"gfx90a", "gfx1030"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(HIPCC is None, reason="hipcc is not installed"),
    pytest.mark.skipif(
        not can_mask_cuda(), reason="masking /usr/local/cuda needs root and unshare"
    ),
]


def _driver_bin(tmp_path: Path) -> Path:
    """A directory whose ``nvcc`` is the driver: what the stand-in's bin/ holds, here
    without it (so these tests need only this package)."""
    bin_dir = tmp_path / "cass-bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_text(f'#!/bin/sh\nCASS_NVCC="$0" exec {sys.executable} -m cass_build.nvcc "$@"\n')
    nvcc.chmod(0o755)
    return bin_dir


def _env(tmp_path: Path, **changes: str) -> dict[str, str]:
    return build_env(CASS_ARCHS="gfx90a;gfx1030", CASS_CACHE_DIR=str(tmp_path / "cass"), **changes)


def test_nvcc_is_out_of_reach(tmp_path: Path) -> None:
    proc = run_without_cuda(
        ["sh", "-c", "command -v nvcc; ls /usr/local/cuda"], tmp_path, _env(tmp_path)
    )
    assert proc.returncode == 0 and proc.stdout.strip() == ""


# -- (c) a Makefile: NVCC ?= nvcc, -arch=sm_80, -Xcompiler -fopenmp -----------------

needs_make = pytest.mark.skipif(MAKE is None, reason="make is not installed")


@needs_make
def test_makefile_builds_with_cass_nvcc(tmp_path: Path) -> None:
    tree = copy_example("zero_edit/make_openmp", tmp_path)
    before = sorted(p.name for p in tree.iterdir())
    cass = Path(sys.executable).parent / "cass"
    proc = run_without_cuda([str(MAKE), f"NVCC={cass} nvcc"], tree, _env(tmp_path))
    out = ok(proc)
    assert out.count("select no AMD target; building for gfx90a, gfx1030") == 2  # -c only
    assert archs_in(tree / "scale_omp") == ARCHS
    run_out = ok(run([str(tree / "scale_omp")], tree, _env(tmp_path)))
    assert "no CUDA device (OpenMP threads:" in run_out or run_out.startswith("ok:")
    built = {"main.o", "scale.o", "scale_omp"}
    assert sorted(p.name for p in tree.iterdir()) == sorted({*before, *built})


@needs_make
def test_makefile_builds_with_nvcc_on_path_being_the_driver(tmp_path: Path) -> None:
    """The stand-in's route: PATH starts with a bin/ whose nvcc is the driver."""
    tree = copy_example("zero_edit/make_openmp", tmp_path)
    env = _env(tmp_path)
    env["PATH"] = f"{_driver_bin(tmp_path)}:{env['PATH']}"
    ok(run_without_cuda([str(MAKE)], tree, env))
    assert archs_in(tree / "scale_omp") == ARCHS


@pytest.mark.skipif(NVCC is None, reason="the real nvcc is not installed")
def test_makefile_sources_still_compile_with_the_real_nvcc(tmp_path: Path) -> None:
    tree = copy_example("zero_edit/make_openmp", tmp_path)
    ok(run([str(MAKE or "make"), f"NVCC={NVCC}"], tree, build_env()))
    assert (tree / "scale_omp").is_file()


# -- (f) a setup.py that runs nvcc itself --------------------------------------------


def _cuda_home(tmp_path: Path) -> Path:
    """A CUDA_HOME with what setup.py uses: bin/nvcc (the driver) and lib64/libcudart.so
    (a linker script for the HIP runtime), as the stand-in toolkit provides them."""
    home = tmp_path / "cuda-home"
    (home / "lib64").mkdir(parents=True)
    shutil.copytree(_driver_bin(tmp_path), home / "bin")
    (home / "lib64" / "libcudart.so").write_text("INPUT(-lamdhip64)\n")
    return home


def _import_and_call(tree: Path, env: dict[str, str]) -> str:
    code = (
        "import scaler\n"
        "try:\n    print(scaler.scale([1.0, 2.0], 3.0))\n"
        "except RuntimeError as e:\n    print('RuntimeError:', e)\n"
    )
    return ok(run([sys.executable, "-c", code], tree, env)).strip()


@pytest.mark.parametrize("route", ["NVCC", "CUDA_HOME"])
def test_setup_py_calling_nvcc_builds_for_amd(tmp_path: Path, route: str) -> None:
    tree = copy_example("zero_edit/setup_py_nvcc", tmp_path)
    home = _cuda_home(tmp_path)
    env = _env(tmp_path)
    cass = Path(sys.executable).parent / "cass"
    if route == "NVCC":
        # CUDA_HOME still names the libraries; NVCC names the driver.
        env["NVCC"] = f"{cass} nvcc"
    build = [sys.executable, "setup.py", "-q", "build_ext", "--inplace"]
    proc = run_without_cuda(
        ["env", f"CUDA_HOME={home}", *(["NVCC=" + env["NVCC"]] if route == "NVCC" else []), *build],
        tree,
        env,
    )
    ok(proc)
    (module,) = tree.glob("scaler*.so")
    assert archs_in(module) == ARCHS
    result = _import_and_call(tree, env)
    assert result in ("[3.0, 6.0]", "RuntimeError: no CUDA device"), result


@pytest.mark.skipif(NVCC is None, reason="the real nvcc is not installed")
def test_setup_py_sources_still_compile_with_the_real_nvcc(tmp_path: Path) -> None:
    tree = copy_example("zero_edit/setup_py_nvcc", tmp_path)
    # The toolkit itself: /usr/local/bin/nvcc may be a shim into it.
    home = CUDA_ROOT if (CUDA_ROOT / "bin" / "nvcc").is_file() else Path(str(NVCC)).parent.parent
    env = build_env(CUDA_HOME=str(home))
    ok(run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], tree, env))
    assert list(tree.glob("scaler*.so"))
