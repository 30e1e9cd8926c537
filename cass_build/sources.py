"""Reading sources safely and writing outputs atomically.

A user's file is only ever read. Outputs go to a temporary file beside the
target and are renamed into place, so a crash never leaves half a file.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

from .errors import InputError, OutputError

__all__ = ["check_source", "read_source", "write_atomic"]

_COUNTER = itertools.count()


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"


def _too_big(path: str, size: int, max_bytes: int) -> InputError:
    msg = f"{path}: {_size(size)} is over the {_size(max_bytes)} limit for one source"
    return InputError(msg, hint="split the file, or raise the limit with --max-bytes")


def check_source(data: bytes, path: str, max_bytes: int) -> str:
    """Return ``data`` decoded, or raise InputError saying what is wrong with it."""
    if len(data) > max_bytes:
        raise _too_big(path, len(data), max_bytes)
    nul = data.find(b"\0")
    if nul >= 0:
        msg = f"{path}: binary file (NUL byte at offset {nul}); CASS translates CUDA source text"
        raise InputError(msg, hint="pass the .cu/.cuh source, not an object file or archive")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        msg = (
            f"{path}:{line}:{column}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "CASS reads sources as UTF-8"
        )
        raise InputError(msg, hint="re-save the file as UTF-8 (iconv -f latin1 -t utf-8)") from None


def read_source(path: Path, max_bytes: int) -> tuple[bytes, str]:
    """Read and check a source file; returns its bytes and text."""
    try:
        if path.is_dir():
            msg = f"{path}: is a directory"
            raise InputError(msg, hint="pass --out-dir to translate a whole tree")
        size = path.stat().st_size
        if size > max_bytes:
            raise _too_big(str(path), size, max_bytes)
        data = path.read_bytes()
    except FileNotFoundError:
        msg = f"{path}: no such file"
        raise InputError(msg) from None
    except PermissionError:
        msg = f"{path}: permission denied"
        raise InputError(msg) from None
    except OSError as exc:
        msg = f"{path}: cannot read: {exc.strerror or exc}"
        raise InputError(msg) from None
    return data, check_source(data, str(path), max_bytes)


def write_atomic(path: Path, data: bytes, *, inputs: frozenset[Path] = frozenset()) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    resolved = path.resolve() if inputs else path
    if resolved in inputs:
        msg = f"{path}: refusing to overwrite an input file"
        raise OutputError(msg, hint="choose another -o path or --out-dir")
    # O_EXCL on a name of our own: no race with another writer, and the mode
    # follows the umask like any file the user's tools create.
    tmp = resolved.with_name(f".{resolved.name}.{os.getpid()}.{next(_COUNTER)}.tmp")
    try:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileNotFoundError:
            resolved.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            with contextlib.suppress(FileNotFoundError):  # a replaced output keeps its mode
                tmp.chmod(resolved.stat().st_mode & 0o7777)
            tmp.replace(resolved)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        msg = f"{path}: cannot write: {exc.strerror or exc}"
        raise OutputError(msg) from None
