"""cass_build.setuptools: flag mapping, backend choice, and small real builds.

The builds use one arch (PYTORCH_ROCM_ARCH=gfx90a) to keep hipcc time down, and
check that the arch variable is what decides the code objects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cass_build.errors import ToolchainError, UsageError
from cass_build.setuptools import (
    BuildExtension,
    CppExtension,
    CUDAExtension,
    backend,
    hipcc_flags,
)
from tests.build_helpers import HIPCC, NVCC, OBJCOPY, archs_in, build_env, ok, run

# -- no compiler needed ------------------------------------------------------------


def test_nvcc_flags_become_hipcc_flags() -> None:
    nvcc = ["-O3", "--use_fast_math", "-gencode", "arch=compute_80,code=sm_80", "-lineinfo",
            "--expt-relaxed-constexpr", "-Xcompiler", "-Wall", "-Xptxas", "-v",
            "-arch=sm_90", "-DFOO=1", "-std=c++17", "--compiler-options=-Wextra,-g",
            "-rdc=true", "--threads", "4"]  # fmt: skip
    assert hipcc_flags(nvcc) == [
        "-O3", "-ffast-math", "-Wall", "-DFOO=1", "-std=c++17", "-Wextra", "-g", "-fgpu-rdc"
    ]  # fmt: skip


def test_extensions_keep_torch_shapes() -> None:
    ext = CUDAExtension(
        "pkg._k",
        ["k.cu", "b.cpp", "p.cu"],
        extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O3"]},
        no_translate=["p.cu"],
        translate=["./b.cpp"],
    )
    assert ext.language == "c++"
    assert ext.extra_compile_args == {"cxx": ["-O2"], "nvcc": ["-O3"]}
    assert ext.cass_no_translate == ("p.cu",)
    assert ext.cass_translate == ("b.cpp",)
    assert CppExtension("pkg._c", ["c.cpp"]).language == "c++"


def test_with_options_drops_the_abi_suffix() -> None:
    from setuptools import Distribution  # type: ignore[import-untyped]

    cls = BuildExtension.with_options(no_python_abi_suffix=True, use_ninja=False)
    assert issubclass(cls, BuildExtension)
    command = cls(Distribution())
    command.ensure_finalized()
    assert command.get_ext_filename("pkg._k") == "pkg/_k.so"
    plain = BuildExtension(Distribution())
    plain.ensure_finalized()
    assert plain.get_ext_filename("pkg._k").startswith("pkg/_k.cpython-")


def test_backend_follows_cass_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CASS_BACKEND", "opencl")
    with pytest.raises(UsageError, match="CASS_BACKEND='opencl': use auto, rocm or cuda"):
        backend()
    if HIPCC:
        monkeypatch.setenv("CASS_BACKEND", "auto")
        assert backend() == "rocm"
    if NVCC:
        monkeypatch.setenv("CASS_BACKEND", "cuda")
        assert backend() == "cuda"
    else:
        monkeypatch.setenv("CASS_BACKEND", "cuda")
        with pytest.raises(ToolchainError, match="nvcc was not found"):
            backend()


# -- small real builds ---------------------------------------------------------------

KERNEL_CU = """\
#include <cuda_runtime.h>
#include <string>
#include "api.h"

__global__ void fill(int* out, int value) { out[threadIdx.x] = value; }

std::string translated_fill() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) return std::string("no device: ") + cudaGetErrorString(err);
  int* d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) return "cudaMalloc failed";
  fill<<<1, 32>>>(d, 7);
  int host[32];
  cudaMemcpy(host, d, sizeof(host), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return host[31] == 7 ? "ok" : "wrong";
}
"""

# Already portable HIP: opted out of translation, compiled as it is.
PORTABLE_CU = """\
#include <hip/hip_runtime.h>
#include "api.h"

__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }

int portable_devices() {
  int count = 0;
  return hipGetDeviceCount(&count) == hipSuccess ? count : 0;
}
"""

API_H = """\
#pragma once
#include <string>
std::string translated_fill();
int portable_devices();
"""

MODULE_CPP = """\
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "api.h"

static PyObject* fill(PyObject*, PyObject*) {
  return PyUnicode_FromString(translated_fill().c_str());
}
static PyObject* devices(PyObject*, PyObject*) { return PyLong_FromLong(portable_devices()); }
static PyMethodDef methods[] = {{"fill", fill, METH_NOARGS, ""},
                                {"devices", devices, METH_NOARGS, ""},
                                {nullptr, nullptr, 0, nullptr}};
static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_tiny", "", -1, methods};
PyMODINIT_FUNC PyInit__tiny() { return PyModule_Create(&module); }
"""

HOST_ONLY_MODULE = MODULE_CPP.replace("portable_devices()", "0")

SETUP_PY = """\
from setuptools import setup
from cass_build.setuptools import BuildExtension, CUDAExtension

