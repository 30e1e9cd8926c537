"""find_package(CASS): the package files, argument parsing, and a real CMake build.

The build tests share one configured and built copy of examples/cmake_app
(module scope: hipcc is slow and the machine small). Tests that edit the copy
run last, in file order.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.build_helpers import (
    ARCHS,
    BUNDLER,
    CMAKE,
    CMAKE_325,
    HIPCC,
    NINJA,
    NVCC,
    OBJCOPY,
    ROOT,
    archs_in,
    assert_stack_not_executable,
    build_env,
    cmake_dir,
    code_object_archs,
    copy_example,
    ok,
    run,
)

LIB_SOURCES = ("device", "saxpy", "reduce", "histogram")


# -- the package files ----------------------------------------------------------


def test_cmakedir_matches_get_cmake_dir() -> None:
    import cass_build

    found = cmake_dir()
    assert found == cass_build.get_cmake_dir()
    assert {"CASSConfig.cmake", "CASSConfigVersion.cmake", "CASSFunctions.cmake"} <= {
        p.name for p in Path(found).iterdir()
    }
    cass = shutil.which("cass")
    if cass:
        assert ok(run([cass, "--cmakedir"], ROOT)).strip() == found


def test_installed_files_are_the_checkout() -> None:
    """A stale install would test old CMake code: reinstall with pip install -e ."""
    installed = Path(cmake_dir())
    assert (installed / "CASSFunctions.cmake").read_text() == (
        ROOT / "cmake" / "CASSFunctions.cmake"
    ).read_text(), "run: pip install --no-build-isolation -e ."
    assert (installed / "zero_edit.cmake").read_text() == (
        ROOT / "cmake" / "zero_edit.cmake"
    ).read_text(), "run: pip install --no-build-isolation -e ."
    config = (installed / "CASSConfig.cmake").read_text()
    template = (ROOT / "cmake" / "CASSConfig.cmake.in").read_text()
    assert config.startswith(template.split("@PACKAGE_INIT@")[0])


def test_config_opens_with_the_rst_reference() -> None:
    text = (ROOT / "cmake" / "CASSConfig.cmake.in").read_text()
    assert text.startswith("#[===")
    head = text.split("#]====")[0]
    names = ["cass_add_library", "cass_add_executable", "cass_target_sources", "CASS_BACKEND"]
    names += ["CASS_STRATEGY", "CASS_VERIFY", "CASS_WARP", "CMAKE_HIP_ARCHITECTURES"]
    names += ["CASS_TRANSLATE"]
    for name in names:
        assert name in head, name


@pytest.mark.skipif(CMAKE is None, reason="cmake is not installed")
@pytest.mark.parametrize(
    ("wanted", "compatible"), [("0.1", True), ("0.1.0", True), ("0.2", False), ("1.0", False)]
)
def test_version_file_same_minor(tmp_path: Path, wanted: str, compatible: bool) -> None:
    script = tmp_path / "v.cmake"
    script.write_text(
        f'set(PACKAGE_FIND_VERSION "{wanted}")\n'
        'string(REPLACE "." ";" parts "${PACKAGE_FIND_VERSION}")\n'
        "list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)\n"
        "list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)\n"
        f'include("{cmake_dir()}/CASSConfigVersion.cmake")\n'
        'message(STATUS "compatible=${PACKAGE_VERSION_COMPATIBLE}")\n'
    )
    out = ok(run([CMAKE, "-P", str(script)], tmp_path))
    assert f"compatible={'TRUE' if compatible else 'FALSE'}" in out


# -- argument parsing (cmake -P) --------------------------------------------------


def _args_case(case: str, cmake: str) -> subprocess.CompletedProcess[str]:
    script = ROOT / "tests" / "cmake" / "cass_args.cmake"
    functions = ROOT / "cmake" / "CASSFunctions.cmake"
    return run([cmake, f"-DCASS_FUNCTIONS={functions}", f"-DCASE={case}", "-P", str(script)], ROOT)


CMAKES = [c for c in dict.fromkeys([CMAKE, CMAKE_325]) if c]


@pytest.mark.parametrize("cmake", CMAKES)
def test_keywords_parse_and_archs_end_where_sources_start(cmake: str) -> None:
    out = ok(_args_case("parse", cmake))
    assert (
        "sources=a.cu;b.cu|archs=gfx90a;gfx1030|strategy=rules|verify=compile|static=TRUE|"
        "allow=FALSE" in out
    )
    assert "sources=a.cu|archs=|strategy=|verify=|static=FALSE" in ok(_args_case("defaults", cmake))


@pytest.mark.parametrize("cmake", CMAKES)
@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("unknown_keyword", "cass_add_library: unknown keyword 'STATC' (did you mean STATIC?)"),
        (
            "bad_verify",
            "cass_add_executable: VERIFY 'sometimes' is not one of"
            " auto, none, syntax, compile, run",
        ),
        ("missing_value", "cass_add_library: STRATEGY needs a value"),
        ("two_types", "cass_add_library: give at most one of STATIC, SHARED"),
    ],
)
def test_bad_arguments_stop_with_one_line(cmake: str, case: str, message: str) -> None:
    proc = _args_case(case, cmake)
    assert proc.returncode != 0
    # One message between CMake's "CMake Error at ..." header and the call stack
    # (CMake itself wraps long lines, so compare with the wrapping undone).
    body = proc.stderr.split(":\n", 1)[1].split("Call Stack")[0].strip()
    assert " ".join(body.split()) == message, proc.stderr


# -- configure with both CMake versions -------------------------------------------

needs_hip = pytest.mark.skipif(None in (CMAKE, NINJA, HIPCC), reason="needs cmake, ninja and hipcc")


def _configure(src: Path, build: Path, cmake: str, *defs: str) -> str:
    env = build_env()
    argv = [cmake, "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCASS_DIR={cmake_dir()}"]
    return ok(run([*argv, *defs], src, env))


@pytest.mark.slow
@needs_hip
@pytest.mark.skipif(CMAKE_325 is None, reason="no system cmake 3.25 at /usr/bin/cmake")
def test_cmake_325_builds_one_translated_object(tmp_path: Path) -> None:
    """CMake 3.25 needs the forwarding hip-lang tree on Debian; one object proves it."""
    assert CMAKE_325 is not None and NINJA is not None
    src = copy_example("cmake_app", tmp_path)
    build = tmp_path / "build"
    _configure(src, build, CMAKE_325, "-DCMAKE_HIP_ARCHITECTURES=gfx90a")
    cache = (build / "CMakeCache.txt").read_text()
    assert "CMAKE_HIP_COMPILER_ROCM_ROOT:PATH=" in cache
    obj = "vecmath/CMakeFiles/vecmath.dir/cass/vecmath/src/saxpy.hip.o"
    out = ok(run([NINJA, "-C", str(build), obj], build))
    assert "CASS translating vecmath/src/saxpy.cu" in out
    assert code_object_archs(build / obj) == {"gfx90a"}


@pytest.mark.slow
@pytest.mark.skipif(None in (CMAKE, NINJA, NVCC), reason="needs cmake, ninja and nvcc")
def test_cuda_backend_compiles_the_cu_files_untouched_with_nvcc(tmp_path: Path) -> None:
    assert NINJA is not None and CMAKE is not None
    src = copy_example("cmake_app", tmp_path)
    build = tmp_path / "build"
    out = _configure(src, build, CMAKE, "-DCASS_BACKEND=cuda")
    assert "The CUDA compiler identification is NVIDIA" in out
    ninja_file = (build / "build.ninja").read_text()
    assert "cass_build translate" not in ninja_file
    obj = "vecmath/CMakeFiles/vecmath.dir/src/saxpy.cu.o"
    out = ok(run([NINJA, "-C", str(build), "-v", obj], build))
    assert "nvcc" in out and str(src / "vecmath" / "src" / "saxpy.cu") in out
    assert (build / obj).stat().st_size > 0


@pytest.mark.slow
@needs_hip
def test_unknown_backend_is_one_line(tmp_path: Path) -> None:
    assert CMAKE is not None
    src = copy_example("cmake_app", tmp_path)
    argv = [CMAKE, "-S", str(src), "-B", str(tmp_path / "b"), "-G", "Ninja",
            f"-DCASS_DIR={cmake_dir()}", "-DCASS_BACKEND=opencl"]  # fmt: skip
    proc = run(argv, src)
    assert proc.returncode != 0
    assert "CASS: CASS_BACKEND is 'opencl'; use auto, rocm or cuda" in proc.stderr


# -- a translation that fails verification ----------------------------------------

BAD_CU = """\
#include <cuda_runtime.h>

