"""Rewrite a warp-size-agnostic CUDA declaration into the 32-lane forms people write.

Real kernels written for any warp size (``warpSize``, ``% warpSize``, 64-bit
ballots with ``__popcll``, loops from ``warpSize / 2``,
``(blockDim.x + warpSize - 1) / warpSize``) are rare in the wild, and their
32-lane twins are common. ``naivify(text, seed)`` makes the twin, so the model
can learn the way back: its input is the naive form, its target the native
translation of the original.

Every rewrite is a local pattern with a few spellings drawn from ``seed``
(``& 31`` or ``% 32``, ``>> 5`` or ``/ 32``, ``unsigned`` or ``uint32_t``,
``0xffffffff`` or ``~0u``, the ``WARP_SIZE`` macro). Ballots are narrowed to 32
bits only where the value comes from ``__ballot_sync``/``__activemask`` (and the
``__popcll``/``__ffsll`` that read it), so a 64-bit counter stays 64-bit. The
result is only a candidate: ``dataset`` keeps a pair when the rules flag a
warp-size hazard on it and the original's translation compiles.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

__all__ = ["has_agnostic_idiom", "naivify", "widen"]

_OPERAND = r"(?:threadIdx\.[xyz]|[A-Za-z_]\w*(?:\.[xyz])?|\([^()]*\))"
_WS = r"[ \t]*"
_CEIL = re.compile(
    rf"\({_WS}({_OPERAND}){_WS}\+{_WS}warpSize{_WS}-{_WS}1{_WS}\){_WS}/{_WS}warpSize\b"
)
_BARE = r"(?<!\.)(?<!->)\bwarpSize"
_MEMBER = re.compile(r"\b[A-Za-z_]\w*(?:\.|->)warpSize\b")
_HALF = re.compile(rf"{_BARE}{_WS}(?:/{_WS}2|>>{_WS}1)(?![\w.])")
_MOD = re.compile(rf"({_OPERAND}){_WS}%{_WS}warpSize\b")
_DIV = re.compile(rf"({_OPERAND}){_WS}/{_WS}warpSize\b")
_MINUS1 = re.compile(rf"{_BARE}{_WS}-{_WS}1(?![\w.])")
_WARPSIZE = re.compile(rf"{_BARE}\b")
_BALLOT = re.compile(r"\b(?:__ballot_sync|__ballot|__activemask)\s*\(")
_WIDE_T = r"(?:unsigned\s+long\s+long(?:\s+int)?|uint64_t|unsigned\s+__int64)"
_BALLOT_DECL = re.compile(
    rf"\b(const\s+)?{_WIDE_T}(\s+)([A-Za-z_]\w*)(\s*=\s*)(?=(?:__ballot_sync|__ballot|__activemask)\s*\()"
)
_DERIVED_DECL = re.compile(rf"\b(const\s+)?{_WIDE_T}(\s+)([A-Za-z_]\w*)\s*=([^;]*)")
_ONE_WIDE = re.compile(r"\b1(?:ull|ULL|llu|LLU)\b")
_BIT64 = re.compile(r"\b(__popcll|__ffsll|__clzll)\s*\(")
_ALL_TEST = re.compile(r"\b__popcll\s*\(\s*([A-Za-z_]\w*)\s*\)\s*==\s*(?:32|warpSize)\b")
_NARROW = {"__popcll": "__popc", "__ffsll": "__ffs", "__clzll": "__clz"}


def has_agnostic_idiom(text: str) -> bool:
    """Does ``text`` use an idiom that ``naivify`` narrows to 32 lanes?"""
    return bool(
        _WARPSIZE.search(text)
        or _MEMBER.search(text)
        or (_BALLOT.search(text) and _BIT64.search(text))
    )


def _call_end(text: str, open_at: int) -> int:
    """The index just past the ``)`` that closes the ``(`` at ``open_at``."""
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _narrow_ballots(text: str, rng: random.Random) -> str:
    """32-bit ballots: their variables, the 64-bit bit operations that read them, the
    lane masks combined with them, and ``__popcll(b) == warpSize`` all-lanes tests."""
    if not _BALLOT.search(text):
        return text
    names: set[str] = set()
    t32 = rng.choice(["unsigned", "unsigned int", "uint32_t", "unsigned"])

    def decl(m: re.Match[str]) -> str:
        names.add(m.group(3))
        return f"{m.group(1) or ''}{t32}{m.group(2)}{m.group(3)}{m.group(4)}"

    text = _BALLOT_DECL.sub(decl, text)
    # Values computed from a narrowed ballot (``below = b & mask``) narrow with it.
    for _ in range(3):
        before = len(names)

        def derived(m: re.Match[str]) -> str:
            if not any(re.search(rf"\b{n}\b", m.group(4)) for n in names):
                return m.group(0)
            names.add(m.group(3))
            return f"{m.group(1) or ''}{t32}{m.group(2)}{m.group(3)} ={m.group(4)}"

        text = _DERIVED_DECL.sub(derived, text)
        if len(names) == before:
            break
    full = rng.choice(["0xffffffff", "0xFFFFFFFF", "0xffffffffu", "~0u"])
    text = _ALL_TEST.sub(
        lambda m: f"{m.group(1)} == {full}" if m.group(1) in names else m.group(0), text
    )
    out: list[str] = []
    pos = 0
    for m in _BIT64.finditer(text):
        if m.start() < pos:
            continue
        end = _call_end(text, m.end() - 1)
        arg = text[m.end() : end - 1]
        reads_ballot = _BALLOT.search(arg) or any(re.search(rf"\b{n}\b", arg) for n in names)
        if reads_ballot:
            out.append(text[pos : m.start()] + _NARROW[m.group(1)] + "(")
            pos = m.end()
    out.append(text[pos:])
    text = "".join(out)
    if names:
        # Lane masks built beside a narrowed ballot: (1ull << lane) - 1 is 1u << lane.
        one = rng.choice(["1u", "1U", "1"])
        text = _ONE_WIDE.sub(one, text)
    return text


def naivify(text: str, seed: int) -> str | None:
    """The 32-lane form of an agnostic declaration, or None when it has no idiom to narrow.

    Deterministic per ``(text, seed)``; different seeds draw different spellings.
    """
    if not has_agnostic_idiom(text):
        return None
    rng = random.Random(f"naivify:{seed}")
    macro = rng.random() < 0.25  # WARP_SIZE, defined elsewhere in the file, for 32
    w = "WARP_SIZE" if macro else "32"

    def pick(*options: str) -> Callable[[re.Match[str]], str]:
        choice = rng.choice(options)
        return lambda m: choice.format(x=m.group(1) if m.re.groups else "", w=w)

    out = _narrow_ballots(text, rng)
    out = _MEMBER.sub("32", out)  # host code: prop.warpSize read as the constant
    out = _CEIL.sub(pick("{x} / {w}", "({x} + 31) / 32", "({x} >> 5)", "{x} / {w}"), out)
    out = _HALF.sub(pick("16", "16", "({w} / 2)", "(32 >> 1)"), out)
    out = _MOD.sub(pick("({x} & 31)", "{x} % {w}", "({x} & 0x1f)", "({x} & ({w} - 1))"), out)
    out = _DIV.sub(pick("({x} >> 5)", "{x} / {w}", "{x} / 32"), out)
    out = _MINUS1.sub(pick("31", "({w} - 1)", "0x1f"), out)
    out = _WARPSIZE.sub(w, out)
    return out if out != text else None


# ----------------------------------------------------------------------------- widen

_LANE_OPERAND = r"(?:threadIdx\.x|[A-Za-z_]*(?:tid|Tid|thread|Thread|lane|Lane)[A-Za-z_0-9]*)"
_W_MOD = re.compile(
    rf"\(?\b({_LANE_OPERAND}){_WS}(?:&{_WS}(?:31|0x1[fF])\b|%{_WS}32\b)\)?(?![\w.])"
)
_W_DIV = re.compile(rf"\(?\b({_LANE_OPERAND}){_WS}(?:>>{_WS}5\b|/{_WS}32\b)\)?(?![\w.])")
_W_COUNT = re.compile(
    rf"\(?blockDim\.x{_WS}(?:/{_WS}32|>>{_WS}5)\b\)?"
    rf"|\({_WS}blockDim\.x{_WS}\+{_WS}31{_WS}\){_WS}/{_WS}32\b"
)
_W_SHFL_LOOP = re.compile(
    r"(for\s*\(\s*(?:int|unsigned(?:\s+int)?)\s+(\w+)\s*=\s*)16(\s*;\s*\2\s*(?:>|>=)\s*[01]\s*;"
    r"\s*\2\s*(?:>>=\s*1|/=\s*2)\s*\))"
)
_W_NARROW_BALLOT = re.compile(
    r"\b(?:unsigned(?:\s+int)?|uint32_t)(\s+)([A-Za-z_]\w*)(\s*=\s*)(?=__ballot_sync\s*\()"
)
_W_BIT32 = re.compile(r"\b(__popc|__ffs|__clz)\s*\(")
_WIDEN = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll"}


def widen(text: str) -> str | None:
    """The warp-size-agnostic form of a declaration that hard-codes 32-lane warps, where
    the rewrite is local and mechanical: lane arithmetic on a lane or thread index
    (``& 31``, ``% 32``, ``>> 5``, ``/ 32``), ``blockDim.x / 32`` warp counts, shuffle
    loops from 16, and ballots kept in 32 bits with the ``__popc``/``__ffs`` that read
    them. None when nothing matched. The result is a candidate: ``dataset`` keeps it
    only when the rules warn of nothing on it and its translation compiles.
    """
    out = _W_COUNT.sub("(blockDim.x + warpSize - 1) / warpSize", text)
    out = _W_MOD.sub(r"(\1 % warpSize)", out)
    out = _W_DIV.sub(r"(\1 / warpSize)", out)
    if "__shfl" in out:
        out = _W_SHFL_LOOP.sub(r"\1warpSize / 2\3", out)
    names: set[str] = set()

    def decl(m: re.Match[str]) -> str:
        names.add(m.group(2))
        return f"unsigned long long{m.group(1)}{m.group(2)}{m.group(3)}"

    out = _W_NARROW_BALLOT.sub(decl, out)
    if names:
        pieces: list[str] = []
        pos = 0
        for m in _W_BIT32.finditer(out):
            end = _call_end(out, m.end() - 1)
            arg = out[m.end() : end - 1]
            if m.start() >= pos and any(re.search(rf"\b{n}\b", arg) for n in names):
                pieces.append(out[pos : m.start()] + _WIDEN[m.group(1)] + "(")
                pos = m.end()
        pieces.append(out[pos:])
        out = "".join(pieces)
        out = re.sub(r"\b1[uU]\s*<<", "1ull <<", out)
    return out if out != text else None