setup(
    name="tiny",
    ext_modules=[CUDAExtension("_tiny", {sources!r}, include_dirs=["src"],
                               no_translate={no_translate!r},
                               extra_compile_args={{"cxx": [], "nvcc": ["-O2", "-lineinfo"]}})],
    cmdclass={{"build_ext": BuildExtension}},
)
"""


def make_project(root: Path, files: dict[str, str], no_translate: tuple[str, ...] = ()) -> Path:
    """``files`` under ``src/``, built as one extension of all its .cu and .cpp files."""
    (root / "src").mkdir(parents=True)
    for name, text in files.items():
        (root / "src" / name).write_text(text)
    sources = [f"src/{n}" for n in sorted(files) if not n.endswith(".h")]
    text = SETUP_PY.format(sources=sources, no_translate=list(no_translate))
    (root / "setup.py").write_text(text)
    return root


def build(root: Path, **env: str) -> tuple[int, str]:
    argv = [sys.executable, "setup.py", "build_ext", "--inplace"]
    proc = run(argv, root, build_env(**env))
    return proc.returncode, proc.stdout + proc.stderr


def import_tiny(root: Path) -> dict[str, object]:
    code = "import sys, json; sys.path.insert(0, '.'); import _tiny\n"
    code += "print(json.dumps([_tiny.fill(), _tiny.devices()]))"
    out = ok(run([sys.executable, "-c", code], root))
    fill, devices = json.loads(out.strip().splitlines()[-1])
    return {"fill": fill, "devices": devices}


@pytest.mark.slow
@pytest.mark.skipif(HIPCC is None, reason="hipcc is not installed")
def test_rocm_build_translates_or_opts_out_per_file(tmp_path: Path) -> None:
    files = {"kernel.cu": KERNEL_CU, "portable.cu": PORTABLE_CU, "api.h": API_H}
    files["module.cpp"] = MODULE_CPP
    root = make_project(tmp_path / "tiny", files, no_translate=("src/portable.cu",))
    code, log = build(root, PYTORCH_ROCM_ARCH="gfx90a", CASS_BACKEND="auto")
    assert code == 0, log
    assert "cass: translating src/kernel.cu for gfx90a" in log
    assert "cass: translating src/portable.cu" not in log
    (temp,) = root.glob("build/temp*")
    assert "hipMalloc" in (temp / "cass" / "src" / "kernel.hip").read_text()
    assert not (temp / "cass" / "src" / "portable.hip").exists()
    assert (temp / "cass" / "src" / "portable.o").is_file()
    (module,) = root.glob("_tiny*.so")
    if OBJCOPY is not None:
        assert archs_in(module) == {"gfx90a"}  # PYTORCH_ROCM_ARCH decided, not the default pair
    result = import_tiny(root)
    if not Path("/dev/kfd").exists():
        assert result == {"fill": "no device: hipErrorNoDevice", "devices": 0}


@pytest.mark.slow
@pytest.mark.skipif(HIPCC is None, reason="hipcc is not installed")
def test_failed_verification_names_the_cu_line(tmp_path: Path) -> None:
    launch = "fill<<<1, 32>>>(d, 7);"
    bad = KERNEL_CU.replace(launch, launch + "\n  cudaLaunchConfig_t c{};")
    # CASS's own finding (inline PTX) is shown before the compiler's error.
    bad = bad.replace("out[threadIdx.x] = value; }", 'out[threadIdx.x] = value; asm("brkpt;"); }')
    files = {"kernel.cu": bad, "api.h": API_H, "module.cpp": HOST_ONLY_MODULE}
    root = make_project(tmp_path / "bad", files)
    code, log = build(root, PYTORCH_ROCM_ARCH="gfx90a")
    assert code != 0
    compiler = "src/kernel.cu:14:3: error: unknown type name 'hipLaunchConfig_t'"
    assert compiler in log, log
    ours = log.index("kernel.cu:5:71: error: inline PTX instruction 'brkpt'")
    assert ours < log.index(compiler), log
    assert "hint:" in log
    assert "Traceback" not in log


@pytest.mark.slow
@pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")
def test_cuda_backend_compiles_with_nvcc(tmp_path: Path) -> None:
    files = {"kernel.cu": KERNEL_CU, "api.h": API_H, "module.cpp": HOST_ONLY_MODULE}
    root = make_project(tmp_path / "cuda", files)
    code, log = build(root, CASS_BACKEND="cuda")
    assert code == 0, log
    assert "nvcc -c" in log and "src/kernel.cu" in log
    assert "-lineinfo" in log and "-lcudart" in log
    assert "cass: translating" not in log
    (temp,) = root.glob("build/temp*")
    assert not list(temp.rglob("*.hip"))
    result = import_tiny(root)
    assert str(result["fill"]).startswith("no device: ") or result["fill"] == "ok"