__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }

int launch_clustered(float* x) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(64);
  return cudaLaunchKernelEx(&config, scale, x) == cudaSuccess ? 0 : 1;
}
"""


@pytest.mark.slow
@needs_hip
def test_failed_verification_fails_the_build_at_the_cu_line(tmp_path: Path) -> None:
    assert CMAKE is not None and NINJA is not None
    src = tmp_path / "bad"
    src.mkdir()
    (src / "bad.cu").write_text(BAD_CU)
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(bad LANGUAGES CXX)\n"
        "find_package(CASS CONFIG REQUIRED)\ncass_add_library(bad STATIC bad.cu)\n"
    )
    build = tmp_path / "build"
    _configure(src, build, CMAKE, "-DCMAKE_HIP_ARCHITECTURES=gfx90a")
    proc = run([NINJA, "-C", str(build)], build)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert f"{src / 'bad.cu'}:6:3: error: unknown type name 'hipLaunchConfig_t'" in output
    assert re.search(r"FAILED: .*cass/bad\.hip", output), output
    assert "Traceback" not in output
    assert not (build / "cass" / "bad.hip").exists()


# -- one real build of examples/cmake_app -----------------------------------------


class App:
    def __init__(self, src: Path, build: Path, log: str) -> None:
        self.src, self.build, self.log = src, build, log

    def ninja(self, *args: str) -> str:
        assert NINJA is not None
        return ok(run([NINJA, "-C", str(self.build), *args], self.build))

    def hip(self, rel: str) -> Path:
        return self.build / "cass" / rel

    def obj(self, name: str) -> Path:
        return self.build / f"vecmath/CMakeFiles/vecmath.dir/cass/vecmath/src/{name}.hip.o"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> App:
    if None in (CMAKE, NINJA, HIPCC):
        pytest.skip("needs cmake, ninja and hipcc")
    assert CMAKE is not None and NINJA is not None
    root = tmp_path_factory.mktemp("cmake_app")
    src = copy_example("cmake_app", root)
    build = root / "build"
    _configure(src, build, CMAKE, f"-DCMAKE_HIP_ARCHITECTURES={';'.join(ARCHS)}")
    log = ok(run([NINJA, "-C", str(build)], build))
    return App(src, build, log)


@pytest.mark.slow
def test_every_cu_file_was_translated_at_build_time(app: App) -> None:
    for name in LIB_SOURCES:
        assert f"CASS translating vecmath/src/{name}.cu" in app.log
        text = app.hip(f"vecmath/src/{name}.hip").read_text()
        assert "cuda" not in re.sub(r'"[^"\n]*"|//[^\n]*', "", text).replace("CUDA", "")
    assert "CASS translating app/main.cu" in app.log
    # Headers follow the sources: the shared public one and the private one.
    assert "hipMalloc" in app.hip("vecmath/include/vecmath/check.cuh").read_text()
    assert app.hip("vecmath/src/block_reduce.cuh").is_file()
    # The originals were never written to.
    assert "cudaMalloc" in (app.src / "vecmath/include/vecmath/check.cuh").read_text()


@pytest.mark.slow
def test_translations_are_compiled_once_for_every_arch(app: App) -> None:
    """The translate step's compile check writes the object: CMake compiles nothing again."""
    assert "Building HIP object" not in app.log
    commands = app.ninja("-t", "commands")
    assert commands.count(" --object ") == len(LIB_SOURCES) + 1
    assert "-x hip -c" not in commands and "clang++" not in commands
    if BUNDLER is None or OBJCOPY is None:
        pytest.skip("clang-offload-bundler or objcopy is not installed")
    for name in ("saxpy", "reduce", "histogram"):
        assert code_object_archs(app.obj(name)) == set(ARCHS), name
    assert code_object_archs(app.obj("device")) == set()  # host code only: no bundle at all
    assert archs_in(app.build / "vecmath_demo") == set(ARCHS)


