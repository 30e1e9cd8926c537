"""Listing the sources of a tree, and saying which entries could not be listed or read.

``Path.rglob`` skips a directory it cannot open and an entry that is not a file
without a word; a tree translated that way looks complete and is not. Here every
such entry becomes a one-line problem that names it, and the caller reports it
(exit 2) while the rest of the tree is still translated.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from pathlib import Path

__all__ = ["tree_sources"]


def tree_sources(root: Path, suffixes: Collection[str]) -> tuple[list[Path], list[str]]:
    """The files under ``root`` with one of ``suffixes``, sorted, as ``root / rel`` paths
    (spelled as the user spelled ``root``), and the problems met, sorted."""
    files: list[Path] = []
    problems: list[str] = []

    def unlistable(exc: OSError) -> None:
        where = exc.filename or root
        problems.append(f"{where}: cannot list this directory ({exc.strerror or exc}); "
                        "its files were not translated")  # fmt: skip

    # Symlinked directories are not followed (as rglob does): a link loop cannot recur.
    for top, dirs, names in os.walk(root, onerror=unlistable):
        dirs.sort()
        for name in names:
            path = Path(top, name)
            if path.suffix not in suffixes:
                continue
            try:
                mode = path.stat().st_mode
            except FileNotFoundError:
                problems.append(f"{path}: dangling symlink (its target is missing); not translated")
                continue
            except OSError as exc:
                problems.append(f"{path}: cannot read ({exc.strerror or exc}); not translated")
                continue
            if not stat.S_ISREG(mode):
                problems.append(f"{path}: not a regular file; not translated")
                continue
            files.append(path)
    files.sort()
    problems.sort()
    return files, problems
