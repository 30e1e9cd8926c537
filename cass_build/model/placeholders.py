"""A unit's own names and comments as numbered placeholders, for the model.

The model copies most of a unit and changes a few warp-size details. Real code's
names (``GPTR_A_Scales``) split into rare subword tokens, and a model that learned
on other names rewrites some of them while copying. Here, each identifier that is
not one of CUDA's, HIP's or the language's own words, and each comment, becomes
``<@n>``: n counts distinct spellings in order of first appearance in the CUDA
source, and the same table applies to the draft and to the training target. The
tokenizer has one token per placeholder, so copying a name is copying one token,
and the model's output is made concrete again from the table.

Names kept as they are (the words a warp-size rewrite depends on) are frozen with
the model in ``placeholders.json`` (made by ``cass_build.train.prepare``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["MARK", "Keep", "Table", "abstract", "placeholder"]

MARK = b"<@"
_COMMENT, _IDENT = 1, 2  # cass::TokenKind


def placeholder(n: int) -> str:
    """The spelling of placeholder ``n`` (a special token of the tokenizer)."""
    return f"<@{n}>"


@dataclass(frozen=True)
class Keep:
    """Which identifiers stay as they are, and how many placeholders there are."""

    words: frozenset[bytes]
    prefixes: tuple[bytes, ...]
    pattern: re.Pattern[bytes]
    limit: int

    @classmethod
    def load(cls, path: Path) -> Keep:
        doc = json.loads(path.read_text())
        return cls(
            frozenset(w.encode() for w in doc["words"]),
            tuple(p.encode() for p in doc["prefixes"]),
            re.compile(doc["pattern"].encode()),
            int(doc["limit"]),
        )

    def kept(self, name: bytes) -> bool:
        return (
            name in self.words
            or name.startswith(self.prefixes)
            or self.pattern.search(name) is not None
        )


@dataclass
class Table:
    """Placeholder n stands for ``spellings[n]``."""

    spellings: list[bytes]
    index: dict[bytes, int]

    def concrete(self, n: int) -> bytes | None:
        return self.spellings[n] if 0 <= n < len(self.spellings) else None


def _pieces(data: bytes, keep: Keep) -> list[tuple[int, int]]:
    """The spans of ``data`` a placeholder may stand for: its comments and own names."""
    from .. import _core

    spans = []
    for begin, end, kind, _flags in _core.tokens(data):
        if kind == _COMMENT or (kind == _IDENT and not keep.kept(data[begin:end])):
            spans.append((begin, end))
    return spans


def abstract(cuda: bytes, others: list[bytes], keep: Keep) -> tuple[str, list[str], Table] | None:
    """``cuda`` and ``others`` (draft or target) with placeholders, as latin-1 text, and
    the table; None when ``cuda`` or another already spells a placeholder's mark."""
    if MARK in cuda or any(MARK in o for o in others):
        return None
    table = Table([], {})
    for begin, end in _pieces(cuda, keep):
        piece = cuda[begin:end]
        if piece not in table.index and len(table.spellings) < keep.limit:
            table.index[piece] = len(table.spellings)
            table.spellings.append(piece)
    return (
        _apply(cuda, table, keep),
        [_apply(o, table, keep) for o in others],
        table,
    )


def _apply(data: bytes, table: Table, keep: Keep) -> str:
    out: list[str] = []
    pos = 0
    for begin, end in _pieces(data, keep):
        n = table.index.get(data[begin:end])
        if n is None:  # a name only this side has stays as it is
            continue
        out.append(data[pos:begin].decode("latin-1"))
        out.append(placeholder(n))
        pos = end
    out.append(data[pos:].decode("latin-1"))
    return "".join(out)
