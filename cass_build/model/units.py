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


class _Scanner:
    """One pass over a source; ``i`` only moves forward. Each ``_at_*`` method handles the
    byte at ``i`` and returns where the scan goes on."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.n = len(data)
        self.out: list[Segment] = []
        self.depth = 0  # braces of the current declaration
        self.transparent = 0  # namespace / extern "C" braces open around us
        self.start = 0  # where the current segment began
        self.code_start = -1  # first code byte of the current declaration, -1 before any
        self.paren = 0
        self.first_brace = 0

    def push(self, kind: str, a: int, b: int) -> None:
        if b <= a:
            return
        if self.out and self.out[-1].kind == kind == "glue":
            self.out[-1] = Segment("glue", self.out[-1].start, b)
        else:
            self.out.append(Segment(kind, a, b))

    def _at_line_start(self, k: int) -> bool:
        j = k - 1
        while j >= 0 and self.data[j] in b" \t":
            j -= 1
        return j < 0 or self.data[j] == 0x0A

    def _skipped(self, i: int) -> int | None:
        """Past a comment, a directive or a blank at ``i``; None when code starts there."""
        data, n, c = self.data, self.n, self.data[i]
        if c == 0x2F and i + 1 < n and data[i + 1] == 0x2F:  # // comment
            j = data.find(b"\n", i)
            return n if j < 0 else j + 1
        if c == 0x2F and i + 1 < n and data[i + 1] == 0x2A:  # /* comment */
            j = data.find(b"*/", i + 2)
            return n if j < 0 else j + 2
        if c == 0x23 and self._at_line_start(i):  # preprocessor line
            end = _line_end(data, i)
            if self.depth == 0 and self.code_start < 0:
                # Between declarations: the directive and what precedes it is glue.
                self.push("glue", self.start, end)
                self.start = end
            return end
        if c in b" \t\r\n":
            return i + 1
        return None

    def _literal(self, i: int) -> int | None:
        """Past a string or character literal at ``i``; None when there is none."""
        data, c = self.data, self.data[i]
        if c == 0x22:
            if i > 0 and data[i - 1] == 0x52 and (i < 2 or not data[i - 2 : i - 1].isalnum()):
                return _skip_raw_string(data, i)
            return _skip_string(data, i, 0x22)
        if c == 0x27:
            # A digit separator (1'000) is not a character literal.
            if i > 0 and data[i - 1 : i].isalnum() and data[i - 1 : i].isdigit():
                return i + 1
            return _skip_string(data, i, 0x27)
        return None

    def _end_decl(self, i: int) -> int:
        end = _finish_line(self.data, i)
        self.push("decl", self.start, end)
        self.start, self.code_start = end, -1
        return end

    def _at_open(self, i: int) -> int:
        if self.depth == 0 and self.paren == 0 and _OPENER.match(self.data[self.code_start : i]):
            # namespace X { / extern "C" {: the header is glue, the body top level.
            self.push("glue", self.start, i + 1)
            self.start, self.code_start, self.transparent = i + 1, -1, self.transparent + 1
            return i + 1
        if self.depth == 0:
            self.first_brace = i
        self.depth += 1
        return i + 1

    def _at_close(self, i: int) -> int:
        if self.depth == 0:
            if self.transparent:
                self.transparent -= 1
                self.push("glue", self.start, i + 1)
                self.start, self.code_start = i + 1, -1
            return i + 1
        self.depth -= 1
        head = self.data[self.code_start : self.first_brace]
        if self.depth == 0 and self.paren == 0 and _ends_at_brace(head):
            return self._end_decl(i + 1)
        return i + 1

    def _at_code(self, i: int) -> int:
        c = self.data[i]
        if c == 0x28:
            self.paren += 1
        elif c == 0x29:
            self.paren = max(0, self.paren - 1)
        elif c == 0x7B:  # {
            return self._at_open(i)
        elif c == 0x7D:  # }
            return self._at_close(i)
        elif c == 0x3B and self.depth == 0 and self.paren == 0:  # ;
            return self._end_decl(i + 1)
        return i + 1

    def run(self) -> list[Segment]:
        i = 0
        while i < self.n:
            skipped = self._skipped(i)
            if skipped is not None:
                i = skipped
                continue
            if self.depth == 0 and self.code_start < 0:
                self.code_start = i
            literal = self._literal(i)
            i = literal if literal is not None else self._at_code(i)
        if self.start < self.n:
            self.push("decl" if self.code_start >= 0 else "glue", self.start, self.n)
        return self.out


def split_units(data: bytes) -> list[Segment]:
    """Cut ``data`` into glue and declaration segments covering every byte once."""
    return _Scanner(data).run()


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
