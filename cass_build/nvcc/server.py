"""The translation server behind the stand-in's ``bin/nvcc``: one warm process, a fork per call.

A build runs nvcc once per file, and a fresh interpreter with the standard library the
driver needs costs more than the driver's budget of 50 ms a call. This server imports
the driver's modules and loads the core's table once; for each call the per-call client
(``cpp/client/nvcc_client.cpp``) connects to its Unix socket and passes argv, cwd, umask,
the environment and its stdin/stdout/stderr, and the server forks a child that takes
them on and runs the same :func:`cass_build.nvcc.main`. The parent never runs a call:
every child starts from the state the server had after warming up, so a translation
stays a function of its own inputs.

The server exits after ``CASS_NVCC_SERVER_IDLE`` seconds without a call (default 300),
and when the package's files change under it (it answers ``stale`` and the client
starts a fresh one). A lock beside the socket keeps one server per socket when clients
start several at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import importlib
import importlib.util
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["DEFAULT_IDLE", "code_stamp", "serve"]

#: Seconds without a call after which the server exits.
DEFAULT_IDLE = 300.0

_PACKAGE = Path(__file__).resolve().parents[1]

#: What a call imports, cold or cached (found with ``sys.modules`` after each): the
#: server imports it all once, so no child pays for an import.
_PRELOAD = (
    "cass_build.api",
    "cass_build.model",
    "cass_build.model.guards",
    "cass_build.model.units",
    "cass_build.model_files",
    "cass_build.nvcc.driver",
    "cass_build.nvcc.flags",
    "cass_build.nvcc.identity",
    "cass_build.nvcc.libraries",
    "cass_build.nvcc.steps",
    "cass_build.pipeline._driver",
    "cass_build.pipeline.cache",
    "cass_build.pipeline.chain",
    "cass_build.pipeline.failures",
    "cass_build.pipeline.fingerprint",
    "cass_build.pipeline.includes",
    "cass_build.pipeline.outputs",
    "cass_build.pipeline.strategies",
    "cass_build.pipeline.toolchain",
    "cass_build.pipeline.verify",
    "cass_build.rules",
    "cass_build.rules.diagnostics",
    "cass_build.rules.stats",
    "cass_build.toolkit",
    "encodings.ascii",
    "json",
    "shlex",
    "subprocess",
    "tempfile",
    "tomllib",
)

# Files of the package that are written while it runs, never code.
_RUNTIME_FILES = frozenset({".python", ".client"})


def code_stamp() -> tuple[tuple[str, int, int], ...]:
    """Every file of the package (code, tables, headers) and the core, by name, size and
    mtime: what a reinstall or an edit changes. Taken before the imports, so a change
    while the server starts is seen on its first call."""
    found: list[tuple[str, int, int]] = []
    _stamp_dir(str(_PACKAGE), found)
    core = _core_path()
    if core and not core.startswith(str(_PACKAGE)):
        with contextlib.suppress(OSError):  # an editable install keeps it elsewhere
            st = Path(core).stat()
            found.append((core, st.st_size, st.st_mtime_ns))
    return tuple(found)


@functools.cache
def _core_path() -> str:
    """Where the core is (asked once: a reinstall rewrites the file, and its stamp shows
    that)."""
    spec = importlib.util.find_spec("cass_build._core")
    return spec.origin if spec is not None and spec.origin else ""


def _stamp_dir(top: str, found: list[tuple[str, int, int]]) -> None:
    with os.scandir(top) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    _stamp_dir(entry.path, found)
            elif not entry.name.endswith(".pyc") and entry.name not in _RUNTIME_FILES:
                with contextlib.suppress(OSError):
                    st = entry.stat()
                    found.append((entry.path, st.st_size, st.st_mtime_ns))


def _warm() -> None:
    """Import what calls import and build what every call builds the same way: the core's
    table, the flag and library tables, the code and table digests (all functions of the
    package's files alone, which :func:`code_stamp` watches). Nothing that depends on a
    call's environment (the HIP toolchain, the archs, the cache directory's contents) is
    touched: each child finds that out for itself."""
    for name in _PRELOAD:
        importlib.import_module(name)
    from .. import model, rules
    from ..pipeline import fingerprint, includes, strategies
    from ..rules import diagnostics, tables
    from . import flags, libraries

    warmers: list[Callable[[], object]] = [
        rules.core_table,
        rules._family_names,
        flags.flag_table,
        flags._by_name,
        flags._attached,
        libraries.libraries,
        libraries.driver_map,
        diagnostics.table,
        model.hazard_rules,
        fingerprint.code_digest,
        tables.tables_digest,
        strategies._rules_fingerprint,
        includes._system_roots,
    ]
    for warm in warmers:
        warm()
    import gc

    gc.collect()
    gc.freeze()  # children share these pages: keep the collector from writing to them


def _idle_seconds() -> float:
    from ..settings import environment

    text = environment().nvcc_server_idle
    try:
        return max(1.0, float(text)) if text else DEFAULT_IDLE
    except ValueError:
        return DEFAULT_IDLE


def _say(ready_fd: int, word: bytes) -> None:
    if ready_fd >= 0:
        with contextlib.suppress(OSError):
            os.write(ready_fd, word)
            os.close(ready_fd)


def serve(argv: list[str] | None = None) -> int:
    """``serve(["DIR", "NAME", "READY_FD"])``: listen on ``DIR/NAME`` until idle or stale.

    Run by the client, detached, in its own session. Says ``ready`` (listening) or
    ``busy`` (another server holds the lock) on ``READY_FD``, then closes it."""
    args = sys.argv[1:] if argv is None else argv
    directory, name = args[0], args[1]
    ready_fd = int(args[2]) if len(args) > 2 else -1
    stamp = code_stamp()
    os.chdir(directory)  # relative names: a deep cache directory would not fit sun_path
    lock = os.open(f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    if not _take(lock, 0.0):
        # Another server has it, or is going away (idle, stale): the client polls the
        # socket meanwhile, and this one takes over if the lock comes free soon.
        _say(ready_fd, b"busy\n")
        ready_fd = -1
        if not _take(lock, 3.0):
            return 0
    with contextlib.suppress(OSError):
        os.ftruncate(2, 0)  # NAME.log: this server's errors only (a tty refuses: fine)
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())  # which process serves this socket
    _warm()
    with contextlib.suppress(FileNotFoundError):
        Path(name).unlink()  # a dead server's socket: we hold the lock, so it is no one's
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(name)
    listener.listen(64)
    _say(ready_fd, b"ready\n")
    try:
        _loop(listener, lock, stamp, _idle_seconds())
    finally:
        with contextlib.suppress(OSError):
            if Path(name).stat().st_ino == os.fstat(listener.fileno()).st_ino:
                Path(name).unlink()
        listener.close()
        with contextlib.suppress(OSError):
            os.close(lock)  # at once: a client may be starting the next server
    return 0


def _take(lock: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def _loop(
    listener: socket.socket, lock: int, stamp: tuple[tuple[str, int, int], ...], idle: float
) -> None:
    last = time.monotonic()
    server = os.getpid()
    while True:
        _reap()
        left = idle - (time.monotonic() - last)
        if left <= 0:
            return
        ready, _, _ = select.select([listener], [], [], min(left, 5.0))
        if not ready:
            continue
        conn, _ = listener.accept()
        last = time.monotonic()
        if code_stamp() != stamp:
            # Changed code must never serve a call: give up the name and the lock first,
            # so that the server the client starts next, on the new code, can take both.
            with contextlib.suppress(OSError):
                Path(listener.getsockname()).unlink()
            os.close(lock)
            with contextlib.suppress(OSError):
                conn.sendall(b"stale\n")
            conn.close()
            return
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            listener.close()
            os.close(lock)
            _child(conn, server)  # never returns
        conn.close()


def _reap() -> None:
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def _read_request(conn: socket.socket) -> tuple[list[int], list[str]]:
    header, fds, _, _ = socket.recv_fds(conn, 4, 3)
    if len(header) < 4:
        header += _recv_exactly(conn, 4 - len(header))
    size = int.from_bytes(header, "little")
    payload = _recv_exactly(conn, size)
    fields = payload.split(b"\0")[:-1]
    return fds, [os.fsdecode(f) for f in fields]


def _recv_exactly(conn: socket.socket, size: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = conn.recv(min(size, 1 << 20))
        if not chunk:
            msg = "the client left mid-request"
            raise ConnectionError(msg)
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _watch(conn: socket.socket) -> None:
    """The client went away (killed, or its build interrupted): end this call and the
    compilers it runs, which nobody waits for any more."""
    with contextlib.suppress(OSError):
        conn.recv(1)
    os.killpg(os.getpgid(0), signal.SIGKILL)


def _child(conn: socket.socket, server: int) -> None:
    code = 1
    try:
        os.setpgid(0, 0)  # its own group: the client passes Ctrl-C on to all of it
        fds, fields = _read_request(conn)
        if len(fds) != 3 or len(fields) < 4 or fields[0] != "CASSNVCC1":
            os._exit(1)  # nothing ran: the client runs the driver in-process
        cwd, umask, argc = fields[1], int(fields[2]), int(fields[3])
        args, env = fields[4 : 4 + argc], fields[4 + argc :]
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(cwd)
        os.umask(umask)
        os.environ.clear()
        os.environ.update(dict(entry.split("=", 1) for entry in env if "=" in entry))
        time.tzset()  # TZ is read once per process, and the call's may differ
        conn.sendall(f"pid {os.getpid()}\n".encode())
    except (OSError, ValueError):
        os._exit(1)
    threading.Thread(target=_watch, args=(conn,), daemon=True).start()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.reconfigure(line_buffering=os.isatty(stream.fileno()))  # type: ignore[union-attr]
    sys.argv = ["nvcc", *args]
    try:
        from . import main

        code = main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # the client must get an exit code, whatever happened
        print(f"cass nvcc: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 1
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.flush()
    _record(server, code)
    with contextlib.suppress(OSError):
        conn.sendall(f"rc {code}\n".encode())
    os._exit(0)


def _record(server: int, code: int) -> None:
    """``CASS_NVCC_SERVER_STATS``: one line per call served (the server's pid, this
    child's, its own CPU in ms, children excluded, and the exit code), which
    bench/nvcc_percall.py adds to the client's CPU and the tests read to tell a served
    call from an in-process one."""
    from ..settings import environment

    path = environment().nvcc_server_stats
    if not path:
        return
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)  # reset at fork: this call's alone
    cpu = 1000 * (usage.ru_utime + usage.ru_stime)
    line = f"server={server} child={os.getpid()} cpu_ms={cpu:.3f} rc={code}\n"
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
