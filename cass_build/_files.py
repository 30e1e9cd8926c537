"""Files: reading sources safely, the one atomic writer, the one cache directory.

A user's file is only ever read. Outputs go to a temporary file beside the
target and are renamed into place, so a crash never leaves half a file; every
file CASS writes (outputs, cache entries, derived tables, the HIP-on-CUDA layer)
goes through :func:`write_atomic`; a folder built whole (the HIP-on-CUDA layer, a
data set) goes through :func:`publish_dir`. :func:`cache_dir` is where everything
cached lives.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path

from .errors import InputError, OutputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

__all__ = [
    "atomic_text",
    "cache_dir",
    "check_ascii",
    "check_source",
    "locked",
    "publish_dir",
    "read_source",
    "store_quietly",
    "write_atomic",
    "write_if_changed",
]

_COUNTER = itertools.count()


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"


def _too_big(path: str, size: int, max_bytes: int) -> InputError:
    msg = f"{path}: {_size(size)} is over the {_size(max_bytes)} limit for one source"
    return InputError(msg, hint="split the file, or raise the limit with --max-bytes")


def _binary(path: str, offset: int) -> InputError:
    msg = f"{path}: binary file (NUL byte at offset {offset}); CASS translates CUDA source text"
    return InputError(msg, hint="pass the .cu/.cuh source, not an object file or archive")


def check_ascii(text: str, path: str, max_bytes: int) -> None:
    """check_source for a str of ASCII characters, which are its bytes: the size and
    NUL checks on the text itself, without encoding it."""
    if len(text) > max_bytes:
        raise _too_big(path, len(text), max_bytes)
    nul = text.find("\0")
    if nul >= 0:
        raise _binary(path, nul)


def check_source(data: bytes, path: str, max_bytes: int, *, decoded: bool = False) -> str:
    """Return ``data`` decoded, or raise InputError saying what is wrong with it.
    ``decoded``: the bytes are a str's strict encoding, so valid UTF-8; returns ''."""
    if len(data) > max_bytes:
        raise _too_big(path, len(data), max_bytes)
    nul = data.find(b"\0")
    if nul >= 0:
        raise _binary(path, nul)
    if decoded:
        return ""
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


def _read_all(fd: int, info: os.stat_result) -> bytes:
    if stat.S_ISREG(info.st_mode):
        # One read when the file still has the size fstat saw (the usual case);
        # reading on to the end otherwise (it grew, shrank or a read came up short).
        first = os.read(fd, info.st_size + 1)
        if len(first) == info.st_size:
            return first
        chunks = [first]
    else:
        chunks = []  # a pipe or a device: no size to go by
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _is_dir(path: Path) -> InputError:
    msg = f"{path}: is a directory"
    return InputError(msg, hint="pass --out-dir to translate a whole tree")


def read_source(path: Path, max_bytes: int) -> tuple[bytes, str]:
    """Read and check a source file; returns its bytes and text."""
    try:
        # One open, one fstat, one read: what the checks below need, and no more.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        msg = f"{path}: no such file"
        raise InputError(msg) from None
    except IsADirectoryError:
        raise _is_dir(path) from None
    except PermissionError:
        if path.is_dir():
            raise _is_dir(path) from None
        msg = f"{path}: permission denied"
        raise InputError(msg) from None
    except OSError as exc:
        msg = f"{path}: cannot read: {exc.strerror or exc}"
        raise InputError(msg) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _is_dir(path)
        if info.st_size > max_bytes:
            raise _too_big(str(path), info.st_size, max_bytes)
        data = _read_all(fd, info)
    except OSError as exc:
        msg = f"{path}: cannot read: {exc.strerror or exc}"
        raise InputError(msg) from None
    finally:
        os.close(fd)
    return data, check_source(data, str(path), max_bytes)


def _cannot_write(path: Path, exc: OSError) -> OutputError:
    return OutputError(f"{path}: cannot write: {exc.strerror or exc}")


