"""``cass env``: the shell lines that put CASS's CUDA toolkit stand-in first.

``eval "$(cass env)"`` (or ``cass env --shell fish | source``) makes the build tools of an
unmodified CUDA project find the stand-in instead of a CUDA toolkit: CMake's CUDA
language (``CUDACXX``), ``FindCUDAToolkit`` (``CUDAToolkit_ROOT``), the legacy
``FindCUDA`` and Makefiles (``CUDA_PATH``, ``PATH``), and setup.py scripts
(``CUDA_HOME``). The variables are in ``docs/zero-edit.md``.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any, TextIO

from ._common import EXIT_OK

__all__ = ["add_parser", "lines", "run", "variables"]

SHELLS = ("sh", "fish")


def add_parser(sub: Any) -> None:
    env = sub.add_parser(
        "env",
        help="print shell lines that put the CUDA toolkit stand-in first",
        description="Print the shell lines that make CUDA build tools find CASS's CUDA "
        'toolkit stand-in: eval "$(cass env)", or cass env --shell fish | source.',
        allow_abbrev=False,
    )
    env.add_argument("--shell", choices=SHELLS, default="sh", help="sh (bash, zsh) or fish")
    env.set_defaults(run=run)


def variables(root: Path) -> dict[str, str]:
    """The variables to export, for the stand-in at ``root``."""
    nvcc = str(root / "bin" / "nvcc")
    return {
        "CUDA_PATH": str(root),
        "CUDA_HOME": str(root),
        "CUDAToolkit_ROOT": str(root),
        "CUDA_TOOLKIT_ROOT_DIR": str(root),
        "CUDACXX": nvcc,
        "NVCC": nvcc,
    }


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def lines(root: Path, shell: str) -> list[str]:
    """``export`` (or fish's ``set -gx``) lines, PATH last with the stand-in's bin first."""
    bin_dir = str(root / "bin")
    if shell == "fish":
        out = [f"set -gx {name} {_fish_quote(value)}" for name, value in variables(root).items()]
        out.append(f"set -gx PATH {_fish_quote(bin_dir)} $PATH")
        return out
    out = [f"export {name}={shlex.quote(value)}" for name, value in variables(root).items()]
    out.append(f'export PATH={shlex.quote(bin_dir)}"${{PATH:+:$PATH}}"')
    return out


def run(args: argparse.Namespace, err: TextIO) -> int:
    from ..toolkit import root

    print("\n".join(lines(root(), args.shell)))
    return EXIT_OK
