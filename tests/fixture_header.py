"""The header of a fixture program: the ``// NAME: value`` lines at its top (FAMILIES,
NVCC, HAZARD, WAVE64, ...). The tests and the bench scripts over tests/fixtures read it
through :func:`directives`; the standard library alone, so that a bench script that
only runs nvcc imports no more."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["directives"]

_DIRECTIVE = re.compile(r"^//\s*([A-Z][A-Z0-9-]*):\s*(.*)$")
#: Directives sit in a program's first lines; code below them is never read as one.
_HEADER_LINES = 12


def directives(path: Path) -> dict[str, str]:
    """The directives in ``path``'s first lines, by name (a repeated name: the last)."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines()[:_HEADER_LINES]:
        if m := _DIRECTIVE.match(line.strip()):
            found[m.group(1)] = m.group(2).strip()
    return found