@pytest.mark.slow
def test_the_demo_reports_no_device_cleanly(app: App) -> None:
    if Path("/dev/kfd").exists():
        pytest.skip("a GPU is present: the no-device path does not apply")
    proc = run([str(app.build / "vecmath_demo")], app.build)
    assert proc.returncode == 77, proc.stdout + proc.stderr
    assert "vecmath_demo: no HIP device (" in proc.stdout
    assert "verdict: SKIPPED (no GPU)" in proc.stdout


@pytest.mark.slow
def test_noop_rebuild_runs_no_commands(app: App) -> None:
    assert "ninja: no work to do." in app.ninja("-n")
    assert "ninja: no work to do." in app.ninja()


# Below: tests that change the copy. They run last and in this order.


@pytest.mark.slow
def test_touching_a_header_retranslates_only_its_dependents(app: App) -> None:
    header = app.src / "vecmath" / "src" / "block_reduce.cuh"
    hips = {n: app.hip(f"vecmath/src/{n}.hip") for n in LIB_SOURCES}
    before = {n: p.stat().st_mtime_ns for n, p in hips.items()}
    objects = {n: app.obj(n).stat().st_mtime_ns for n in LIB_SOURCES}
    time.sleep(0.01)
    os.utime(header)
    planned = app.ninja("-n")
    translating = set(re.findall(r"CASS translating vecmath/src/(\w+)\.cu", planned))
    assert translating == {"reduce", "histogram"}, planned
    assert "app/main.cu" not in planned
    log = app.ninja("-d", "explain")
    assert set(re.findall(r"CASS translating vecmath/src/(\w+)\.cu", log)) == {
        "reduce",
        "histogram",
    }
    # Same bytes out (a cache hit): translations and objects keep their timestamps,
    # so nothing is archived or linked again.
    assert "Linking" not in log, log
    assert {n: p.stat().st_mtime_ns for n, p in hips.items()} == before
    assert {n: app.obj(n).stat().st_mtime_ns for n in LIB_SOURCES} == objects
    assert "ninja: no work to do." in app.ninja("-n")


