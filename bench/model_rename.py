"""Does the model copy names it never saw? Teacher-forced accuracy on renamed pairs.

    python bench/model_rename.py --data build/model_data [--model NAME=DIR ...] \
        [--units 300] [--seed 5] [--json OUT.json]

Each of ``--units`` validation pairs of a data build is scored as it is and with some of
its own names replaced by made-up ones, alike on both sides
(``cass_build.train.rename``): the same translation under other names. Scored teacher
forced, in one decoder call per unit (the target's tokens fed, the model's next token
at each position compared with the target's): the share of target tokens right, and
the units right at every token. A model that copies scores the same on both; one that
writes the names it was trained on drops on the renamed pairs. ``--model`` defaults to
the packaged model.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cass_build.model import Runner  # noqa: E402
from cass_build.model_files import model_dir  # noqa: E402
from cass_build.rules import translate_bytes as rules_translate  # noqa: E402
from cass_build.train.dataset import data_settings  # noqa: E402
from cass_build.train.rename import rename  # noqa: E402

EOS = 2


def score(runner: Runner, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    import numpy as np

    right = total = whole = units = 0
    for cuda, hip in pairs:
        unit = cuda.encode("latin-1")
        draft = rules_translate(unit, "unit.cu", data_settings()).data
        encoded = runner.encode_pair(runner.source_text(unit, draft), hip.encode("latin-1"))
        if encoded is None or encoded[1] is None:
            continue
        src, tgt, _table = encoded
        if max(len(src), len(tgt) + 1) > runner.max_len - 1:
            continue
        ok = np.array(runner.teacher_forced(src, tgt)) == np.array([*tgt, EOS])
        right += int(ok.sum())
        total += len(ok)
        whole += int(ok.all())
        units += 1
    return {"units": units, "token_accuracy": right / max(total, 1), "units_exact": whole}


def main() -> int:
    ap = argparse.ArgumentParser(prog="python bench/model_rename.py")
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--model", action="append", default=[], help="NAME=DIR (repeatable)")
    ap.add_argument("--units", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    models = dict(m.split("=", 1) for m in args.model) or {"packaged": str(model_dir())}
    with gzip.open(args.data / "valid.jsonl.gz", "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    rng = random.Random(args.seed)
    rng.shuffle(rows)
    rows = rows[: args.units]
    as_is = [(r["cuda"], r["hip"]) for r in rows]
    names = random.Random(args.seed + 1)
    renamed = [rename(c, h, names) for c, h in as_is]
    results: dict[str, Any] = {}
    print("| model | pairs | token accuracy | units right at every token |")
    print("|---|---|---|---|")
    for name, directory in models.items():
        runner = Runner(Path(directory), threads=2)
        for label, pairs in (("as is", as_is), ("renamed", renamed)):
            doc = score(runner, pairs)
            results[f"{name}, {label}"] = doc
            print(
                f"| {name} | {label} | {doc['token_accuracy']:.2%} | "
                f"{doc['units_exact']} of {doc['units']} |",
                flush=True,
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": vars(args) | {"data": str(args.data), "json": str(args.json)},
                    "results": results,
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
