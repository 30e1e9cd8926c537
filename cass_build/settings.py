"""Translation settings: one dataclass, a docstring per field.

Values come from keyword arguments, the command line, or ``CASS_*`` environment
variables (``CASS_HIP_VERSION=6.2``), in that order of precedence.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .errors import UsageError
from .rules.tables import parse_version

__all__ = ["NEWEST_HIP", "Settings", "installed_hip_version"]

#: The newest HIP release the tables know; the target when no HIP is installed.
NEWEST_HIP = (7, 1)

_VERSION_H = (Path("/opt/rocm/include/hip/hip_version.h"), Path("/usr/include/hip/hip_version.h"))


@dataclass(frozen=True)
class Settings:
    """How CUDA is translated to HIP."""

    hip_version: tuple[int, int] | None = None
    """HIP release targeted (``(5, 2)``); ``None`` means the installed hipcc's, else the newest."""

    launch_syntax: Literal["chevrons", "ggl"] = "chevrons"
    """Kernel launches as ``k<<<g, b>>>(...)`` (HIP accepts them) or ``hipLaunchKernelGGL``."""

    cuda_arch: int = 700
    """``__CUDA_ARCH__`` assumed in AMD device code when a ``#if`` compares it."""

    cuda_version: int = 12080
    """``CUDART_VERSION`` assumed, picking the code written for that CUDA release."""

    rename_cu_includes: bool = False
    """Rewrite quoted ``#include "x.cu"`` to ``"x.hip"`` (set when translating a tree)."""

    max_bytes: int = 64 * 1024 * 1024
    """Largest source accepted, in bytes; bigger files are refused with an error."""

    def resolved_hip_version(self) -> tuple[int, int]:
        """The HIP version to target: explicit, else installed, else newest."""
        return self.hip_version or installed_hip_version() or NEWEST_HIP

    def replace(self, **changes: object) -> Settings:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        """Settings with ``CASS_*`` environment variables applied."""
        env = os.environ if environ is None else environ
        changes: dict[str, object] = {}
        if value := env.get("CASS_HIP_VERSION"):
            try:
                changes["hip_version"] = parse_version(value)
            except ValueError as exc:
                msg = f"CASS_HIP_VERSION: {exc}"
                raise UsageError(msg) from None
        if value := env.get("CASS_LAUNCH_SYNTAX"):
            if value not in ("chevrons", "ggl"):
                msg = f"CASS_LAUNCH_SYNTAX={value!r}: expected chevrons or ggl"
                raise UsageError(msg)
            changes["launch_syntax"] = value
        return cls(**changes)  # type: ignore[arg-type]


_DEFINE = re.compile(rb"#define\s+HIP_VERSION_(MAJOR|MINOR)\s+(\d+)")


@functools.cache
def installed_hip_version() -> tuple[int, int] | None:
    """The HIP version of the installed toolchain, from its headers or hipconfig."""
    for header in _VERSION_H:
        try:
            found = dict(_DEFINE.findall(header.read_bytes()))
        except OSError:
            continue
        if b"MAJOR" in found and b"MINOR" in found:
            return (int(found[b"MAJOR"]), int(found[b"MINOR"]))
    hipconfig = shutil.which("hipconfig")
    if hipconfig:
        from ._proc import run

        try:
            return parse_version(
                run([hipconfig, "--version"], timeout=20).stdout.strip().split("-")[0]
            )
        except ValueError:
            return None
    return None