@pytest.mark.slow
def test_editing_a_header_recompiles_exactly_its_dependents(app: App) -> None:
    header = app.src / "vecmath" / "src" / "block_reduce.cuh"
    # Code, not a comment: a comment would leave the objects' bytes (and so their
    # timestamps) as they were, and rightly link nothing again.
    edit = "[[gnu::used]] static int vecmath_edit_marker = 7;\n"
    header.write_text(header.read_text() + edit)
    objects = {n: app.obj(n).stat().st_mtime_ns for n in LIB_SOURCES}
    time.sleep(0.01)
    planned = app.ninja("-n")
    translating = set(re.findall(r"CASS translating vecmath/src/(\w+)\.cu", planned))
    assert translating == {"reduce", "histogram"}, planned
    app.ninja()
    mirrored = app.hip("vecmath/src/block_reduce.cuh")
    assert mirrored.read_text().endswith(edit)
    changed = {n for n in LIB_SOURCES if app.obj(n).stat().st_mtime_ns != objects[n]}
    assert changed == {"reduce", "histogram"}
    assert code_object_archs(app.obj("reduce")) == set(ARCHS)
    assert "ninja: no work to do." in app.ninja("-n")


@pytest.mark.slow
@needs_hip
def test_cass_translate_property_opts_files_in_and_out(tmp_path: Path) -> None:
    """Configure only: a portable .cu compiles as HIP untouched, a .cpp can be translated."""
    assert CMAKE is not None and NINJA is not None
    src = tmp_path / "mixed"
    src.mkdir()
    for name in ("kernel.cu", "portable.cu", "host.cpp", "plain.cpp"):
        (src / name).write_text("int f() { return 0; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(mixed LANGUAGES CXX)\n"
        "find_package(CASS CONFIG REQUIRED)\n"
        "set_source_files_properties(portable.cu PROPERTIES CASS_TRANSLATE OFF)\n"
        "set_source_files_properties(host.cpp PROPERTIES CASS_TRANSLATE ON)\n"
        "cass_add_library(mixed STATIC VERIFY none kernel.cu portable.cu host.cpp plain.cpp)\n"
    )
    build = tmp_path / "build"
    _configure(src, build, CMAKE)
    planned = ok(run([NINJA, "-C", str(build), "-n"], build))
    assert set(re.findall(r"CASS translating (\S+)", planned)) == {"kernel.cu", "host.cpp"}
    assert "Building HIP object CMakeFiles/mixed.dir/portable.cu.o" in planned
    assert "Building CXX object CMakeFiles/mixed.dir/plain.cpp.o" in planned
    # Translated files are compiled by their translate step, not by CMake's HIP rule.
    assert "Building HIP object CMakeFiles/mixed.dir/cass/" not in planned
    commands = ok(run([NINJA, "-C", str(build), "-t", "commands"], build))
    assert "--object " + str(build / "CMakeFiles/mixed.dir/cass/host.cpp.hip.o") in commands
    assert "--object " + str(build / "CMakeFiles/mixed.dir/cass/kernel.hip.o") in commands
    assert "--verify none" in ok(run([NINJA, "-C", str(build), "-t", "commands"], build))


CMAKE_FORMAT = shutil.which("cmake-format")


