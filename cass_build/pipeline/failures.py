"""Telling a tool's own failure from an error in the code it was given.

A compiler or translator that rejects code says where: ``file:line:col: error: ...``.
One that exits non-zero without any such line (missing, killed, a bad flag, a broken
install) failed on its own account, and the source must not be blamed for it: the
pipeline reports that as :class:`~cass_build.errors.ToolFailedError` (exit 2).

When the code is to blame, the hint says what to do about it: install a missing header's
package, or translate a local header that the check compiled untranslated (``--mirror``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._proc import NOT_RUN

__all__ = [
    "LOCATED_ERROR",
    "NOT_RUN",
    "UntranslatedHeader",
    "mirror_hint",
    "missing_header",
    "tool_failure",
    "untranslated_header",
]

LOCATED_ERROR = re.compile(
    r"^(?P<where>[^:\n]+:\d+:\d+): (?P<kind>error|fatal error): (?P<text>.*)$"
)


def tool_failure(code: int, output: str) -> str:
    """Why a tool that exited with ``code`` failed on its own account, or "" when its
    output holds an error at a line (then the code it was given is to blame)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    if any(LOCATED_ERROR.match(ln) for ln in lines):
        return ""
    first = lines[0] if lines else "no output"
    if code == NOT_RUN:
        return f"could not run: {first}"
    if code < 0:
        return f"was killed by signal {-code}: {first}"
    return f"exited with status {code}: {first}"


_NOT_FOUND = re.compile(r"'(?P<name>[^']+)' file not found")


@functools.cache
def _packages() -> dict[str, dict[str, object]]:
    import tomllib  # only when a check failed on a missing header

    path = Path(__file__).parent.parent / "data" / "packages" / "headers.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    by_name: dict[str, dict[str, object]] = {}
    for entry in doc["header"]:
        for name in entry["names"]:
            by_name[name] = entry
    return by_name


def missing_header(messages: Sequence[str]) -> str:
    """For the first header a compiler could not find in ``messages``: its name and the
    package that provides it (from ``data/packages/headers.toml``), as one sentence; ""
    when no header was missing."""
    found = next((m for line in messages if (m := _NOT_FOUND.search(line))), None)
    if found is None:
        return ""
    name = found["name"]
    entry = _packages().get(name) or _packages().get(name.rpartition("/")[2])
    if entry is None:
        return f"header '{name}' was not found: install its package, or add its directory with -I"
    parts = []
    if debian := entry.get("debian"):
        parts.append(f"apt-get install {debian} (Debian, Ubuntu)")
    if rocm := entry.get("rocm"):
        parts.append(f"apt-get install {rocm} (AMD's ROCm repository)")
    if pip := entry.get("pip"):
        parts.append(f"pip install {pip}")
    where = " or ".join(parts)
    note = str(entry.get("note", ""))
    if where and note:
        return f"header '{name}' was not found: {where}; {note}"
    return f"header '{name}' was not found: {where or note}"


@dataclass(frozen=True)
class UntranslatedHeader:
    """A local header the source includes that no mirror root covers, so nothing
    translated it, and where the compile check failed: ``root`` is the nearest directory
    above it and the source (the SRC of the ``--mirror`` that would cover both), ``depth``
    the number of parts of the source's path below ``root``."""

    header: Path
    root: Path
    depth: int

    def out_root(self, target: Path) -> Path | None:
        """The directory that stands for ``root`` when the source is written to ``target``
        (the same depth above it, so the source's relative #include finds the header's
        translation), or None when that would be the filesystem's root or ``root`` itself
        (the translation would replace the header)."""
        parents = target.resolve().parents
        if len(parents) <= self.depth:
            return None
        found = parents[self.depth - 1]
        return None if found.parent == found or found == self.root else found


def untranslated_header(
    message: str, source: Path, untranslated: Iterable[Path]
) -> UntranslatedHeader | None:
    """The header among ``untranslated`` (local headers the source reaches that were not
    translated) that the compiler's ``message`` (``file:line:col: error: ...``) points
    into, or None."""
    found = LOCATED_ERROR.match(message.strip())
    if found is None:
        return None
    where = Path(found["where"].rsplit(":", 2)[0]).resolve()
    header = next((h for h in untranslated if h.resolve() == where), None)
    if header is None:
        return None
    src = source.resolve()
    root = Path(os.path.commonpath([src.parent, where.parent]))
    return UntranslatedHeader(header, root, len(src.relative_to(root).parts))


def mirror_hint(found: UntranslatedHeader, out_root: Path | None = None) -> str:
    """What to do when the check failed in a header nothing translated: name --mirror."""
    dst = str(out_root) if out_root is not None else "OUT_ROOT"
    meaning = "" if out_root is not None else f" (the output tree's counterpart of {found.root})"
    return (
        f"{found.header} is a local header outside the output tree, so it was not translated "
        f"and the check compiled it as CUDA: pass --mirror {found.root}={dst}{meaning} to "
        "translate it into the output tree too, then translate again"
    )
