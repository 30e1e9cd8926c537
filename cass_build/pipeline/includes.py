"""Finding the local headers a source includes, transitively.

The answer feeds three things: the cache key (a header edit must miss the
cache), the depfile a build system reads, and the headers translated beside
the output with ``--mirror``. It errs on the side of listing too much: an
``#include`` inside an inactive ``#if`` still counts, and names that resolve
nowhere (system and toolkit headers) are left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

__all__ = ["local_includes"]

# Directives after a line splice or inside a comment are rare enough in
# headers worth tracking that a line-anchored pattern is the right cost.
# No ^ anchor: a pattern that starts with a literal '#' is searched for quickly,
# and the start of the line is checked by hand (a ^ under MULTILINE is tried at
# every byte, which made this scan cost more than translating the file).
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)')


def _directives(text: bytes) -> list[tuple[bytes, bytes]]:
    found = []
    for m in _INCLUDE.finditer(text):
        start = text.rfind(b"\n", 0, m.start()) + 1
        if not text[start : m.start()].strip(b" \t"):
            found.append((m.group(1) or b"", m.group(2) or b""))
    return found


def _resolve(name: str, here: Path, quoted: bool, include_dirs: Sequence[Path]) -> Path | None:
    search = [here, *include_dirs] if quoted else list(include_dirs)
    for directory in search:
        candidate = directory / name
        if candidate.is_file():
            return candidate.resolve()
    return None


def local_includes(
    source: Path, data: bytes, include_dirs: Sequence[Path] = (), *, resolved: Path | None = None
) -> tuple[Path, ...]:
    """Every header ``source`` reaches through the given directories, in discovery order.

    Quoted names are looked up beside the including file, then in
    ``include_dirs``; angled names in ``include_dirs`` only, as compilers do.
    """
    dirs = [d.resolve() for d in include_dirs]
    seen: dict[Path, None] = {}
    # Once (or never, when the caller has it): a resolve stats every component of the path.
    origin = resolved or source.resolve()
    pending: list[tuple[Path, bytes]] = [(origin, data)]
    while pending:
        path, text = pending.pop()
        for quoted, angled in _directives(text):
            if angled and not dirs:
                continue  # angled names are searched in include_dirs only
            raw = quoted or angled
            try:
                name = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
            found = _resolve(name, path.parent, bool(quoted), dirs)
            if found is None or found in seen or found == origin:
                continue
            seen[found] = None
            try:
                pending.append((found, found.read_bytes()))
            except OSError:
                continue
    return tuple(seen)
