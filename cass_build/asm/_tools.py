"""Finding and running the disassemblers and compilers ``cass asm`` uses."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
from pathlib import Path

from .._proc import run
from ..pipeline.toolchain import HipToolchain, find_nvcc
from ..settings import environment

__all__ = [
    "hip_clang_version",
    "llvmlite_version",
    "nvidia_disassembler",
    "tool_version",
]


@functools.cache
def tool_version(path: str) -> str:
    """``13.5.37`` from ``nvdisasm --version``; ``unknown`` where it says nothing usable."""
    out = run([path, "--version"], timeout=30).output
    if m := re.search(r"\bV(\d+\.\d+\.\d+)", out) or re.search(r"version (\d+[.\d]*)", out):
        return m.group(1)
    return "unknown"


def _cuda_bin_dirs() -> list[Path]:
    dirs: list[Path] = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if value := os.environ.get(var):
            dirs.append(Path(value) / "bin")
    nvcc = find_nvcc()
    if nvcc is not None:
        dirs.append(nvcc.nvcc.resolve().parent)
    dirs += [Path("/usr/local/cuda/bin"), *sorted(Path("/usr/local").glob("cuda-*/bin"))[::-1]]
    # pip's nvidia-cuda-nvdisasm / nvidia-cuda-cuobjdump wheels (nvidia/cu13/bin, ...).
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        dirs += sorted(Path(root).glob("*/bin"), reverse=True)
    return dirs


@functools.cache
def nvidia_disassembler() -> tuple[str, Path] | None:
    """``("nvdisasm", path)`` or ``("cuobjdump", path)``: nvdisasm first, as it labels
    branch targets; ``$CASS_NVDISASM`` names either."""
    if explicit := environment().nvdisasm:
        path = Path(explicit)
        kind = "cuobjdump" if "cuobjdump" in path.name else "nvdisasm"
        return (kind, path) if path.is_file() else None
    for name in ("nvdisasm", "cuobjdump"):
        for d in _cuda_bin_dirs():
            if (d / name).is_file() and os.access(d / name, os.X_OK):
                return name, d / name
        if found := shutil.which(name):
            return name, Path(found)
    return None


@functools.cache
def hip_clang_version(toolchain: HipToolchain) -> tuple[int, int, int]:
    """The clang behind hipcc: (15, 0, 6) for Debian's ROCm 5.2."""
    out = run([toolchain.hipcc, "--version"], env=toolchain.env(), timeout=60).output
    if m := re.search(r"clang version (\d+)\.(\d+)\.(\d+)", out):
        return int(m.group(1)), int(m.group(2)), int(m.group(3))
    return (0, 0, 0)


def llvmlite_version() -> tuple[str, str] | None:
    """(llvmlite version, LLVM version) where llvmlite is installed; it is imported here
    only, and only when an AMD target needs it."""
    if importlib.util.find_spec("llvmlite") is None:
        return None
    import llvmlite
    import llvmlite.binding as llvm

    return str(llvmlite.__version__), ".".join(map(str, llvm.llvm_version_info))
