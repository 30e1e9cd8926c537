"""Who the driver says it is: ``--version``, the ``#$`` lines of ``-v``, the toolkit root.

Build systems find out what nvcc is by asking it. CMake's CUDA support
(``CMakeDetermineCUDACompiler.cmake``) matches ``nvcc: NVIDIA (R) Cuda compiler driver``
and ``V12.x.y`` in ``--version``; reads ``TOP=``, ``INCLUDES=``, ``LIBRARIES=``,
``NVVMIR_LIBRARY_DIR=`` and the host link line (the one holding the ``LIBRARIES``
text; its first word becomes the host link launcher) from ``-v``; and compiles
``CMakeCUDACompilerId.cu``, whose binary must say ``INFO:compiler[NVIDIA]``. This module
answers each of those: the link launcher named is this driver, so CMake's final links
come back here, where device code compiled with ``-fgpu-rdc`` is linked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .._version import __version__
from ..settings import Settings, environment

__all__ = [
    "CMAKE_ID_SOURCE",
    "cuda_version",
    "driver_program",
    "id_defines",
    "toolkit_root",
    "verbose_prelude",
    "version_text",
]

#: The source CMake compiles to identify a CUDA compiler.
CMAKE_ID_SOURCE = "CMakeCUDACompilerId.cu"

#: nvcc's default target before CUDA 13, which CMake reads as the default architecture.
DEFAULT_CUDA_ARCH = "52"


def cuda_version() -> tuple[int, int, int]:
    """The CUDA release the driver stands in for: ``Settings.cuda_version`` (12080: 12.8)."""
    value = Settings().cuda_version
    return (value // 1000, (value % 1000) // 10, 0)


def toolkit_root() -> Path:
    """The CUDA toolkit stand-in in the package (``cass_build/toolkit``)."""
    return Path(__file__).resolve().parent.parent / "toolkit"


def driver_program() -> str:
    """The program that runs this driver, named as CMake's host link launcher:
    ``$CASS_NVCC``, else the stand-in's ``bin/nvcc``, else ``nvcc``."""
    if explicit := environment().nvcc:
        return explicit
    stand_in = toolkit_root() / "bin" / "nvcc"
    if stand_in.is_file() and os.access(stand_in, os.X_OK):
        return str(stand_in)
    return "nvcc"


def version_text(hip: str) -> str:
    """``nvcc --version``: the line CMake matches, then what this really is."""
    major, minor, patch = cuda_version()
    return (
        "nvcc: NVIDIA (R) Cuda compiler driver\n"
        f"cass nvcc {__version__}: an nvcc-compatible driver that translates CUDA to HIP "
        f"and builds it for AMD GPUs ({hip})\n"
        f"Cuda compilation tools, release {major}.{minor}, V{major}.{minor}.{patch}\n"
        f"Build cass_{__version__}\n"
    )


def id_defines() -> list[str]:
    """The macros nvcc defines that CMake's identification source reads."""
    major, minor, patch = cuda_version()
    return [
        "-D__CUDACC__",
        "-D__NVCC__",
        f"-D__CUDACC_VER_MAJOR__={major}",
        f"-D__CUDACC_VER_MINOR__={minor}",
        f"-D__CUDACC_VER_BUILD__={patch}",
    ]


def verbose_prelude(archs: tuple[str, ...]) -> list[str]:
    """The variable lines nvcc's ``-v`` starts with, pointing at the stand-in."""
    top = toolkit_root()
    return [
        f"_CASS_=cass nvcc {__version__}",
        f"_HERE_={top / 'bin'}",
        f"TOP={top}",
        f"NVVMIR_LIBRARY_DIR={top / 'nvvm' / 'libdevice'}",
        f"PATH={os.environ.get('PATH', '')}",
        f'INCLUDES="-I{top / "include"}"',
        f'LIBRARIES=  "-L{top / "lib64"}"',
        "CUDAFE_FLAGS=",
        "PTXAS_FLAGS=",
        # CMake takes the default CUDA architecture from '-arch compute_NN' in this output.
        f"_ARCH_=-arch compute_{DEFAULT_CUDA_ARCH} (selects nothing; AMD targets: "
        f"{' '.join(archs) or 'none'})",
    ]


def print_lines(lines: list[str]) -> None:
    for line in lines:
        print(f"#$ {line}", file=sys.stderr)
