"""Exact match per held-out unit, scored on the files each strategy actually wrote.

bench/model.py scores each held-out declaration on its own, as the model translates it;
what a build gets is a whole file, after the runtime's file-level guards (docs/model.md)
and, for ``auto``, after verification. This script scores those files: a unit of a
held-out program counts as exact for a strategy when the unit's reference translation
appears, byte for byte, in the file the strategy wrote for that program
(``cass bench --keep DIR`` leaves ``DIR/<strategy>/<program>/main.hip``). Only the
programs' own units count (the data's ``a`` variants, inputs already written for any
warp size, belong to no program).

    python bench/model_outputs.py --data build/model_data \
        --outputs build/heldout_translations_a4 --outputs build/heldout_translations_b6 \
        --out bench/reports/raw/model_outputs_v6

Writes ``model_outputs.json`` and ``model_outputs.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STRATEGIES = ("model", "rules", "auto")


def score(data: Path, outputs: list[Path]) -> dict[str, object]:
    """{units, programs, groups: {group: {strategy: [exact, units]}}}."""
    from cass_build.train.prepare import read_split

    files: dict[str, dict[str, bytes]] = {}
    for root in outputs:
        for strategy in STRATEGIES:
            for hip in sorted((root / strategy).glob("*/main.hip")):
                files.setdefault(hip.parent.name, {})[strategy] = hip.read_bytes()
    complete = {p for p, got in files.items() if set(got) == set(STRATEGIES)}
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    units = 0
    for rec in read_split(data, "test"):
        program = rec.get("file")
        if program not in complete or str(rec["id"]).endswith("a"):
            continue
        units += 1
        want = rec["hip"].encode("latin-1")
        hazards = rec.get("hazards") or []
        keys = ["all", "hazard subset" if hazards else "no hazard"]
        keys += [f"hazard: {h}" for h in hazards]
        for strategy in STRATEGIES:
            exact = want in files[program][strategy]
            for key in keys:
                groups[key][strategy][0] += int(exact)
                groups[key][strategy][1] += 1
    return {
        "units": units,
        "programs": len(complete),
        "groups": {k: dict(v) for k, v in groups.items()},
    }


def _pct(pair: list[int] | None) -> str:
    if not pair or not pair[1]:
        return "-"
    return f"{100 * pair[0] / pair[1]:.1f}% ({pair[0]}/{pair[1]})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "build" / "model_data")
    ap.add_argument("--outputs", type=Path, action="append", required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    missing = [p for p in [args.data, *args.outputs] if not p.is_dir()]
    if missing:
        print(f"bench/model_outputs.py: {missing[0]}: no such directory", file=sys.stderr)
        return 2
    result = score(args.data, args.outputs)
    command = "python bench/model_outputs.py " + " ".join(
        f"{flag} {value}"
        for flag, values in (("--data", [args.data]), ("--outputs", args.outputs))
        for value in values
    )
    doc = {"command": f"{command} --out {args.out}", **result}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "model_outputs.json").write_text(json.dumps(doc, indent=2) + "\n")
    groups = result["groups"]
    assert isinstance(groups, dict)
    lines = [
        "## Held-out exact match per unit, on the files each strategy wrote",
        "",
        f"Command: `{doc['command']}`. {result['units']} units of {result['programs']} "
        "held-out programs; a unit is exact when its reference translation appears in the "
        "strategy's file byte for byte.",
        "",
        "| group | model | rules | auto |",
        "|---|---|---|---|",
    ]
    for key in sorted(groups, key=lambda k: (k != "all", k.startswith("hazard:"), k)):
        cells = " | ".join(_pct(groups[key].get(s)) for s in STRATEGIES)
        lines.append(f"| {key} | {cells} |")
    (args.out / "model_outputs.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
