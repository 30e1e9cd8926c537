"""``cass nvcc``: an nvcc-compatible compiler driver that builds CUDA for AMD GPUs.

``flags`` reads nvcc's command line through the flag table (data/nvcc/flags.toml),
``identity`` answers what build systems ask nvcc (``--version``, ``-v``, CMake's
identification source), ``steps`` translates, compiles, preprocesses and links, and
``driver`` runs them. ``python -m cass_build.nvcc`` and ``cass nvcc`` both run ``main``.
Importing this package loads nothing heavy: the pipeline loads when a file is built.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the driver; returns its exit code."""
    from .driver import main as driver_main

    return driver_main(argv)
