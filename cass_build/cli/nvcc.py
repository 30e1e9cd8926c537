"""``cass nvcc``: the nvcc-compatible driver (cass_build.nvcc). ``cli.main`` hands its
arguments over untouched, before argparse, since nvcc's flags are not argparse's."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

__all__ = ["add_parser"]


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "nvcc",
        help="an nvcc-compatible compiler driver that builds CUDA for AMD GPUs",
        description="Build CUDA sources for AMD with nvcc's command line (docs/zero-edit.md).",
        add_help=False,
    )
    parser.add_argument("args", nargs=argparse.REMAINDER)
    parser.set_defaults(run=_run)


def _run(args: argparse.Namespace, err: TextIO) -> int:
    from ..nvcc import main

    return main(list(args.args))
