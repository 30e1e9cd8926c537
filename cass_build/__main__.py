"""``python -m cass_build``: the same as the ``cass`` command."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """``--cmakedir`` prints the CMake package directory, ``--includedir`` the directory of
    the headers translations include; anything else goes to the CLI."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--cmakedir"]:
        # Build systems call this on every configure: answer without loading the CLI.
        from . import get_cmake_dir

        try:
            print(get_cmake_dir())
        except ImportError as exc:
            print(f"cass: error: {exc}", file=sys.stderr)
            return 2
        return 0
    if args == ["--includedir"]:
        from . import include_dir

        print(include_dir())
        return 0
    from .cli import main as cli_main

    return cli_main(argv)


def exit_at_once(code: int) -> None:
    """Ends the process with ``code`` at once (``os._exit``), after a command that says it
    is complete (``cli._common.mark_complete``: every output and the report written and
    closed), its messages flushed, where nothing is left to run at exit: no other thread,
    no ``atexit`` function. The interpreter's teardown frees every object of the run one
    by one (2-3 ms of a tree's run) and would write nothing. Otherwise it returns, and
    the interpreter exits as usual."""
    common = sys.modules.get("cass_build.cli._common")
    if common is None or not common.is_complete():
        return
    import atexit

    pending = getattr(atexit, "_ncallbacks", None)  # CPython's; elsewhere, exit as usual
    if pending is None or pending() != 0:
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() != 1:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # reported by the interpreter's own exit, as always
        return
    import os

    os._exit(code)


def run() -> int:
    """The ``cass`` program: ``main``, then ``exit_at_once``."""
    code = main()
    exit_at_once(code)
    return code


if __name__ == "__main__":
    sys.exit(run())
