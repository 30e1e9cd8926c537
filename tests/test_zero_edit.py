"""Zero-edit builds (issue 18, tests a, b, d, e): the unmodified CUDA projects in
examples/zero_edit build for AMD through CASS's CUDA toolkit stand-in.

Each build runs with real cmake, ninja and hipcc and with nvcc hidden from it: PATH
without it, CUDA_PATH/CUDA_HOME unset, and, inside a private mount namespace
(``unshare -m``, as root), an empty directory over /usr/local/cuda and /dev/null over
every nvcc on PATH. The stand-in comes from ``eval "$(cass env)"`` (the environment
route) or ``-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=.../zero_edit.cmake`` (the include
route). The same trees still build with the real nvcc when CASS's environment is absent.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.build_helpers import (
    ARCHS,
    CMAKE,
    HIPCC,
    NINJA,
    NVCC,
    OBJCOPY,
    ROOT,
    archs_in,
    build_env,
    cmake_dir,
    copy_example,
    fatbin_section,
    ok,
    require,
)

pytestmark = pytest.mark.slow

_CUDA_VARIABLES = ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT", "CUDACXX", "CUDAToolkit_ROOT", "NVCC")
_CUDA_DIRS = ("/usr/local/cuda",)


def _nvcc_programs(path: str) -> list[str]:
    found = []
    for directory in path.split(os.pathsep):
        candidate = Path(directory or ".", "nvcc")
        stand_in = "cass_build/toolkit/bin" in candidate.as_posix()
        if candidate.exists() and not stand_in and str(candidate) not in found:
            found.append(str(candidate))
    return found


def _masks() -> list[tuple[str, str]]:
    """(source, mount point) pairs that hide the CUDA toolkit."""
    empty = ROOT / "build" / "zero-edit-empty"
    empty.mkdir(parents=True, exist_ok=True)
    masks = []
    for name in _CUDA_DIRS:
        for directory in {Path(name), Path(name).resolve()}:
            if directory.is_dir():
                masks.append((str(empty), str(directory)))
    masks += [("/dev/null", nvcc) for nvcc in _nvcc_programs(os.environ.get("PATH", ""))]
    return masks


def _hidden_env() -> dict[str, str]:
    env = {k: v for k, v in build_env().items() if k not in _CUDA_VARIABLES}
    env["PATH"] = os.pathsep.join(
        d
        for d in env.get("PATH", "").split(os.pathsep)
        if d and not Path(d, "nvcc").exists() and "cass_build/toolkit" not in d
    )
    env["CASS_ARCHS"] = ";".join(ARCHS)
    return env


def _hidden(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``script`` (sh) with nvcc and the CUDA toolkit hidden, in a private mount namespace."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        pytest.skip("hiding /usr/local/cuda needs unshare -m as root")
    mounts = [f"mount --bind {shlex.quote(s)} {shlex.quote(t)}" for s, t in _masks()]
    return subprocess.run(
        [unshare, "-m", "sh", "-ec", "\n".join([*mounts, script])],
        cwd=cwd,
        env=_hidden_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=1500,
        check=False,
    )


def _env_route() -> str:
    """The environment route's shell line: the user's `eval "$(cass env)"`."""
    cass = shlex.quote(sys.executable)
    return f'eval "$({cass} -m cass_build env)"'


def _build(src: Path, build: Path, *defs: str, route: str = "env") -> str:
    require(cmake=CMAKE, ninja=NINJA, hipcc=HIPCC, objcopy=OBJCOPY)
    configure = [CMAKE or "cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", *defs]
    if route == "include":
        configure.append(f"-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES={cmake_dir()}/zero_edit.cmake")
    lines = [
        *([_env_route()] if route == "env" else []),
        # Nothing named nvcc but the stand-in's may answer.
        'case "$(command -v nvcc || true)" in ""|*/cass_build/toolkit/bin/nvcc) ;; '
        "*) echo nvcc not hidden: $(command -v nvcc); exit 97;; esac",
        "test ! -e /usr/local/cuda/bin/nvcc",
        shlex.join(configure),
        shlex.join([CMAKE or "cmake", "--build", str(build), "-j", "2"]),
    ]
    return ok(_hidden("\n".join(lines), src))


def _amd_archs(binary: Path) -> set[str]:
    return archs_in(binary)


def _hipblas_installed() -> bool:
    include = [Path("/usr/include"), Path("/opt/rocm/include")]
    return any(
        (d / "hipblas" / "hipblas.h").is_file() or (d / "hipblas.h").is_file() for d in include
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of examples/zero_edit: the projects and their shared ../common."""
    return copy_example("zero_edit", tmp_path_factory.mktemp("zero_edit"))


