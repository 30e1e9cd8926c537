"""The model's guards: named checks that keep the rules' translation where the model's
output would be wrong in a way no compile check sees. Each was found on the held-out
programs; docs/model.md ("Guards") tells each one's case.

``narrows`` and ``comparisons_lost`` judge one declaration (the runner drops that
unit's change). The others
judge the whole file once the changes are known, and each returns why the rules'
translation is kept, or "" to let the model's changes stand:

- ``drop_dangling``: a change dropped a declaration that unchanged code still uses;
- ``partial_fix``: some flagged declarations changed, others did not;
- ``warp_constant_left``: a constant fixing the warp at 32 lanes still drives code;
- ``host_sizing_left``: host code still sizes a launch for 32-lane warps.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..rules.diagnostics import Diagnostic
    from ..settings import Settings

__all__ = [
    "FileView",
    "comparisons_lost",
    "dangling",
    "drop_dangling",
    "host_sizing_left",
    "narrows",
    "partial_fix",
    "warp_constant_left",
]

Change = tuple[bytes, bytes]
"""A declaration's rules translation (the draft) and the model's translation of it."""


@dataclass(frozen=True)
class FileView:
    """What the last guards look at: the source, the file with the model's changes, the
    rules' diagnostics of the source and the CUDA lines of each changed declaration."""

    data: bytes
    result: bytes
    found: Sequence[Diagnostic]
    changed_lines: list[tuple[int, int]]
    path: str
    settings: Settings


def narrows(draft: bytes, out: bytes) -> bool:
    """Whether ``out`` spells fewer 64-bit integer types than the rules' ``draft``.

    Every warp-size fix widens (a 32-lane mask, ballot or lane mask becomes a 64-lane
    one) and none narrows, so a model output that drops a 64-bit type the rules wrote is
    a mistake (held-out: `unsigned long long below` became `unsigned long below`). Only
    `long long`, `int64_t` and `uint64_t` count: `long` has 32 bits where HIP runs on
    Windows.
    """
    return _wide_types(out) < _wide_types(draft)


#: Equality tests: how code elects a lane (`lane == 0`) or tests a mask or a count. A
#: warp-size fix changes one only where the rules report a hazard.
_EQUALITY = (b"==", b"!=")
#: `lane == 31` elects the last lane of a 32-lane warp: a hazard the rules may not report.
_WARP_LITERALS = frozenset((b"31", b"32", b"31u", b"32u"))


def _comparisons(source: bytes) -> list[tuple[bytes, int]]:
    """The equality tests of ``source`` as (`left op right`, line): a token each side,
    comments left out."""
    from .. import _core

    toks: list[tuple[bytes, int]] = []
    line = 1
    for b, e, _kind, _ in _core.tokens(source):
        text = source[b:e]
        if text == b"\n" or text.startswith((b"//", b"/*")):
            line += text.count(b"\n")
            continue
        toks.append((text, line))
    return [
        (b" ".join((left, op, right)), at)
        for (left, _), (op, at), (right, _) in zip(toks, toks[1:], toks[2:], strict=False)
        if op in _EQUALITY and not {left, right} & _WARP_LITERALS
    ]


def comparisons_lost(
    cuda: bytes, draft: bytes, out: bytes, hazard_lines: Collection[int]
) -> list[bytes]:
    """The draft's equality tests that ``out`` no longer spells, except on the lines of
    ``cuda`` (and of the draft) where the rules report a warp-size hazard.

    Held-out: the model replaced the lane-0 election `lane == 0` with
    `__popcll(bits) == warpSize`, on a line with no hazard; every lane then skipped the
    store. The rules keep such a test as CUDA wrote it and a fix has no reason to touch
    it. Tests on hazard lines (`(threadIdx.x & 31) == 0`) and tests against 31 or 32
    (`lane == 31`) may change.
    """
    in_draft = _comparisons(draft)
    exempt = Counter(t for t, at in [*_comparisons(cuda), *in_draft] if at in hazard_lines)
    kept = Counter(t for t, _ in in_draft) - exempt
    return sorted(kept - Counter(t for t, _ in _comparisons(out)))


def _words(source: bytes) -> list[bytes]:
    """The identifiers (keywords included) of ``source``, in order, on the core's tokens:
    comments and strings are not code."""
    from .. import _core

    return [source[b:e] for b, e, kind, _ in _core.tokens(source) if kind == _core.TOKEN_IDENTIFIER]


def _wide_types(source: bytes) -> int:
    words = _words(source)
    pairs = sum(1 for a, b in itertools.pairwise(words) if a == b == b"long")
    return pairs + sum(w in (b"int64_t", b"uint64_t") for w in words)


#: Identifiers that look declared at file scope (a name before `(`) but declare nothing.
_NOT_DECLARED = frozenset(
    b"alignas alignof decltype sizeof static_assert noexcept operator template typename "
    b"defined if while for switch return".split()
)


