"""Counts of converted and unconverted CUDA references, per family and file."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["FamilyCount", "Stats", "format_stats"]


@dataclass(frozen=True)
class FamilyCount:
    """One API family's references in a translation: converted and not."""

    converted: int = 0
    unconverted: int = 0


@dataclass(frozen=True)
class Stats:
    """What one translation touched: references per API family, lines and bytes."""

    families: dict[str, FamilyCount] = field(default_factory=dict)
    lines: int = 0
    bytes: int = 0

    @property
    def converted(self) -> int:
        return sum(c.converted for c in self.families.values())

    @property
    def unconverted(self) -> int:
        return sum(c.unconverted for c in self.families.values())

    def __add__(self, other: Stats) -> Stats:
        merged = dict(self.families)
        for name, count in other.families.items():
            mine = merged.get(name, FamilyCount())
            merged[name] = FamilyCount(
                mine.converted + count.converted, mine.unconverted + count.unconverted
            )
        return Stats(merged, self.lines + other.lines, self.bytes + other.bytes)


def format_stats(per_file: Iterable[tuple[str, Stats]], fmt: str) -> str:
    """Render per-file and total stats as ``text``, ``json`` or ``csv``."""
    rows = list(per_file)
    total = sum((s for _, s in rows), Stats())
    if fmt == "json":

        def as_dict(s: Stats) -> dict[str, object]:
            return {
                "converted": s.converted,
                "unconverted": s.unconverted,
                "lines": s.lines,
                "bytes": s.bytes,
                "families": {
                    k: {"converted": v.converted, "unconverted": v.unconverted}
                    for k, v in sorted(s.families.items())
                },
            }

        doc = {"files": {p: as_dict(s) for p, s in rows}, "total": as_dict(total)}
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "csv":
        import csv  # only here: every build step imports this module
        import io

        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["file", "family", "converted", "unconverted"])
        for path, s in [*rows, ("TOTAL", total)]:
            for name, c in sorted(s.families.items()):
                writer.writerow([path, name, c.converted, c.unconverted])
        return buf.getvalue()
    lines = []
    for path, s in [*rows, ("total", total)] if len(rows) != 1 else rows:
        lines.append(
            f"{path}: {s.converted} converted, {s.unconverted} unconverted "
            f"({s.lines} lines, {s.bytes} bytes)"
        )
        for name, c in sorted(s.families.items()):
            lines.append(f"  {name:<20} {c.converted:>8} converted {c.unconverted:>8} unconverted")
    return "\n".join(lines) + "\n"