def _cache(build: Path) -> dict[str, str]:
    values = {}
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if "=" in line and ":" in line.split("=", 1)[0] and not line.startswith(("//", "#")):
            key, value = line.split("=", 1)
            values[key.split(":", 1)[0]] = value
    return values


def _stand_in() -> Path:
    from cass_build.toolkit import root

    return root()


def test_a_cudatoolkit_cublas_rdc_builds_for_amd(tree: Path) -> None:
    """(a) LANGUAGES CXX CUDA, find_package(CUDAToolkit), CUDA::cudart and CUDA::cublas,
    CUDA_ARCHITECTURES 70 80, separable compilation with the device function in
    another file."""
    build = tree / "build-a"
    with_cublas = "ON" if _hipblas_installed() else "OFF"
    _build(tree / "cublas_rdc", build, f"-DSAXPY_WITH_CUBLAS={with_cublas}")
    assert _amd_archs(build / "saxpy") >= set(ARCHS)
    cache = _cache(build)
    lib64 = _stand_in() / "lib64"
    # CUDA::cublas is the stand-in's, whose ld script names hipBLAS (Debian 13:
    # libhipblas-dev; not in Debian 12, so this machine links it only when installed).
    assert cache["CUDA_cublas_LIBRARY"] == str(lib64 / "libcublas.so")
    assert "INPUT(-lhipblas)" in (lib64 / "libcublas.so").read_text()
    assert cache["CUDA_cudart_LIBRARY"] == str(lib64 / "libcudart.so")


def test_b_guarded_helper_headers_in_a_sibling_directory(tree: Path) -> None:
    """(b) ../common/cuda_check.h defines checkCudaErrors only under __CUDA_RUNTIME_H__."""
    build = tree / "build-b"
    _build(tree / "helpers", build)
    assert _amd_archs(build / "vector_add") >= set(ARCHS)


def test_d_host_cpp_calls_the_runtime_through_the_stand_in(tree: Path) -> None:
    """(d) main.cpp, compiled by the C++ compiler, includes cuda_runtime.h and calls
    cudaMemcpy: the stand-in's header maps it to hipMemcpy, CUDA::cudart links HIP."""
    build = tree / "build-d"
    log = _build(tree / "host_runtime", build)
    assert _amd_archs(build / "host_scale") >= set(ARCHS)
    assert "/usr/local/cuda" not in log
    needed = ok(subprocess.run(["ldd", str(build / "host_scale")], capture_output=True, text=True))
    assert "libamdhip64" in needed


def test_d_include_route_without_cass_env(tree: Path) -> None:
    """The include route: the environment is left alone, zero_edit.cmake points CMake's
    CUDA compiler and CUDAToolkit at the stand-in."""
    build = tree / "build-d-include"
    _build(tree / "host_runtime", build, route="include")
    assert _amd_archs(build / "host_scale") >= set(ARCHS)
    cache = _cache(build)
    assert cache["CMAKE_CUDA_COMPILER"] == str(_stand_in() / "bin" / "nvcc")


