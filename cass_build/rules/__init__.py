"""The rule strategy: the C++ core driven by the mapping tables.

This is CASS's deterministic translator: the fallback of the pipeline and the
draft the model learns from. It returns text plus diagnostics and never fails
on odd input; checking the input is the caller's job (see ``sources``).
"""

from __future__ import annotations

import functools
import gc
import marshal
import re
import threading
from pathlib import Path

from .stats import FamilyCount, Stats
from .tables import (
    KINDS,
    REWRITES,
    STATUSES,
    Family,
    load_tables,
    sha256,
    shipped_core,
    tables_digest,
)

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from ..settings import Settings
    from .diagnostics import Diagnostic

__all__ = ["RuleResult", "core_options", "core_table", "translate_bytes", "warp_include"]

_MATCH_CODES = {"any": 0, "template": 1, "method": 2}


def _core_rows(
    directory: str | None, roc: bool = False
) -> tuple[list[tuple[Any, ...]], list[tuple[str, list[str]]]]:
    """The rows and families as the core takes them, from the validated tables."""
    return core_rows_of(load_tables(directory), roc)


def core_rows_of(
    families: tuple[Family, ...], roc: bool = False
) -> tuple[list[tuple[Any, ...]], list[tuple[str, list[str]]]]:
    """``_core_rows`` of ``families``. With ``roc``, a row that names its ROC library's
    counterpart emits that instead, as a plain rename (the ROC libraries are not gated
    by HIP version here)."""
    rows = []
    for index, family in enumerate(families):
        for r in family.rows:
            since = r.since[0] * 100 + r.since[1] if r.since else 0
            hip, legacy, rewrite, alt, note = r.hip, r.legacy, r.rewrite, r.alt, r.note
            legacy_note = r.legacy_note
            if roc and r.roc:  # the hip* row's rewrite, gate and note are hip*'s
                hip, legacy, rewrite, alt, note, since = r.roc, "", "", "", "", 0
                legacy_note = ""
            rows.append(
                (
                    r.cuda,
                    hip,
                    legacy,
                    note,
                    KINDS.index(r.kind),
                    STATUSES.index(r.status),
                    REWRITES.index(rewrite) + 1 if rewrite else 0,
                    _MATCH_CODES[r.match],
                    index,
                    r.arg,
                    since,
                    alt,
                    r.warp,
                    legacy_note,
                )
            )
    return rows, [(f.name, list(f.prefixes)) for f in families]


def _core_cache(directory: str | None, roc: bool = False, *, packed: bool = False) -> Path | None:
    """Keyed like translations (the tables' names, sizes and mtimes) and the row encoding;
    ``packed``: the core's packed table (its layout checked by ``Table.unpack``)."""
    from .._files import cache_dir

    root = cache_dir()
    key = tables_digest(directory) + row_encoding(roc)
    return root / (f"core-table-{key}.bin" if packed else f"core-rows-{key}.marshal")


def row_encoding(roc: bool) -> str:
    """A hash of how rows are encoded for the core (and of the library choice)."""
    layout = (KINDS, STATUSES, REWRITES, sorted(_MATCH_CODES.items()), _ENTRY_FIELDS, roc)
    return sha256(repr(layout).encode()).hexdigest()[:8]


@functools.cache
def _core_input(directory: str | None = None, roc: bool = False) -> tuple[Any, ...]:
    """The core table's rows and families. Every build step starts a process that needs
    them, and building them from the tables' row objects costs more than translating a
    file, so they are cached as they are (one marshal load)."""
    cache = _core_cache(directory, roc)
    if cache is not None:
        try:
            rows, families = marshal.loads(cache.read_bytes())
            return rows, families
        except (OSError, EOFError, ValueError, TypeError):
            pass
    rows, families = _core_rows(directory, roc)
    if cache is not None:
        from .._files import store_quietly

        store_quietly(cache, marshal.dumps((rows, families)))  # read-only: rebuilt next time
    return rows, families


# The Entry fields (python/bindings.cpp) in the order of the cached rows (_core_rows).
_ENTRY_FIELDS = (
    "cuda",
    "hip",
    "legacy",
    "note",
    "kind",
    "status",
    "rewrite",
    "match",
    "family",
    "arg",
    "since",
    "alt",
    "warp",
    "legacy_note",
)


