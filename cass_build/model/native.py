"""``auto --warp native``: the model's agnostic declarations, the rest in ``--warp cuda``.

The rules' native translation leaves a warp-size hazard warning where it cannot make a
declaration right for any wave size; the model proposes a rewrite of each. What the
model did not fix (its guards refused it, or it proposed no change) must not stay as
broken native text: it falls back to its ``--warp cuda`` translation, where 32-lane
logical warps (``<cass/warp.h>``) make the CUDA code right as written.

Mixing modes is sound only within limits, so the fallback unit is a *group* of
declarations, not one declaration (docs/model.md, "auto in native mode"):

- declarations are linked when one names what the other declares (a kernel calling a
  device function, host code launching a kernel). A group runs in one mode: a
  cuda-mode kernel calling a native warp reduction would sum 64 lanes where it counts
  on 32;
- a declaration pulled into the cuda mode passes the pull on only when the mode
  changes its text: one with no warp operation in it (a helper, host code that
  launches kernels without warp arithmetic) serves both modes;
- seeds of the cuda mode: each flagged declaration the model did not fix, each
  declaration with ``cass-host-warp-count`` (host code sizing for 32-lane warps), and
  each declaration that still uses a constant fixing the warp at 32;
- when the file's per-declaration translations do not compose back into its
  whole-file translation in either mode (glue such as a namespace alias differs
  between the modes), the whole file falls back.

Every declaration that falls back gets a ``cass-model-fallback`` warning at its line
saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rules.diagnostics import Diagnostic, rule_id
from . import hazard_rules
from .guards import _declared, _words

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..rules import RuleResult
    from ..settings import Settings
    from . import Decision

__all__ = ["FALLBACK_RULE", "HAZARDS", "Mixed", "fallback_file", "has_hazards", "mix"]

# Loaded with this module, which only native-mode auto imports.
FALLBACK_RULE = rule_id("model-fallback")
HOST_RULE = rule_id("host-warp-count")
_LITERAL_RULE = rule_id("warp-size-literal")
#: The warnings that make a native translation unsafe as it stands: the hazards the model
#: is asked to fix, and host code sizing launches for 32-lane warps.
HAZARDS = hazard_rules() | {HOST_RULE}


@dataclass(frozen=True)
class Mixed:
    """The file to verify: model declarations native, the fallen-back ones cuda-mode."""

    data: bytes
    diagnostics: tuple[Diagnostic, ...]
    fallbacks: int
    """Declarations now in ``--warp cuda`` form."""
    whole_file: bool
    """Whether the whole file fell back (then ``data`` is the cuda-mode translation)."""


@dataclass
class _Decl:
    start: int
    end: int
    line: int
    name: str
    native: bytes  # the rules' native translation of the declaration alone
    cuda: bytes  # ... and its cuda-mode translation
    declared: set[bytes]
    used: set[bytes]
    flagged: bool  # the rules left a hazard warning on it: it went to the model
    text: bytes  # what the mixed file will hold for it in native mode
    why: str = ""  # set: this declaration is cuda-mode, and why


def _name(piece: bytes, declared: set[bytes]) -> str:
    """The declaration's name as a diagnostic spells it: its first declared name."""
    if not declared:
        return "<declaration>"
    first = min(declared, key=lambda n: (piece.find(n), n))
    return first.decode("utf-8", "replace")


def _warp_constants(data: bytes, found: Sequence[Diagnostic]) -> set[bytes]:
    """Names whose definition fixes the warp at 32 (``cass-warp-size-literal`` at the 32
    of `#define WARP 32` or `kWarp = 32`)."""
    import re

    lines = data.splitlines()
    names: set[bytes] = set()
    for d in found:
        if d.rule != _LITERAL_RULE or not 0 < d.line <= len(lines):
            continue
        named = re.search(rb"([A-Za-z_]\w*)\s*=?\s*$", lines[d.line - 1][: d.column - 1])
        if named is not None:
            names.add(named.group(1))
    return names


def _splice_each(whole: bytes, pairs: Sequence[tuple[bytes, bytes]]) -> bytes | None:
    """``whole`` with each pair's first text replaced by its second, in order; None when
    one is not found where the order says it should be."""
    pos = 0
    out = []
    for old, new in pairs:
        at = whole.find(old, pos)
        if at < 0:
            return None
        out += [whole[pos:at], new]
        pos = at + len(old)
    out.append(whole[pos:])
    return b"".join(out)


