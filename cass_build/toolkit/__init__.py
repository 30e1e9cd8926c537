"""The CUDA toolkit stand-in: a directory laid out like a CUDA toolkit root.

CMake (``project(LANGUAGES CUDA)``, ``FindCUDAToolkit``, the legacy ``FindCUDA``),
Makefiles calling ``$(CUDA_PATH)/bin/nvcc`` and setup.py scripts reading ``CUDA_HOME``
find in it what they look for: ``bin/nvcc`` (CASS's driver), ``include/`` (CUDA header
names that map the APIs to HIP for host compilers), ``lib64/`` (GNU ld scripts naming
the HIP libraries), ``version.json`` and ``version.txt``. Everything but ``bin/nvcc`` is
written by ``python -m cass_build.toolkit.generate`` from the mapping tables.

Importing this module is cheap: the driver's start-up goes through it.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

__all__ = ["CLIENT", "CUDA_VERSION", "interpreter_file", "nvcc", "root"]

#: The CUDA release the stand-in poses as: version files, ``CUDART_VERSION`` and
#: ``CUDA_VERSION`` in its headers (the core's default ``Options.cuda_version``).
CUDA_VERSION = (12, 8, 0)

#: The translation server's per-call client (cpp/client), installed in ``libexec/``.
CLIENT = "cass-nvcc-client"


def root() -> Path:
    """The stand-in's root (``CUDA_PATH``, ``CUDA_HOME``, ``CUDAToolkit_ROOT``).

    Also records the running interpreter for ``bin/nvcc`` where the install layout does
    not name it (see :func:`interpreter_file`), so the driver runs under the Python that
    has CASS even when its environment is not activated.
    """
    here = Path(__file__).resolve().parent
    _record_interpreter(here / "bin")
    return here


def nvcc() -> Path:
    """The stand-in's ``bin/nvcc``."""
    return root() / "bin" / "nvcc"


def interpreter_file() -> Path:
    """``bin/.python``: the interpreter ``bin/nvcc`` runs when the layout does not say.

    In a wheel install, ``<prefix>/lib/pythonX.Y/site-packages/cass_build/toolkit/bin``
    names ``<prefix>/bin/python3`` and nothing is written. An editable install keeps the
    package in its source tree, which names no interpreter: this file does.
    """
    return Path(__file__).resolve().parent / "bin" / ".python"


def _layout_prefix(bin_dir: Path) -> Path:
    # bin -> toolkit -> cass_build -> site-packages -> pythonX.Y -> lib -> prefix
    return bin_dir.parents[5] if len(bin_dir.parents) > 5 else bin_dir


def _record_interpreter(bin_dir: Path) -> None:
    prefix = _layout_prefix(bin_dir)
    if prefix.resolve() == Path(sys.prefix).resolve() and (prefix / "bin" / "python3").exists():
        return
    _record(bin_dir / ".python", sys.executable)
    _record_client(bin_dir)


def _record_client(bin_dir: Path) -> None:
    """``bin/.client``: the per-call client of the translation server, which CMake
    installs beside the core (``cass_build/libexec``); in an editable install that is
    not the source tree ``bin/nvcc`` lies in."""
    record = bin_dir / ".client"
    try:
        if Path(record.read_text(encoding="utf-8").strip()).is_file():
            return
    except OSError:
        pass
    import importlib.util

    spec = importlib.util.find_spec(f"{__package__.rpartition('.')[0]}._core")
    if spec is None or not spec.origin:
        return
    client = Path(spec.origin).parent / "libexec" / CLIENT
    if client.is_file():
        _record(record, str(client))


def _record(record: Path, value: str) -> None:
    text = value + "\n"
    try:
        if record.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    from .._files import write_atomic
    from ..errors import OutputError

    with contextlib.suppress(OutputError, OSError):
        # A read-only install keeps no record: bin/nvcc falls back to python3 on PATH
        # (and to the driver in-process, without the client).
        write_atomic(record, text.encode())