def _declared(unit: bytes) -> set[bytes]:
    """Names a declaration declares at file scope: an identifier before `=`, `;`, `[`,
    `(`, `{` or `,` outside braces and parentheses, and a macro's name."""
    from .. import _core

    toks = [
        (unit[b:e], kind)
        for b, e, kind, _ in _core.tokens(unit)
        if unit[b:e] != b"\n" and not unit.startswith((b"//", b"/*"), b)  # code only
    ]
    names: set[bytes] = set()
    braces = parens = 0
    for k, (text, kind) in enumerate(toks):
        if kind != _core.TOKEN_IDENTIFIER:
            braces += text == b"{"
            braces -= text == b"}" and braces > 0
            parens += text == b"("
            parens -= text == b")" and parens > 0
            continue
        if text in _NOT_DECLARED or text.startswith(b"__"):
            continue
        after = toks[k + 1][0] if k + 1 < len(toks) else b""
        macro = k >= 2 and toks[k - 2][0] == b"#" and toks[k - 1][0] == b"define"
        if macro or (braces == parens == 0 and after in (b"=", b";", b"[", b"(", b"{", b",")):
            names.add(text)
    return names


def _lost(draft: bytes, translated: bytes) -> set[bytes]:
    """Names the draft declares that the translation no longer spells."""
    return _declared(draft) - set(_words(translated))


def dangling(changes: Sequence[tuple[bytes, bytes]], result: bytes) -> list[int]:
    """The changes whose translation drops a name its draft declares while ``result``
    (the file with every change) still uses it elsewhere."""
    used = set(_words(result))
    return [i for i, change in enumerate(changes) if _lost(*change) & used]


def _warp_constant(data: bytes, result: bytes, found: Sequence[Diagnostic]) -> str:
    """The name of a constant fixing the warp size at 32 that ``result`` still uses, or "".

    The rules flag its definition (``cass-warp-size-literal``, at the 32 of
    `#define WARP 32` or `kWarpSize = 32`); a use besides the definition means code
    still written for 32 lanes.
    """
    import re

    from ..rules.diagnostics import rule_id

    lines = data.splitlines()
    literal = rule_id("warp-size-literal")
    for d in found:
        if d.rule != literal or not 0 < d.line <= len(lines):
            continue
        before = lines[d.line - 1][: d.column - 1]  # the source up to the 32
        named = re.search(rb"([A-Za-z_]\w*)\s*=?\s*$", before)
        if named is None:
            continue
        name = named.group(1)
        if len(re.findall(rb"\b" + re.escape(name) + rb"\b", result)) > 1:
            return name.decode()
    return ""


def _host_sizing(
    found: Sequence[Diagnostic],
    result: bytes,
    changed_lines: list[tuple[int, int]],
    path: str,
    settings: Settings,
) -> bool:
    """Whether ``result`` still has host code sizing a launch for 32-lane warps.

    ``found`` are the rules' diagnostics of the source. A warning in a declaration the
    model did not change is still there; one in a declaration it changed counts if the
    rules still report it in ``result``.
    """
    from ..rules import translate_bytes as rules
    from ..rules.diagnostics import rule_id

    # Host code sizing a launch for 32-lane warps. Not a reason to consult the model:
    # the warning sits in the host function, whose declaration alone shows neither the
    # kernel nor the launch's meaning; it counts once the model has changed a kernel.
    host_rule = rule_id("host-warp-count")

    def host(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
        return [d for d in diagnostics if d.severity == "warning" and d.rule == host_rule]

    flagged = host(found)
    if any(not any(a <= d.line <= b for a, b in changed_lines) for d in flagged):
        return True
    return bool(flagged) and bool(host(rules(result, path, settings).diagnostics))


def drop_dangling(changes: Sequence[Change], whole: bytes) -> tuple[list[Change], str]:
    """The changes without those that drop a declaration the file still uses, and why.

    Held-out: `const int kWarpSize = 32;` became an unrelated constant that code the
    model did not change still used, so the file could not compile. Those declarations
    keep the rules' text, which makes the file's fix partial.
    """
    from . import _splice

    dropped = dangling(changes, _splice(whole, changes))
    if not dropped:
        return list(changes), ""
    lost = {n for i in dropped for n in _lost(*changes[i])}
    names = ", ".join(sorted(n.decode("utf-8", "replace") for n in lost))
    kept = [c for i, c in enumerate(changes) if i not in dropped]
    return kept, f"drops a declaration the file still uses ({names})"


def partial_fix(changes: Sequence[Change], kept_hazard: bool) -> str:
    """Some flagged declarations changed and others did not.

    Held-out: a helper reducing over 64 lanes beside a kernel still indexing 32-lane
    warps is worse than either translation alone, so the file keeps the rules'.
    """
    if changes and kept_hazard:
        return "partial hazard fix: the rules' translation is kept"
    return ""


def warp_constant_left(file: FileView) -> str:
    """A constant that fixes the warp at 32 lanes still drives other code.

    Held-out: `#define WARP 32` beside `threadIdx.x & (WARP - 1)` after a reduction was
    widened to 64 lanes, so two lanes of each wave added their sums. The rules'
    translation keeps one assumption throughout.
    """
    if used := _warp_constant(file.data, file.result, file.found):
        return f"'{used}' still fixes the warp at 32 lanes: the rules' translation is kept"
    return ""


def host_sizing_left(file: FileView) -> str:
    """Host code still sizes a launch for 32-lane warps.

    Held-out: the model made a kernel wave-size agnostic while the host computed
    `block / 32` rows per block, so half the waves the launch counted on never existed.
    The rules' translation keeps 32-lane teams and agrees with the host.
    """
    if _host_sizing(file.found, file.result, file.changed_lines, file.path, file.settings):
        return "host code sizes a launch for 32-lane warps: the rules' translation is kept"
    return ""