def mix(
    data: bytes,
    path: str,
    settings: Settings,
    native: RuleResult,
    decisions: Sequence[Decision],
) -> Mixed:
    """The mixed translation of ``data`` from the model's ``decisions`` (one per flagged
    declaration) and the rules' native translation ``native``."""
    from ..rules import translate_bytes as rules
    from .units import split_units

    cuda_settings = settings.replace(warp="cuda")
    cuda = rules(data, path, cuda_settings)
    decided = {(d.start, d.end): d for d in decisions}
    constants = _warp_constants(data, native.diagnostics)
    host_lines = {
        d.line for d in native.diagnostics if d.severity == "warning" and d.rule == HOST_RULE
    }
    decls: list[_Decl] = []
    for seg in split_units(data):
        piece = data[seg.start : seg.end]
        if seg.kind != "decl" or piece.isspace():
            continue
        declared = _declared(piece)
        one = _Decl(
            seg.start,
            seg.end,
            _first_line(data, seg.start, piece),
            _name(piece, declared),
            rules(piece, path, settings).data,
            rules(piece, path, cuda_settings).data,
            declared,
            set(_words(piece)),
            (seg.start, seg.end) in decided,
            b"",
        )
        one.text = one.native
        decision = decided.get((seg.start, seg.end))
        if decision is not None:
            if decision.translated is None:
                one.why = f"the model's translation was refused: {decision.reason}"
            else:
                one.text = decision.translated
        last = data.count(b"\n", 0, seg.end) + 1
        if not one.why and any(one.line <= n <= last for n in host_lines):
            one.why = f"host code sizes a launch for 32-lane warps [{HOST_RULE}]"
        still = (constants - declared) & set(_words(one.text))
        if not one.why and still:
            names = ", ".join(sorted(n.decode("utf-8", "replace") for n in still))
            one.why = f"uses {names}, which fixes the warp at 32 lanes"
        decls.append(one)
    # Both whole-file translations must be the per-declaration ones plus the same glue,
    # or splicing one mode's declaration into the other's file is not sound.
    composes = _splice_each(native.data, [(d.native, d.cuda) for d in decls]) == cuda.data
    if not composes:
        return _whole_file(
            path, cuda, decls, "its declarations do not translate alone as in the file"
        )
    _spread(decls)
    fallen = [d for d in decls if d.why]
    if len(fallen) == len(decls):
        return _whole_file(path, cuda, decls, "")
    pairs = [(d.native, d.cuda if d.why else d.text) for d in decls]
    text = _splice_each(native.data, pairs)
    if text is None:  # cannot happen once the file composes; kept sound anyway
        return _whole_file(path, cuda, decls, "a declaration was not found in the file")
    notes = [_fallback_note(path, d, d.why) for d in fallen if _noted(d)]
    kept = [diag for diag in native.diagnostics if not any(_within(diag, data, d) for d in fallen)]
    kept += [diag for diag in cuda.diagnostics if any(_within(diag, data, d) for d in fallen)]
    return Mixed(text, (*notes, *kept), len(fallen), False)


def _within(diag: Diagnostic, data: bytes, decl: _Decl) -> bool:
    first = data.count(b"\n", 0, decl.start) + 1
    return first <= diag.line <= data.count(b"\n", 0, decl.end) + 1


def _first_line(data: bytes, start: int, piece: bytes) -> int:
    """The line of a declaration's first character: its segment starts with the blank
    lines before it."""
    return data.count(b"\n", 0, start + len(piece) - len(piece.lstrip())) + 1


def _spread(decls: list[_Decl]) -> None:
    """Pull every declaration linked to a cuda-mode one into the cuda mode.

    A seed (a declaration with a reason of its own) pulls in everything linked to it. A
    declaration pulled in passes the pull on only when the mode changes its text: a
    host function that launches kernels without any warp arithmetic (the same text in
    both modes) can launch a cuda-mode kernel beside a native one.
    """
    linked: list[set[int]] = [set() for _ in decls]
    for i, a in enumerate(decls):
        for j, b in enumerate(decls):
            if i != j and (a.declared & b.used or b.declared & a.used):
                linked[i].add(j)
    todo = [i for i, d in enumerate(decls) if d.why]
    seeds = set(todo)
    while todo:
        i = todo.pop()
        if i not in seeds and decls[i].native == decls[i].cuda:
            continue
        for j in linked[i]:
            if not decls[j].why:
                decls[j].why = f"linked to '{decls[i].name}', which falls back"
                todo.append(j)


def _noted(decl: _Decl) -> bool:
    """Whether a fallen-back declaration gets a warning: one whose text the mode changes,
    that went to the model, or that is a reason of its own (host code sizing launches);
    a constant or a plain helper pulled in reads the same either way."""
    return decl.flagged or decl.native != decl.cuda or not decl.why.startswith("linked to")


def _fallback_note(path: str, decl: _Decl, why: str) -> Diagnostic:
    message = f"'{decl.name}' falls back to its --warp cuda translation: {why}"
    return Diagnostic(path, decl.line, 1, "warning", FALLBACK_RULE, message)


def _whole_file(
    path: str, cuda: RuleResult, decls: list[_Decl], why: str, *, file_note: bool = True
) -> Mixed:
    notes = [
        _fallback_note(path, d, d.why or f"the whole file falls back: {why}")
        for d in decls
        if d.flagged or (d.why and _noted(d))
    ]
    if not notes and file_note:
        message = f"the file falls back to its --warp cuda translation: {why}"
        notes = [Diagnostic(path, 1, 1, "warning", FALLBACK_RULE, message)]
    return Mixed(cuda.data, (*notes, *cuda.diagnostics), len(decls), True)


def fallback_file(data: bytes, path: str, settings: Settings, why: str) -> Mixed:
    """The whole file in ``--warp cuda``, with a warning at each declaration that carried
    a warp-size hazard in native mode (``auto``'s rules step after the model failed)."""
    from ..rules import translate_bytes as rules
    from .units import split_units

    cuda = rules(data, path, settings.replace(warp="cuda"))
    native = rules(data, path, settings)
    lines = sorted(
        {d.line for d in native.diagnostics if d.severity == "warning" and d.rule in HAZARDS}
    )
    decls = []
    for seg in split_units(data):
        piece = data[seg.start : seg.end]
        if seg.kind != "decl" or piece.isspace():
            continue
        first = _first_line(data, seg.start, piece)
        last = data.count(b"\n", 0, seg.end) + 1
        if any(first <= n <= last for n in lines):
            declared = _declared(piece)
            decls.append(
                _Decl(seg.start, seg.end, first, _name(piece, declared), b"", b"", declared,
                      set(), True, b"")
            )  # fmt: skip
    return _whole_file(path, cuda, decls, why, file_note=False)


def has_hazards(native: RuleResult) -> bool:
    """Whether the rules' native translation leaves a warp-size hazard warning."""
    return any(d.severity == "warning" and d.rule in HAZARDS for d in native.diagnostics)
