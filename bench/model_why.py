"""Why the model left a file as the rules wrote it: each flagged declaration's decision.

    python bench/model_why.py bench/programs/search_pattern_ballot/main.cu [--diff]

For every declaration the native rules flag with a warp-size hazard, prints its line, the
guards' decision (accepted, or the reason it was refused) and the file-level reason if one
refused every change. ``--diff`` also decodes each refused declaration without the
departure limit and prints its unified diff against the rules' draft: what the model would
have written, so that a refusal can be told apart from a guard that is too strict.
``--warp`` picks the mode (native by default, the one the model serves).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from cass_build import model
from cass_build.model import Trace, UnitStats, translate_bytes
from cass_build.rules import translate_bytes as rules
from cass_build.settings import Settings


def _line(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def explain(path: Path, settings: Settings, *, diff: bool) -> list[str]:
    """The report's lines for one source."""
    data = path.read_bytes()
    trace = Trace()
    translate_bytes(data, str(path), settings, trace=trace)
    lines = [f"{path}: {len(trace.units)} flagged declaration(s)"]
    if trace.file_reason:
        lines.append(f"{path}: every change refused: {trace.file_reason}")
    runner = model.load() if diff else None
    for unit in trace.units:
        where = f"{path}:{_line(data, unit.start)}"
        if unit.translated is not None:
            lines.append(f"{where}: accepted")
            continue
        lines.append(f"{where}: refused: {unit.reason}")
        if runner is None:
            continue
        limit, runner.max_departures = runner.max_departures, 1 << 30
        try:
            piece = data[unit.start : unit.end]
            draft = rules(piece, str(path), settings).data
            out = runner.translate_unit(piece, draft, UnitStats())
        finally:
            runner.max_departures = limit
        if out is None:
            lines.append("  (no output without the limit either)")
            continue
        ours, theirs = (
            draft.decode("latin-1").splitlines(True),
            out.decode("latin-1").splitlines(True),
        )
        same = sum(
            b.size for b in difflib.SequenceMatcher(None, ours, theirs).get_matching_blocks()
        )
        lines.append(f"  unlimited, the model keeps {same} of the draft's {len(ours)} lines")
        lines += [
            "  " + d.rstrip("\n") for d in difflib.unified_diff(ours, theirs, "rules", "model")
        ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--diff", action="store_true", help="decode refused ones unlimited")
    parser.add_argument("--warp", choices=["cuda", "native"], default="native")
    args = parser.parse_args(argv)
    settings = Settings(warp=args.warp)
    for path in args.sources:
        try:
            print("\n".join(explain(path, settings, diff=args.diff)))
        except OSError as exc:
            print(f"{path}: error: cannot read it ({exc.strerror})", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
