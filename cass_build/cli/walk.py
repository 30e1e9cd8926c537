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
    problems: list[str] = []

    def unlistable(exc: OSError) -> None:
        where = exc.filename or root
        problems.append(f"{where}: cannot list this directory ({exc.strerror or exc}); "
                        "its files were not translated")  # fmt: skip

    # Symlinked directories are not followed (as rglob does): a link loop cannot recur.
    # Names are strings until the end: a tree has thousands, and each Path costs.
    found: list[tuple[list[str], str]] = []
    for top, dirs, names in os.walk(root, onerror=unlistable):
        dirs.sort()
        for name in names:
            dot = name.rfind(".")
            if not 0 < dot < len(name) - 1 or name[dot:] not in suffixes:  # Path.suffix
                continue
            joined = os.path.join(top, name)  # noqa: PTH118
            try:
                mode = os.stat(joined).st_mode  # noqa: PTH116 - a string, no Path yet
            except FileNotFoundError:
                path = Path(joined)
                problems.append(f"{path}: dangling symlink (its target is missing); not translated")
                continue
            except OSError as exc:
                path = Path(joined)
                problems.append(f"{path}: cannot read ({exc.strerror or exc}); not translated")
                continue
            if not stat.S_ISREG(mode):
                problems.append(f"{Path(joined)}: not a regular file; not translated")
                continue
            found.append((joined.split("/"), joined))
    # Sorted as Paths sort (by their parts), without making a Path for each comparison.
    found.sort(key=lambda item: [p for p in item[0] if p not in ("", ".")])
    problems.sort()
    return [Path(joined) for _, joined in found], problems