def _refuse_input(path: Path) -> OutputError:
    return OutputError(
        f"{path}: refusing to overwrite an input file", hint="choose another -o path or --out-dir"
    )


def write_atomic(
    path: Path, data: bytes | Iterable[bytes], *, inputs: AbstractSet[Path] = frozenset()
) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: bytes, or pieces
    of them in order (made as they are written: a large text need not be whole in
    memory); the file gets its name only once every piece is written."""
    pieces: Iterable[bytes] = (data,) if isinstance(data, bytes | bytearray) else data
    name = path.name
    if name in ("", ".", "..") or not hasattr(os, "O_PATH"):
        _write_atomic_by_path(path, pieces, inputs)
        return
    # Everything happens relative to the output's directory, opened once: the
    # kernel walks the path once instead of once per call, and the directory's
    # real path comes from the kernel instead of a readlink per component.
    flags = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        try:
            dirfd = os.open(path.parent, flags)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            dirfd = os.open(path.parent, flags)
    except OSError as exc:
        raise _cannot_write(path, exc) from None
    try:
        try:
            old: os.stat_result | None = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
        except FileNotFoundError:
            old = None
        except OSError as exc:
            raise _cannot_write(path, exc) from None
        if old is not None and stat.S_ISLNK(old.st_mode):
            # A symlinked output: resolve it the long way (see _write_atomic_by_path).
            _write_atomic_by_path(path, pieces, inputs)
            return
        if inputs:
            try:
                real = str(Path(f"/proc/self/fd/{dirfd}").readlink())
            except OSError:
                real = ""
            if not real.startswith("/"):  # no /proc: resolve the long way
                _write_atomic_by_path(path, pieces, inputs)
                return
            if Path(real, name) in inputs:
                raise _refuse_input(path)
        _write_in(dirfd, name, pieces, old, path)
    finally:
        os.close(dirfd)


def _write_in(
    dirfd: int, name: str, data: Iterable[bytes], old: os.stat_result | None, path: Path
) -> None:
    tmp = f".{name}.{os.getpid()}.{next(_COUNTER)}.tmp"
    try:
        # O_EXCL on a name of our own: no race with another writer, and the mode
        # follows the umask like any file the user's tools create.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666, dir_fd=dirfd)
        try:
            try:
                for piece in data:
                    view = memoryview(piece)
                    while view:
                        view = view[os.write(fd, view) :]
                if old is not None:  # a replaced output keeps its mode
                    os.fchmod(fd, stat.S_IMODE(old.st_mode))
            finally:
                os.close(fd)
            os.rename(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dirfd)
            raise
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def _write_atomic_by_path(path: Path, data: Iterable[bytes], inputs: AbstractSet[Path]) -> None:
    """write_atomic for outputs that are symlinks, or where the fast path cannot go."""
    resolved = path.resolve() if inputs else path
    if resolved in inputs:
        raise _refuse_input(path)
    tmp = resolved.with_name(f".{resolved.name}.{os.getpid()}.{next(_COUNTER)}.tmp")
    try:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileNotFoundError:
            resolved.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as handle:
                for piece in data:
                    handle.write(piece)
            with contextlib.suppress(FileNotFoundError):  # a replaced output keeps its mode
                tmp.chmod(resolved.stat().st_mode & 0o7777)
            tmp.replace(resolved)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise _cannot_write(path, exc) from None


@contextlib.contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A text file written as it streams and renamed into place when the block ends
    without an error: a long job's output appears only once complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{next(_COUNTER)}.tmp")
    try:
        with partial.open("w", encoding="utf-8") as out:
            yield out
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def write_if_changed(path: Path, data: bytes, inputs: AbstractSet[Path] = frozenset()) -> bool:
    """Write unless the file already holds ``data``: unchanged files keep their timestamps."""
    try:
        with path.open("rb") as old:  # one open: a missing file costs no stat beforehand
            if os.fstat(old.fileno()).st_size == len(data) and old.read() == data:
                return False
    except OSError:
        pass
    write_atomic(path, data, inputs=inputs)
    return True


def store_quietly(path: Path, data: bytes) -> None:
    """Write a derived file (a cache entry, a parsed table, a probed compiler command)
    atomically; a read-only or full cache only costs recomputing it next time, so a
    failure to write is ignored."""
    with contextlib.suppress(OutputError):
        write_atomic(path, data)


def cache_dir() -> Path:
    """``$CASS_CACHE_DIR``, else the user cache directory (platformdirs' answer), else, where
    platformdirs is missing on a platform that needs it, a per-user temporary folder."""
    from .settings import environment

    if root := environment().cache_dir:
        return Path(root)
    if sys.platform == "linux":
        # platformdirs' answer on Linux (the XDG base directories), without importing it:
        # every build step needs this directory, and the import costs 30 ms of CPU.
        if (xdg := Path(os.environ.get("XDG_CACHE_HOME", ""))).is_absolute():
            return xdg / "cass"
        if (home := Path(os.environ.get("HOME", ""))).is_absolute():
            return home / ".cache" / "cass"
    try:
        from platformdirs import user_cache_dir
    except ImportError:
        import tempfile

        return Path(tempfile.gettempdir()) / f"cass-{os.getuid()}"
    return Path(user_cache_dir("cass", appauthor=False))


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created): one process computes, the others wait
    and then read; where the lock cannot be taken, correctness holds through atomic renames."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


# A rename onto a folder that is there and not empty fails with one of these.
_TAKEN = (errno.EEXIST, errno.ENOTEMPTY)


@contextlib.contextmanager
def publish_dir(
    final: Path, *, replace: bool = False, marker: str = "", hint: str = ""
) -> Iterator[Path]:
    """A private sibling folder to build ``final`` in, moved into place with one rename
    when the block ends without an error and removed otherwise: no reader ever sees
    half a folder.

    ``replace=False``: ``final`` is built once, named for what it holds, so a folder
    already there (a concurrent builder of the same name won the race) is as good as
    ours, which is dropped. ``replace=True``: an older ``final`` is replaced; it is
    moved aside first and removed once the new one is in place. ``marker``: a file
    written into the folder just before the rename; a ``final`` without it is a
    leftover of an older writer and is replaced. ``hint``: the OutputError's hint.
    """
    import shutil  # here, not above: a build step that only writes files never needs them
    import tempfile

    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{final.name}.tmp-", dir=final.parent))
    except OSError as exc:
        msg = f"{final}: cannot create the folder: {exc.strerror or exc}"
        raise OutputError(msg, hint=hint) from None
    try:
        yield work
        if marker:
            (work / marker).write_bytes(b"")
        _move_in(work, final, replace=replace, marker=marker, hint=hint)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _move_in(work: Path, final: Path, *, replace: bool, marker: str, hint: str) -> None:
    import shutil
    import tempfile

    aside: list[Path] = []
    try:
        # Each pass either puts ``work`` in place, finds a winner's folder, or moves a
        # folder out of the way; a few passes cover builders that race on each step.
        for _ in range(8):
            try:
                work.rename(final)
                return
            except OSError as exc:
                if exc.errno not in _TAKEN:
                    msg = f"{final}: cannot move the new folder into place: {exc.strerror or exc}"
                    raise OutputError(msg, hint=hint) from None
            if not replace and (not marker or (final / marker).exists()):
                return  # another builder's complete folder: ours is dropped
            try:
                old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old-", dir=final.parent))
                aside.append(old)
                with contextlib.suppress(FileNotFoundError):  # another builder moved it first
                    final.rename(old / final.name)
            except OSError as exc:
                msg = f"{final}: cannot move the old folder aside: {exc.strerror or exc}"
                raise OutputError(msg, hint=hint) from None
        msg = f"{final}: other processes keep replacing this folder"
        raise OutputError(msg, hint=hint)
    finally:
        for old in aside:
            shutil.rmtree(old, ignore_errors=True)