@pytest.mark.skipif(CMAKE_FORMAT is None, reason="pip install cmakelang")
def test_cmake_files_are_cmake_format_clean() -> None:
    assert CMAKE_FORMAT is not None
    files = [ROOT / "cmake" / "CASSFunctions.cmake", ROOT / "cmake" / "CASSConfig.cmake.in"]
    files += sorted((ROOT / "examples").glob("*/**/CMakeLists.txt"))
    config = ROOT / "cmake" / ".cmake-format.yaml"
    proc = run([CMAKE_FORMAT, "-c", str(config), "--check", *map(str, files)], ROOT)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
@needs_hip
def test_target_flags_reach_the_translate_and_compile_step(tmp_path: Path) -> None:
    """Configure only: what CMake's HIP rule would have compiled with is on the command."""
    assert CMAKE is not None and NINJA is not None
    src = tmp_path / "flags"
    src.mkdir()
    (src / "k.cu").write_text("int f() { return 0; }\n")
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(flags LANGUAGES CXX)\n"
        "find_package(CASS CONFIG REQUIRED)\n"
        "cass_add_library(sh SHARED k.cu)\n"
        "target_compile_definitions(sh PRIVATE ANSWER=42)\n"
        "target_compile_options(sh PRIVATE -Wall -flto=auto)\n"
        "target_compile_features(sh PRIVATE cxx_std_20)\n"
        "set_target_properties(sh PROPERTIES CUDA_VISIBILITY_PRESET hidden)\n"
        "cass_add_library(st STATIC k.cu)\n"
        "set_target_properties(st PROPERTIES CUDA_STANDARD 14)\n"
    )
    build = tmp_path / "build"
    _configure(src, build, CMAKE, "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_HIP_ARCHITECTURES=gfx90a")
    commands = ok(run([NINJA, "-C", str(build), "-t", "commands"], build)).splitlines()
    shared = next(c for c in commands if "CMakeFiles/sh.dir/cass/k.hip.o" in c and " -m " in c)
    static = next(c for c in commands if "CMakeFiles/st.dir/cass/k.hip.o" in c and " -m " in c)
    for flag in ("-DANSWER=42", "-Dsh_EXPORTS", "--hip-flags=-fPIC", "--hip-flags=-Wall",
                 "--hip-flags=-std=c++20", "--hip-flags=-fvisibility=hidden",
                 "--hip-flags=-O3", "--hip-flags=-DNDEBUG"):  # fmt: skip
        assert flag in shared.split(), flag
    assert "-flto" not in shared  # GCC links: no LLVM bitcode in host objects
    assert "--hip-flags=-fPIC" not in static.split() and "--hip-flags=-std=c++14" in static
    # The second target's translation of the same file goes beside its own object.
    assert f"-o {build}/CMakeFiles/st.dir/cass/k.hip " in static
    assert f"-o {build}/cass/k.hip " in shared


CUDA_ONLY_OPTIONS = """\
cmake_minimum_required(VERSION 3.25)
project(opts LANGUAGES CXX)
find_package(CASS CONFIG REQUIRED)
add_library(project_options INTERFACE)
target_compile_options(project_options
  INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
cass_add_library(fast STATIC k.cu)
target_compile_options(fast PRIVATE -Wall $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math -lineinfo>)
target_link_libraries(fast PRIVATE project_options)
cass_add_library(plain STATIC k.cu)
target_compile_options(plain PRIVATE -Wall $<$<COMPILE_LANGUAGE:CXX>:-Wextra>)
"""


@pytest.mark.slow
@needs_hip
def test_cuda_only_compile_options_are_named_not_dropped_silently(tmp_path: Path) -> None:
    """``$<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math -lineinfo>``, as real projects give
    nvcc's flags, reads as empty in the translate step: configure says so, once per
    target, with the options as written (the expression spans two list items) and those
    of an interface target it links; a target without any gets no warning."""
    assert CMAKE is not None
    src = tmp_path / "opts"
    src.mkdir()
    (src / "k.cu").write_text("__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n")
    (src / "CMakeLists.txt").write_text(CUDA_ONLY_OPTIONS)
    argv = [CMAKE, "-S", str(src), "-B", str(tmp_path / "b"), "-G", "Ninja",
            f"-DCASS_DIR={cmake_dir()}", "-DCMAKE_HIP_ARCHITECTURES=gfx90a"]  # fmt: skip
    proc = run(argv, src, build_env())
    assert proc.returncode == 0, proc.stderr
    warnings = [w for w in proc.stderr.split("CMake Warning (dev) at ")[1:]]
    assert len(warnings) == 1, proc.stderr
    body = " ".join(warnings[0].split(":\n", 1)[1].split("This warning is for")[0].split())
    assert body.startswith(
        "CASS: target 'fast': compile options under $<COMPILE_LANGUAGE:CUDA> do not reach its "
        "translate step, which compiles with hipcc: $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math "
        "-lineinfo> $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>. Give them as hipcc "
        "flags (--use_fast_math is -ffast-math"
    ), body
    assert "Call Stack" in warnings[0] or "CMakeLists.txt" in warnings[0]
    quiet = run([*argv, "-Wno-dev"], src, build_env())
    assert quiet.returncode == 0 and "CASS: target" not in quiet.stderr, quiet.stderr


