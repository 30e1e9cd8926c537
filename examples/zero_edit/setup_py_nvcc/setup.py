"""Builds the ``scaler`` extension the way many CUDA projects do: setup.py runs nvcc on the
.cu files itself, then links the objects with libcudart. Nothing here mentions CASS."""

import os
import shlex
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CUDA_HOME = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
NVCC = shlex.split(os.environ.get("NVCC") or str(Path(CUDA_HOME) / "bin" / "nvcc"))


class BuildCudaExt(build_ext):
    """Compiles each .cu source with nvcc; the rest goes through setuptools."""

    def build_extension(self, ext):
        cuda = [s for s in ext.sources if s.endswith(".cu")]
        ext.sources = [s for s in ext.sources if not s.endswith(".cu")]
        out = Path(self.build_temp)
        out.mkdir(parents=True, exist_ok=True)
        for source in cuda:
            obj = out / (Path(source).stem + ".cu.o")
            flags = ["-O2", "-arch=sm_80", "-Xcompiler", "-fPIC"]
            includes = [f"-I{d}" for d in ext.include_dirs]
            subprocess.check_call([*NVCC, *flags, *includes, "-c", source, "-o", str(obj)])
            ext.extra_objects.append(str(obj))
        super().build_extension(ext)


setup(
    name="scaler",
    version="0.1.0",
    ext_modules=[
        Extension(
            "scaler",
            sources=["scaler.cpp", "kernels.cu"],
            include_dirs=["include"],
            libraries=["cudart"],
            library_dirs=[str(Path(CUDA_HOME) / "lib64")],
            language="c++",
        )
    ],
    cmdclass={"build_ext": BuildCudaExt},
)
