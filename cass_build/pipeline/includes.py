"""Finding the local headers a source includes, transitively.

The answer feeds three things: the cache key (a header edit must miss the
cache), the depfile a build system reads, and the headers translated beside
the output with ``--mirror``. It errs on the side of listing too much: an
``#include`` inside an inactive ``#if`` still counts, and names that resolve
nowhere (system and toolkit headers) are left out.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["is_system_dir", "local_dirs", "local_includes"]

# A CUDA toolkit's include directories (/usr/local/cuda-13.0/targets/x86_64-linux/include,
# its cccl/, the HPC SDK's .../cuda/12.3/include): the same pattern CASSFunctions.cmake
# keeps away from hipcc.
_TOOLKIT = re.compile(r"/cuda(-[0-9.]+|/[0-9.]+)?/(targets/[^/]+/)?include(/cccl)?/?$")
_SYSTEM_ROOTS = ("/usr/include", "/usr/local/include", "/usr/lib", "/usr/share", "/opt/rocm")

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


@functools.cache
def _system_roots() -> tuple[str, ...]:
    here = Path(__file__).resolve().parent.parent  # cass_build: its headers are CASS's own
    roots = {*_SYSTEM_ROOTS, sys.prefix, sys.base_prefix, str(here)}
    return tuple(sorted(r.rstrip("/") for r in roots if r))


def is_system_dir(directory: Path) -> bool:
    """Whether ``directory`` holds system, toolchain or installed-package headers (the C
    library, ROCm, a CUDA toolkit, Python's and its packages'), which are never translated."""
    text = str(directory)
    if _TOOLKIT.search(text):
        return True
    return any(text == r or text.startswith(r + "/") for r in _system_roots())


def local_dirs(include_dirs: Sequence[Path], covered: Sequence[Path] = ()) -> tuple[Path, ...]:
    """The user's own include directories among ``include_dirs`` (resolved), leaving out
    system ones and those under a directory in ``covered`` (the mirror roots)."""
    roots = [c.resolve() for c in covered]
    found: dict[Path, None] = {}
    for directory in include_dirs:
        resolved = directory.resolve()
        if not resolved.is_dir() or is_system_dir(resolved):
            continue
        if any(resolved == r or r in resolved.parents for r in roots):
            continue
        found[resolved] = None
    return tuple(found)
