"""Why the model left a file as the rules wrote it: each flagged declaration's decision.

    python bench/model_why.py bench/programs/search_pattern_ballot/main.cu [--diff]

For every declaration the native rules flag with a warp-size hazard, prints its line, the
guards' decision (accepted, or the reason it was refused) and the file-level reason if one
refused every change. ``--diff`` also decodes each refused declaration without the
departure limit and prints its unified diff against the rules' draft: what the model would
have written, so that a refusal can be told apart from a guard that is too strict.
``--forced`` scores each flagged declaration teacher forced on the rules' draft: how many
of the draft's tokens the model would not write with the draft's own text before them, and
where the first ones are. Few such places and a long unlimited diff means one slip derails
free decoding; many means the model does not follow this source at all.
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


def forced(runner: model.Runner, piece: bytes, draft: bytes) -> list[str]:
    """Where the model, given the draft up to a token, would write another one."""
    if not piece.startswith(b"\n"):  # as translate_unit decodes such a unit
        piece, draft = b"\n" + piece, b"\n" + draft
    encoded = runner.encode_pair(runner.source_text(piece, draft), draft)
    if encoded is None or encoded[1] is None:
        return ["  teacher forced: spells a placeholder mark (<@)"]
    src, tgt, table = encoded
    if max(len(src), len(tgt) + 1) > runner.max_len - 1:
        return ["  teacher forced: too long"]
    got = runner.teacher_forced(src, tgt)
    misses = [i for i, t in enumerate(tgt) if got[i] != t]
    lines = [f"  teacher forced on the draft: {len(misses)} of {len(tgt)} tokens differ"]
    for i in misses[:3]:
        at = (runner.decode_ids(tgt[:i], table) or b"").count(b"\n")
        want = (runner.decode_ids(tgt[i : i + 1], table) or b"?").decode("latin-1")
        said = (runner.decode_ids(got[i : i + 1], table) or b"?").decode("latin-1")
        lines.append(f"    draft line {at}: {want!r}, the model {said!r}")
    return lines


def explain(path: Path, settings: Settings, *, diff: bool, force: bool = False) -> list[str]:
    """The report's lines for one source."""
    data = path.read_bytes()
    trace = Trace()
    translate_bytes(data, str(path), settings, trace=trace)
    lines = [f"{path}: {len(trace.units)} flagged declaration(s)"]
    if trace.file_reason:
        lines.append(f"{path}: every change refused: {trace.file_reason}")
    runner = model.load() if diff or force else None
    for unit in trace.units:
        where = f"{path}:{_line(data, unit.start)}"
        piece = data[unit.start : unit.end]
        taken = unit.translated is not None
        lines.append(f"{where}: accepted" if taken else f"{where}: refused: {unit.reason}")
        if runner is not None and force:
            lines += forced(runner, piece, rules(piece, str(path), settings).data)
        if taken or runner is None or not diff:
            continue
        limit, runner.max_departures = runner.max_departures, 1 << 30
        try:
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
    parser.add_argument("--forced", action="store_true", help="score the draft teacher forced")
    parser.add_argument("--warp", choices=["cuda", "native"], default="native")
    args = parser.parse_args(argv)
    settings = Settings(warp=args.warp)
    for path in args.sources:
        try:
            print("\n".join(explain(path, settings, diff=args.diff, force=args.forced)))
        except OSError as exc:
            print(f"{path}: error: cannot read it ({exc.strerror})", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
