"""Checking output paths before any work: a run that translates and compiles a whole
tree must not find out at the end that ``-o`` names a directory."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import OutputError

__all__ = ["check_output_dir", "check_output_file"]


def _blocking_ancestor(path: Path) -> tuple[Path | None, Path]:
    """The first existing ancestor that is not a directory (None if all are), and the
    nearest existing directory, where the output's directories would be created."""
    for parent in path.parents:
        if parent.exists():
            return (None if parent.is_dir() else parent), parent
    return None, Path()


def _check_parents(option: str, path: Path) -> None:
    blocker, existing = _blocking_ancestor(path)  # as spelled: messages name it so
    if blocker is not None:
        msg = f"{option} {path}: {blocker} is not a directory"
        raise OutputError(msg, hint=f"remove {blocker} or choose another {option}")
    if not os.access(existing, os.W_OK | os.X_OK):
        msg = f"{option} {path}: cannot write in {existing}: permission denied"
        raise OutputError(msg, hint=f"choose another {option}")


def check_output_file(option: str, path: Path) -> None:
    """``path`` can be written as a file: it is not a directory and its parents can be."""
    if path.is_dir():
        msg = f"{option} {path}: is a directory; {option} names a file"
        raise OutputError(msg, hint="use --out-dir to write into a directory")
    _check_parents(option, path)


def check_output_dir(option: str, path: Path) -> None:
    """``path`` is a directory, or one can be created there."""
    if path.exists() and not path.is_dir():
        msg = f"{option} {path}: is not a directory"
        raise OutputError(msg, hint=f"remove it or choose another {option}")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            msg = f"{option} {path}: cannot write in it: permission denied"
            raise OutputError(msg, hint=f"choose another {option}")
        return
    _check_parents(option, path)
