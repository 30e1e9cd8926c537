"""Refresh tests/fixtures/golden from the current translator; then read the diff."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fixture_programs import GOLDEN, PROGRAMS, golden_pair


def main() -> int:
    GOLDEN.mkdir(exist_ok=True)
    sources = sorted(PROGRAMS.glob("*.cu")) + sorted(PROGRAMS.glob("*.cuh"))
    for path in sources:
        text, diags = golden_pair(path)
        suffix = ".hip" if path.suffix == ".cu" else ".cuh"
        (GOLDEN / f"{path.stem}{suffix}").write_text(text, encoding="utf-8")
        (GOLDEN / f"{path.name}.diag").write_text(diags, encoding="utf-8")
    print(f"wrote goldens for {len(sources)} sources", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