@functools.cache
def core_table(directory: str | None = None, roc: bool = False) -> Any:
    """The tables compiled into the core's immutable lookup table (built once per
    library choice: ``roc`` emits the ROC libraries' own names where rows give them).

    Every build step is a process of its own, so the table comes from the cache as the
    core's packed bytes, in one call (``Table.unpack``); the rows are read, and the packed
    form stored, only when the tables or their encoding changed."""
    from .. import _core

    cache = _core_cache(directory, roc, packed=True)
    table = None
    if cache is not None:
        try:
            table = _core.Table.unpack(cache.read_bytes())
        except (OSError, ValueError):
            table = None
    if table is None and directory is None and (packed := shipped_core(row_encoding(roc))):
        try:  # the packaged tables as the build packed them: an empty cache's first run
            table = _core.Table.unpack(packed)
        except ValueError:
            table = None
        if table is not None and cache is not None:
            from .._files import store_quietly

            store_quietly(cache, packed)
    if table is None:
        rows, families = _core_input(directory, roc)
        # Positional, in _ENTRY_FIELDS order: a third of the cost of keywords for 8000 rows.
        entries = [_core.Entry(*row) for row in rows]
        table = _core.Table(entries, families)
        if cache is not None:
            from .._files import store_quietly

            store_quietly(cache, _core.pack_table(entries, families))
    # The tables are thousands of long-lived objects; keep the collector from
    # walking them again on every collection while files are translated.
    gc.freeze()
    return table


_OPTIONS: dict[tuple[object, ...], Any] = {}


def core_options(settings: Settings) -> Any:
    """The core's Options for ``settings``, built once per distinct target (the hot path)."""
    key = (
        settings.resolved_hip_version(),
        settings.launch_syntax,
        settings.rename_cu_includes,
        settings.cuda_arch,
        settings.cuda_version,
        settings.warp,
    )
    found = _OPTIONS.get(key)
    if found is None:
        from .. import _core

        (major, minor), launch, rename, arch, version, warp = key
        if len(_OPTIONS) >= 256:  # a long-lived process: keep it bounded
            _OPTIONS.clear()
        found = _OPTIONS[key] = _core.Options(
            hip_version=major * 100 + minor,
            ggl=launch == "ggl",
            rename_cu_includes=rename,
            cuda_arch=arch,
            cuda_version=version,
            logical_warps=warp == "cuda",
        )
    return found


class RuleResult:
    """Output bytes, diagnostics and stats of one rule translation."""

    __slots__ = ("data", "diagnostics", "stats")

    def __init__(self, data: bytes, diagnostics: list[Diagnostic], stats: Stats) -> None:
        self.data = data
        self.diagnostics = diagnostics
        self.stats = stats


@functools.cache
def _family_names() -> tuple[str, ...]:
    return tuple(core_table().family_names)


# FamilyCount is frozen, so equal counts can share one object: building a frozen
# dataclass costs more than the rest of a small file's stats.
_COUNTS: dict[tuple[int, int], FamilyCount] = {}


def _family_count(converted: int, unconverted: int) -> FamilyCount:
    key = (converted, unconverted)
    found = _COUNTS.get(key)
    if found is None:
        if len(_COUNTS) >= 1 << 16:  # a long-lived process: keep it bounded
            _COUNTS.clear()
        found = _COUNTS[key] = FamilyCount(converted, unconverted)
    return found


_LOCAL = threading.local()


def _workspace() -> Any:
    """This thread's core workspace: the core's large buffers, allocated once per thread."""
    found = getattr(_LOCAL, "workspace", None)
    if found is None:
        from .. import _core

        found = _LOCAL.workspace = _core.Workspace()
    return found


def translate_bytes(
    source: bytes | str, path: str, settings: Settings, *, warp_header: bool = False
) -> RuleResult:
    """Translate UTF-8 CUDA source bytes with the tables.

    ``source`` may also be a str of ASCII characters only: the core reads its
    characters where they are, without an encoded copy. ``warp_header``: the output
    comes with ``warp_include``'s lines already in front, put there in place."""
    from .. import _core
    from .diagnostics import SEVERITIES, Diagnostic  # here: a tree's batch needs neither

    # The core builds the Diagnostic tuples itself: a file may carry hundreds.
    data, diagnostics, counts, lines = _core.translate_result(
        source,
        core_table(roc=settings.libraries == "roc"),
        core_options(settings),
        path,
        Diagnostic,
        SEVERITIES,
        _workspace(),
        warp_header,
    )
    return RuleResult(data, diagnostics, Stats(family_counts(counts), lines, len(source)))


