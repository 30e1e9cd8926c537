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

__all__ = ["tree_names", "tree_sources"]


def tree_sources(root: Path, suffixes: Collection[str]) -> tuple[list[Path], list[str]]:
    """The files under ``root`` with one of ``suffixes``, sorted, as ``root / rel`` paths
    (spelled as the user spelled ``root``), and the problems met, sorted."""
    rels, problems, _ = tree_names(root, suffixes)
    return [root / rel for rel in rels], problems


def tree_names(
    root: Path, suffixes: Collection[str]
) -> tuple[list[str], list[str], frozenset[str]]:
    """``tree_sources`` as the paths under ``root`` (``rel``, '/'-separated strings), the
    problems met, sorted, and the paths among them that are symlinks (to files): the
    others are known to be plain files, which the core need not look at again."""
    problems: list[str] = []
    top = str(root)
    prefix = "" if top == "." else top if top.endswith("/") else top + "/"

    def unlistable(exc: OSError) -> None:
        where = exc.filename or root
        problems.append(f"{where}: cannot list this directory ({exc.strerror or exc}); "
                        "its files were not translated")  # fmt: skip

    # Symlinked directories are not followed (as rglob does): a link loop cannot recur.
    # os.walk's order and errors, with the entries' types from the directory listing: a
    # plain file needs no stat of its own (most of the cost of listing a tree before).
    # Names are strings until the end: a tree has thousands, and each Path costs.
    found: list[str] = []
    links: set[str] = set()
    pending = [(top, "")]
    while pending:
        where, under = pending.pop()
        try:
            with os.scandir(where) as listing:
                entries = list(listing)
        except OSError as exc:
            unlistable(exc)
            continue
        # In a directory that can be listed but not searched, a stat of an entry fails
        # where its listed type does not: those entries are stat'ed, as os.walk's were.
        searchable = os.access(where, os.X_OK)
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if not _is_symlink(entry):
                    pending.append((os.path.join(where, name), under + name + "/"))  # noqa: PTH118
                continue
            dot = name.rfind(".")
            if not 0 < dot < len(name) - 1 or name[dot:] not in suffixes:  # Path.suffix
                continue
            rel = under + name
            if not (searchable and _is_plain_file(entry)):  # a symlink, a FIFO and such
                problem = _not_a_file(os.path.join(where, name), prefix + rel)  # noqa: PTH118
                if problem:
                    problems.append(problem)
                    continue
                links.add(rel)
            found.append(rel)
    # Sorted as Paths sort (by their parts): "/" as NUL, which no name holds and every
    # character sorts after, orders the strings as their lists of parts, and a string
    # compares in C where a list of parts compares part by part (10x the time).
    found.sort(key=lambda rel: rel.replace("/", "\0"))
    problems.sort()
    return found, problems, frozenset(links)


def _is_symlink(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False  # os.path.islink's answer, which os.walk asks


def _is_plain_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False  # then os.stat says why


def _not_a_file(joined: str, spelled: str) -> str:
    """Why the entry at ``joined`` (not a plain file itself) is not translated, or ""
    when it is a symlink to one."""
    try:
        mode = os.stat(joined).st_mode  # noqa: PTH116 - a string, no Path yet
    except FileNotFoundError:
        return f"{spelled}: dangling symlink (its target is missing); not translated"
    except OSError as exc:
        return f"{spelled}: cannot read ({exc.strerror or exc}); not translated"
    if not stat.S_ISREG(mode):
        return f"{spelled}: not a regular file; not translated"
    return ""
