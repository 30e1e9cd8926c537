"""Top-level declarations of a CUDA source: the unit the model translates.

A source is cut into segments that concatenate back to the exact bytes:

- ``decl``: one top-level declaration (kernel, function, struct, global, typedef),
  with the comments right before it;
- ``glue``: what lies between declarations (preprocessor lines, blank lines, the
  braces and headers of ``namespace`` and ``extern "C"`` blocks).

The model sees only ``decl`` segments; glue goes to the rules, whose include and
macro tables are exact. The scan is byte level and never fails: an unbalanced or
truncated source simply ends in one long segment, which the model's length limit
then hands to the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Segment", "split_units"]


@dataclass(frozen=True, slots=True)
class Segment:
    kind: str  # "decl" or "glue"
    start: int
    end: int


_OPENER = re.compile(rb"^\s*(?:inline\s+)?(?:namespace\b[^{;]*|extern\s*\"C\"\s*)$", re.DOTALL)


_AGGREGATE = re.compile(rb"\b(?:struct|class|union|enum)\b")


def _skip_string(data: bytes, i: int, quote: int) -> int:
    n = len(data)
    i += 1
    while i < n:
        c = data[i]
        if c == 0x5C:  # backslash
            i += 2
            continue
        if c == quote or c == 0x0A:
            return i + 1
        i += 1
    return n


def _skip_raw_string(data: bytes, i: int) -> int:
    """``R"delim( ... )delim"``: ``i`` points at the ``"``."""
    n = len(data)
    paren = data.find(b"(", i, min(n, i + 20))
    if paren < 0:
        return _skip_string(data, i, 0x22)
    close = b")" + data[i + 1 : paren] + b'"'
    end = data.find(close, paren)
    return n if end < 0 else end + len(close)


def _line_end(data: bytes, i: int) -> int:
    """End of a preprocessor line (after its newline), following continuations."""
    n = len(data)
    while True:
        j = data.find(b"\n", i)
        if j < 0:
            return n
        k = j - 1
        if k >= 0 and data[k] == 0x0D:
            k -= 1
        if k >= 0 and data[k] == 0x5C:
            i = j + 1
            continue
        return j + 1


def split_units(data: bytes) -> list[Segment]:
    """Cut ``data`` into glue and declaration segments covering every byte once."""
    n = len(data)
    out: list[Segment] = []
    depth = 0  # braces of the current declaration
    transparent = 0  # namespace / extern "C" braces open around us
    start = 0  # where the current segment began
    code_start = -1  # first code byte of the current declaration, -1 before any
    paren = 0
    first_brace = 0
    i = 0

    def push(kind: str, a: int, b: int) -> None:
        if b <= a:
            return
        if out and out[-1].kind == kind == "glue":
            out[-1] = Segment("glue", out[-1].start, b)
        else:
            out.append(Segment(kind, a, b))

    def at_line_start(k: int) -> bool:
        j = k - 1
        while j >= 0 and data[j] in b" \t":
            j -= 1
        return j < 0 or data[j] == 0x0A

    while i < n:
        c = data[i]
        if c == 0x2F and i + 1 < n and data[i + 1] == 0x2F:  # // comment
            j = data.find(b"\n", i)
            i = n if j < 0 else j + 1
            continue
        if c == 0x2F and i + 1 < n and data[i + 1] == 0x2A:  # /* comment */
            j = data.find(b"*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == 0x23 and at_line_start(i):  # preprocessor line
            end = _line_end(data, i)
            if depth == 0 and code_start < 0:
                # Between declarations: the directive and what precedes it is glue.
                push("glue", start, end)
                start = end
            i = end
            continue
        if c in b" \t\r\n":
            i += 1
            continue
        if depth == 0 and code_start < 0:
            code_start = i
        if c == 0x22:
            if i > 0 and data[i - 1] == 0x52 and (i < 2 or not data[i - 2 : i - 1].isalnum()):
                i = _skip_raw_string(data, i)
            else:
                i = _skip_string(data, i, 0x22)
            continue
        if c == 0x27:
            # A digit separator (1'000) is not a character literal.
            if i > 0 and data[i - 1 : i].isalnum() and data[i - 1 : i].isdigit():
                i += 1
                continue
            i = _skip_string(data, i, 0x27)
            continue
        if c == 0x28:
            paren += 1
        elif c == 0x29:
            paren = max(0, paren - 1)
        elif c == 0x7B:  # {
            if depth == 0 and paren == 0 and _OPENER.match(data[code_start:i]):
                # namespace X { / extern "C" {: the header is glue, the body top level.
                push("glue", start, i + 1)
                start, code_start, transparent = i + 1, -1, transparent + 1
                i += 1
                continue
            if depth == 0:
                first_brace = i
            depth += 1
        elif c == 0x7D:  # }
            if depth == 0:
                if transparent:
                    transparent -= 1
                    push("glue", start, i + 1)
                    start, code_start = i + 1, -1
                i += 1
                continue
            depth -= 1
            if depth == 0 and paren == 0 and _ends_at_brace(data[code_start:first_brace]):
                end = _finish_line(data, i + 1)
                push("decl", start, end)
                start, code_start, i = end, -1, end
                continue
        elif c == 0x3B and depth == 0 and paren == 0:  # ;
            end = _finish_line(data, i + 1)
            push("decl", start, end)
            start, code_start, i = end, -1, end
            continue
        i += 1
    if start < n:
        push("decl" if code_start >= 0 else "glue", start, n)
    return out


def _ends_at_brace(head: bytes) -> bool:
    """Whether a declaration whose first brace block just closed is complete.

    Function bodies end at their brace; class bodies and braced initializers go on
    to a ``;`` (``struct S { ... } s;``, ``int v[] = {1, 2};``).
    """
    if b"(" in head:
        return b"=" not in head.split(b"(", 1)[0]
    if b"=" in head:
        return False
    return _AGGREGATE.search(head) is None


def _finish_line(data: bytes, i: int) -> int:
    """Keep trailing spaces, a same-line comment and the newline with the declaration."""
    n = len(data)
    j = i
    while j < n and data[j] in b" \t":
        j += 1
    if data.startswith(b"//", j):
        k = data.find(b"\n", j)
        return n if k < 0 else k + 1
    if j < n and data[j] == 0x0D:
        j += 1
    if j < n and data[j] == 0x0A:
        return j + 1
    return i