# -- shapes real projects use: sibling helper headers, toolkit includes, separable code ----

HELPER = """\
#pragma once
#include <cuda_runtime.h>
inline int copy_back(float *host, const float *dev, int n) {
  return cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : 1;
}
"""
DEVICE_FN = '#include "twice.cuh"\n__device__ float twice(float x) { return 2.0f * x; }\n'
DEVICE_DECL = "#pragma once\nextern __device__ float twice(float x);\n"
MAIN_CU = """\
#include <cstdio>
#include <cuda_runtime.h>
#include <helper.cuh>
#include "twice.cuh"

__global__ void k(float *p) { p[threadIdx.x] = twice(p[threadIdx.x]); }

int main() {
  float host[32] = {1.0f}, *dev = nullptr;
  if (cudaMalloc(&dev, sizeof host) != cudaSuccess) return 1;
  cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice);
  k<<<1, 32>>>(dev);
  int rc = copy_back(host, dev, 32);
  std::printf("%g\\n", host[0]);
  return rc;
}
"""
SEPARABLE = """\
cmake_minimum_required(VERSION 3.25)
project(sep LANGUAGES CXX)
find_package(CASS CONFIG REQUIRED)
find_package(CUDAToolkit QUIET)
cass_add_library(dev STATIC dev.cu)
target_include_directories(dev PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
set_target_properties(dev PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
cass_add_executable(app main.cu)
target_include_directories(app PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/../Common
                                       ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
target_link_libraries(app PRIVATE dev)
set_target_properties(app PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
"""


@pytest.mark.slow
@needs_hip
def test_sibling_headers_toolkit_includes_and_separable_compilation(tmp_path: Path) -> None:
    """A helper header in ../Common is translated; CUDA's include directories never reach
    hipcc; CUDA_SEPARABLE_COMPILATION compiles with -fgpu-rdc and device-links."""
    assert CMAKE is not None and NINJA is not None
    (tmp_path / "Common").mkdir()
    (tmp_path / "Common" / "helper.cuh").write_text(HELPER)
    src = tmp_path / "app"
    src.mkdir()
    (src / "dev.cu").write_text(DEVICE_FN)
    (src / "twice.cuh").write_text(DEVICE_DECL)
    (src / "main.cu").write_text(MAIN_CU)
    (src / "CMakeLists.txt").write_text(SEPARABLE)
    build = tmp_path / "build"
    _configure(src, build, CMAKE, "-DCMAKE_HIP_ARCHITECTURES=gfx90a", "-DCASS_VERIFY=compile")
    commands = ok(run([NINJA, "-C", str(build), "-t", "commands", "app"], build)).splitlines()
    translate = next(c for c in commands if "translate" in c and "main.cu" in c)
    assert "/usr/local/cuda" not in translate and "-I/usr/local/cuda" not in " ".join(commands)
    common = (tmp_path / "Common").resolve()
    assert f"--mirror={common}={build}/cass/_include/" in translate
    assert "--hip-flags=-fgpu-rdc" in translate.split()
    link = commands[-1]
    assert "-fgpu-rdc" in link and "--hip-link" in link and "--offload-arch=gfx90a" in link
    out = ok(run([NINJA, "-C", str(build)], build))
    assert "CASS translating" in out
    [mirrored] = (build / "cass" / "_include").glob("*/helper.cuh")
    assert "hipMemcpyDeviceToHost" in mirrored.read_text()
    assert "gfx90a" in archs_in(build / "app")
    # clang's device-link object has no .note.GNU-stack: without -z noexecstack GNU ld
    # warned and gave the program an executable stack.
    assert "executable stack" not in out
    assert_stack_not_executable(build / "app")