def family_counts(counts: list[tuple[int, int, int]]) -> dict[str, FamilyCount]:
    """The core's (family index, converted, unconverted) as Stats.families."""
    names = _family_names()
    return {names[i]: _family_count(conv, unconv) for i, conv, unconv in counts}


# --warp cuda names (<cass/warp.h>; the cooperative groups' namespace has its own header,
# which includes that one), the fp16, bf16 and runtime operations older HIP lacks
# (<cass/fp16.h>, <cass/bf16.h>, <cass/runtime.h>), and an #include of any of those
# headers already there.
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_COMPAT = ((b"fp16", b"__cass_fp16_"), (b"bf16", b"__cass_bf16_"), (b"runtime", b"__cass_rt_"))
_CASS_INCLUDE = re.compile(
    rb'^[ \t]*#[ \t]*include[ \t]*[<"]cass/(warp|cooperative_groups|fp16|bf16|runtime)\.h[>"]',
    re.M,
)


def _names(text: bytes, name: bytes, *, whole: bool) -> bool:
    """Whether ``text`` has ``name`` starting a word (and ending one, if ``whole``).

    ``bytes.find`` up to the first such use: a regex led by ``\\b`` is tried at every
    byte, and a match object for every use cost more than the core's translation on
    API-dense code (bench/reports/scaling.md)."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or text[at - 1] not in _WORD) and (
            not whole or end == len(text) or text[end] not in _WORD
        ):
            return True
        at = text.find(name, at + 1)
    return False


def _warp_names(text: bytes) -> bool:
    """Whether ``text`` names a ``__cass_`` operation of the logical-warp headers."""
    compat = tuple(name for _, name in _COMPAT)
    at = text.find(b"__cass_")
    while at >= 0:
        if (at == 0 or text[at - 1] not in _WORD) and not text.startswith(compat, at):
            return True
        at = text.find(b"__cass_", at + 1)
    return False


def _cass_includes(hip: bytes) -> set[bytes]:
    """The CASS headers ``hip`` includes: ``_CASS_INCLUDE`` tried at the start of each line
    that names ``cass/``, not at every byte (``finditer`` scans the whole output, which cost
    more than its translation on a tree: bench/reports/dir_throughput.md)."""
    found: set[bytes] = set()
    at = hip.find(b"cass/")
    while at >= 0:
        start = hip.rfind(b"\n", 0, at) + 1
        match = _CASS_INCLUDE.match(hip, start)
        if match is not None:
            found.add(match.group(1))
        end = hip.find(b"\n", at)
        if end < 0:
            break
        at = hip.find(b"cass/", end)
    return found


def warp_include(hip: bytes) -> bytes:
    """Include the CASS headers a translation calls into: the logical-warp header of
    ``--warp cuda`` names, <cass/fp16.h>, <cass/bf16.h> and <cass/runtime.h> for
    ``__cass_fp16_``, ``__cass_bf16_`` and ``__cass_rt_`` operations.

    The core keeps every line where it was, so the includes come here, first in the
    file (before any use) and followed by ``#line 1``, as the runtime's is. Output
    that names no ``__cass_`` operation, or includes the headers itself, is unchanged.
    """
    if not _names(hip, b"__cass_", whole=False):
        return hip
    included = _cass_includes(hip)
    headers: list[bytes] = []
    if _warp_names(hip):
        header = b"cooperative_groups" if _names(hip, b"__cass_cg", whole=True) else b"warp"
        if b"cooperative_groups" not in included and header not in included:
            headers.append(header)
    headers += [h for h, name in _COMPAT if h not in included and _names(hip, name, whole=False)]
    if not headers:
        return hip
    bom = b"\xef\xbb\xbf" if hip.startswith(b"\xef\xbb\xbf") else b""
    lines = b"".join(b"#include <cass/" + h + b".h>\n" for h in headers)
    return bom + lines + b"#line 1\n" + hip[len(bom) :]
