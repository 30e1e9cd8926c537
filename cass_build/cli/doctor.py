"""``cass doctor``: what CASS found on this machine, what is missing, how to install it."""

from __future__ import annotations

import argparse
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from ..pipeline.toolchain import (
    default_archs,
    find_hip,
    find_nvcc,
    find_program,
    install_hint,
    supported_archs,
)

__all__ = ["Check", "add_parser", "checks", "run", "run_doctor", "setuptools_check"]


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    found: str
    """What was found, or why it is missing."""
    needed_for: str
    install: str = ""


def _gpu() -> str | None:
    if Path("/dev/kfd").exists():
        return "AMD (/dev/kfd)"
    if shutil.which("nvidia-smi") and any(Path("/dev").glob("nvidia[0-9]*")):
        return "NVIDIA (/dev/nvidia*)"
    return None


def _model_summary() -> str:
    import json

    from ..model import model_dir

    directory = model_dir()
    try:
        cfg = json.loads((directory / "config.json").read_text())
        size = sum(p.stat().st_size for p in directory.iterdir() if p.is_file())
    except (OSError, ValueError):
        return str(directory)
    return f"{directory}, {cfg.get('parameters', '?')} parameters, {size / 2**20:.1f} MiB"


#: setuptools reads ``[tool.setuptools] ext-modules`` from pyproject.toml from 69.0 on.
SETUPTOOLS_FOR_EXT_MODULES = 69


def setuptools_check(version: str | None = None) -> Check:
    """Whether the installed setuptools (or ``version``) reads pyproject ``ext-modules``."""
    if version is None:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as installed

        try:
            version = installed("setuptools")
        except PackageNotFoundError:
            version = ""
    major = version.split(".", 1)[0]
    ok = major.isdigit() and int(major) >= SETUPTOOLS_FOR_EXT_MODULES
    if not version:
        found = "not installed"
    elif ok:
        found = version
    else:
        found = f"{version}: too old for [tool.setuptools] ext-modules in pyproject.toml"
    return Check(
        "setuptools",
        ok,
        found,
        "pyproject.toml ext-modules builds without build isolation (examples/pyproject_ext)",
        f"pip install 'setuptools>={SETUPTOOLS_FOR_EXT_MODULES}'",
    )


def checks() -> list[Check]:
    """Every tool CASS can use, found or not."""
    found: list[Check] = []
    hip = find_hip()
    if hip is not None:
        archs = supported_archs(hip)
        where = f"{hip.hipcc} (HIP {hip.version_text}, {hip.layout} layout, {hip.rocm_path})"
        found.append(Check("hipcc", True, where, "syntax and compile verification"))
        found.append(
            Check(
                "device libraries",
                hip.device_lib_dir is not None,
                f"{hip.device_lib_dir} ({len(archs)} archs)" if hip.device_lib_dir else "missing",
                "code objects for AMD GPUs",
                "apt-get install -y rocm-device-libs",
            )
        )
        found.append(Check("default archs", True, " ".join(default_archs()), "verification"))
    else:
        found.append(
            Check(
                "hipcc",
                False,
                "not found in $CASS_HIPCC, $ROCM_PATH, /opt/rocm, PATH",
                "syntax and compile verification",
                install_hint(),
            )
        )
    nvcc = find_nvcc()
    found.append(
        Check(
            "nvcc",
            nvcc is not None,
            f"{nvcc.nvcc} (CUDA {nvcc.version})" if nvcc else "not found",
            "CUDA builds (CASS_BACKEND=cuda) and run verification on NVIDIA GPUs",
            "install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads)",
        )
    )
    gpu = _gpu()
    found.append(
        Check(
            "GPU",
            gpu is not None,
            gpu or "none",
            "run verification",
            "run on a machine with an AMD or NVIDIA GPU",
        )
    )
    for tool, why, how in (
        ("cmake", "find_package(CASS)", "pip install cmake"),
        ("ninja", "the CMake examples", "pip install ninja"),
        ("hipify-perl", "the hipify-perl strategy (optional)", "install ROCm's HIPIFY"),
        ("hipify-clang", "the hipify-clang strategy (optional)", "install ROCm's HIPIFY"),
    ):
        path = find_program(tool)
        found.append(Check(tool, path is not None, str(path or "not on PATH"), why, how))
    found.append(setuptools_check())
    import importlib.util

    has_llvmlite = importlib.util.find_spec("llvmlite") is not None
    found.append(
        Check(
            "llvmlite",
            has_llvmlite,
            "installed" if has_llvmlite else "missing",
            "cass asm for gfx942, gfx950, gfx1100, gfx1200, gfx1201",
            "pip install 'cass-build[asm]'",
        )
    )
    from ..asm._tools import nvidia_disassembler

    disasm = nvidia_disassembler()
    found.append(
        Check(
            "nvdisasm",
            disasm is not None,
            f"{disasm[0]} ({disasm[1]})" if disasm else "missing",
            "NVIDIA SASS listings in cass asm",
            "pip install 'cass-build[asm]'",
        )
    )
    from ..pipeline.strategies import ModelStrategy

    reason = ModelStrategy().unavailable()
    found.append(
        Check(
            "model",
            reason is None,
            reason or f"installed ({_model_summary()})",
            "the model strategy (auto: model, verify, then rules)",
            "pip install --force-reinstall cass-build (the model ships in the wheel)",
        )
    )
    from ..pipeline.cache import Cache

    info = Cache().info()
    found.append(
        Check(
            "cache",
            True,
            f"{info.path} ({info.entries} entries, {info.bytes / 2**20:.1f} MiB)",
            "fast rebuilds",
        )
    )
    return found


def run_doctor(out: TextIO) -> int:
    """Print the checks; exit 0 when verification can run here, else 1."""
    results = checks()
    for c in results:
        mark = "ok " if c.ok else "-- "
        out.write(f"{mark} {c.name:<17} {c.found}\n")
    missing = [c for c in results if not c.ok and c.install]
    if missing:
        out.write("\nmissing:\n")
        for c in missing:
            out.write(f"  {c.name} (for {c.needed_for}): {c.install}\n")
    from ..settings import unknown_variables

    for problem in unknown_variables():
        out.write(f"warning: {problem}\n")
    return 0 if results[0].ok else 1


def add_parser(sub: Any) -> None:
    doctor = sub.add_parser("doctor", help="show the toolchains CASS found and what is missing")
    doctor.set_defaults(run=run)


def run(args: argparse.Namespace, err: TextIO) -> int:
    """``cass doctor``: the checks on stdout."""
    return run_doctor(sys.stdout)
