"""Rename a training pair's own names, the same way on both sides, to made-up ones.

A model trained on the synthesizer's names writes those names instead of a source's
(docs/model.md, "Copying"): pairs whose names it has never seen teach a copying head
to copy.
"""

from __future__ import annotations

import functools
import json
import random
import re
from pathlib import Path

__all__ = ["rename"]

_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
# Names a rename leaves alone: CUDA's and HIP's own (prefixes; data/rename_words.json lists
# the language's words and common device functions), and short ones (loop counters).
_KEEP_PREFIXES = ("__", "cuda", "hip", "cub", "cg", "warp", "thread", "block", "grid", "atomic")


@functools.cache
def _words() -> tuple[frozenset[str], tuple[str, ...]]:
    doc = json.loads((Path(__file__).parents[1] / "data" / "rename_words.json").read_text())
    return frozenset(doc["keep"]), tuple(doc["pieces"])


def _made_up(rng: random.Random) -> str:
    words = [rng.choice(_words()[1]) for _ in range(rng.randint(1, 3))]
    style = rng.random()
    if style < 0.4:
        return "_".join(words)
    if style < 0.8:
        return words[0] + "".join(w.capitalize() for w in words[1:])
    return "".join(w.capitalize() for w in words)


def rename(cuda: str, hip: str, rng: random.Random, most: int = 4) -> tuple[str, str]:
    """``cuda`` and ``hip`` with up to ``most`` of their shared user names replaced by
    made-up ones, the same in both (a name the translation changed is not shared)."""
    shared = sorted(
        {m for m in _IDENT.findall(cuda) if len(m) >= 3 and m not in _words()[0]}
        & set(_IDENT.findall(hip))
    )
    shared = [n for n in shared if not n.startswith(_KEEP_PREFIXES) and not n.isupper()]
    if not shared:
        return cuda, hip
    chosen = rng.sample(shared, min(most, len(shared)))
    table = {name: _made_up(rng) for name in chosen}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, chosen)) + r")\b")
    return (
        pattern.sub(lambda m: table[m.group(1)], cuda),
        pattern.sub(lambda m: table[m.group(1)], hip),
    )