def test_include_route_on_a_directory_configured_with_nvcc_says_nothing_is_for_amd(
    tmp_path: Path,
) -> None:
    """A build directory configured with the real nvcc keeps it in its cache, and the
    include route keeps cached values: configure said "CUDA builds for AMD" while the
    build ran NVIDIA's nvcc. Now it warns, naming the compiler and the cache to delete.
    (LANGUAGES NONE: the cached compiler is never run, so no CUDA toolkit is needed.)"""
    require(cmake=CMAKE)
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(switch LANGUAGES NONE)\n"
    )
    include = f"-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES={cmake_dir()}/zero_edit.cmake"
    nvidia = tmp_path / "cuda" / "bin" / "nvcc"  # what the first configure cached
    build = tmp_path / "build"
    first = [CMAKE or "cmake", "-S", str(src), "-B", str(build), f"-DCMAKE_CUDA_COMPILER={nvidia}"]
    ok(subprocess.run(first, capture_output=True, text=True, check=False, env=build_env()))
    again = [CMAKE or "cmake", "-S", str(src), "-B", str(build), include]
    proc = subprocess.run(again, capture_output=True, text=True, check=False, env=build_env())
    assert proc.returncode == 0, proc.stderr
    assert "CUDA builds for AMD" not in proc.stdout
    said = " ".join(proc.stderr.split())
    assert (
        f"CASS: zero_edit.cmake: CMAKE_CUDA_COMPILER is {nvidia}, kept from this build "
        "directory's cache (or given with -D), so it compiles the CUDA sources, not CASS: "
        f"nothing is built for AMD. Configure a new build directory (or delete "
        f"{build}/CMakeCache.txt) with zero_edit.cmake to build for AMD."
    ) in said, proc.stderr
    fresh = [CMAKE or "cmake", "-S", str(src), "-B", str(tmp_path / "fresh"), include]
    proc = subprocess.run(fresh, capture_output=True, text=True, check=False, env=build_env())
    assert proc.returncode == 0 and "CMake Warning" not in proc.stderr, proc.stderr
    assert f"-- CASS: CUDA builds for AMD through {_stand_in()}" in proc.stdout
    assert _cache(tmp_path / "fresh")["CMAKE_CUDA_COMPILER"] == str(_stand_in() / "bin" / "nvcc")


def test_e_legacy_findcuda(tree: Path) -> None:
    """(e) find_package(CUDA) with cuda_add_library and cuda_add_executable."""
    build = tree / "build-e"
    _build(tree / "legacy_findcuda", build)
    assert _amd_archs(build / "legacy_histogram") >= set(ARCHS)
    cache = _cache(build)
    assert cache["CUDA_TOOLKIT_ROOT_DIR"] == str(_stand_in())
    assert cache["CUDA_NVCC_EXECUTABLE"] == str(_stand_in() / "bin" / "nvcc")


def test_a_static_library_with_relocatable_device_code_linked_by_cxx(tree: Path) -> None:
    """A static library with separable compilation and a host .cpp, used by an
    executable that is not separable: CMake links the executable with the C++ compiler
    after a `-dlink` step of its own, so that step must link the library's device code."""
    build = tree / "build-rdc-lib"
    log = _build(tree / "rdc_static_lib", build)
    assert " -dlink " in ok(
        subprocess.run(
            [NINJA or "ninja", "-C", str(build), "-t", "commands", "blur_demo"],
            capture_output=True,
            text=True,
            check=False,
        )
    )
    assert "undefined reference" not in log
    assert _amd_archs(build / "blur_demo") >= set(ARCHS)
    # The library's kernel is in the executable's code objects (its device function,
    # from another file, resolved by the device link and inlined there).
    assert b"_Z6blur1dPKfPfii" in fatbin_section(build / "blur_demo")


@pytest.mark.parametrize(
    ("project", "binary", "defs"),
    [
        ("cublas_rdc", "saxpy", ("-DSAXPY_WITH_CUBLAS=OFF",)),
        ("helpers", "vector_add", ()),
        ("host_runtime", "host_scale", ()),
        ("legacy_findcuda", "legacy_histogram", ()),
        ("rdc_static_lib", "blur_demo", ()),
    ],
)
def test_same_trees_build_with_the_real_nvcc(
    tree: Path, project: str, binary: str, defs: tuple[str, ...]
) -> None:
    """Without CASS's environment the projects are plain CUDA projects for nvcc."""
    require(cmake=CMAKE, ninja=NINJA, nvcc=NVCC)
    assert NVCC is not None and CMAKE is not None
    env = {k: v for k, v in build_env().items() if k not in _CUDA_VARIABLES}
    env["PATH"] = os.pathsep.join([str(Path(NVCC).parent), env.get("PATH", "")])
    build = tree / f"build-nvcc-{project}"
    configure = [CMAKE, "-S", str(tree / project), "-B", str(build), "-G", "Ninja", *defs]
    for argv in (configure, [CMAKE, "--build", str(build), "-j", "2"]):
        ok(subprocess.run(argv, env=env, capture_output=True, text=True, check=False))
    assert "cass_build" not in (build / "CMakeCache.txt").read_text()
    assert (build / binary).is_file()
