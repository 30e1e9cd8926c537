"""A file of the training corpus: what ``dataset`` cuts into units and ``sdist`` collects.

Its own module, so that ``sdist`` and ``dataset`` both import it and neither the other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .synth import Program

__all__ = ["SourceFile"]


@dataclass
class SourceFile:
    """One file of the corpus, and for a synthesized program its agnostic twin."""

    file_id: str
    source: str  # "synth" or "sdist:PKG"
    data: bytes
    twin: bytes | None = None
    labels: tuple[str, ...] = ()
    program: Program | None = None
    tree: Mapping[str, bytes] | None = None
    """An sdist file's package: every source and header, by path (for verification)."""
    relpath: str = ""
    vendored: bool = False
    """Part of a library the package bundles: kept for its headers, not used as units."""
    split: str = "train"
    segments: list[tuple[str, bytes]] = field(default_factory=list)
    twin_segments: list[tuple[str, bytes]] = field(default_factory=list)
