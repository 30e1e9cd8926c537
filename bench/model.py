"""The shipped model measured: speed, load time, memory, and held-out accuracy.

    python bench/model.py --data build/model_data --threads 2 \
        --bench-report bench/reports/raw/model_programs_gpu.json \
        --heldout-report bench/reports/raw/model_heldout_gpu.json

Everything runs in ``--warp native``, the mode the model serves (docs/model.md); the
native-mode evaluation (compile rate, wave64, exact match per package) is
``bench/model_eval.py``.

Speed (this machine, ``--threads`` onnxruntime threads): source tokens per second
over every ``bench/programs`` source, with rule-drafted decoding and, on the first
``--greedy-files`` sources, with plain greedy decoding; the rules' speed on the
same files is the baseline measured in the same run. Load time and peak memory
come from fresh processes (best of three loads; ``ru_maxrss`` of a process that
translates the speed corpus, against one that only imports and runs the rules).

Accuracy on the held-out split (``DATA/test.jsonl.gz``): exact match of each
unit for model-only and rules-only, overall, on the hazard subset and per hazard
class. ``auto`` picks, per program, the model's translation when it compiled for
AMD (the compile column of the ``cass bench`` report on ``DATA/test_programs``),
else the rules'; its units score accordingly. Compile rates and execution on the
H200 come from the ``cass bench`` reports passed in; the report lists their
commands. Writes ``model.json`` and ``model.generated.md`` to ``--out``.

``--speed-only`` measures load time, memory and speed and skips the held-out
accuracy part (which decodes every held-out unit and takes much longer).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _fresh(code: str, threads: int) -> dict[str, Any]:
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "CASS_MODEL_THREADS": str(threads)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


LOAD = """
import json, time
t = time.perf_counter()
from cass_build.model import load
load()
print(json.dumps({"seconds": time.perf_counter() - t}))
"""

MEMORY = """
import json, resource, sys
from pathlib import Path
from cass_build.settings import Settings
files = sorted(Path(sys.argv[1] if len(sys.argv) > 1 else "bench/programs").rglob("*.cu"))
settings = Settings(warp="native")
if {model}:
    from cass_build.model import translate_bytes
else:
    from cass_build.rules import translate_bytes
for f in files:
    translate_bytes(f.read_bytes(), str(f), settings)
print(json.dumps({{"maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}}))
"""


def speed(threads: int, greedy_files: int) -> dict[str, Any]:
    from cass_build.model import Runner, UnitStats, model_dir, translate_bytes
    from cass_build.rules import translate_bytes as rules
    from cass_build.settings import Settings

    settings = Settings(warp="native")  # the model serves --warp native
    runner = Runner(model_dir(), threads=threads)
    files = sorted((ROOT / "bench" / "programs").rglob("*.cu"))
    sources = [(f, f.read_bytes()) for f in files]
    result: dict[str, Any] = {"files": len(files), "bytes": sum(len(d) for _, d in sources)}

    t = time.perf_counter()
    for f, d in sources:
        rules(d, str(f), settings)
    result["rules_seconds"] = time.perf_counter() - t

    gated = UnitStats()
    t = time.perf_counter()
    for f, d in sources:
        translate_bytes(d, str(f), settings, runner=runner, stats=gated)
    result["shipped"] = {
        "seconds": time.perf_counter() - t,
        "units_to_model": gated.units,
        "src_tokens": gated.src_tokens,
    }
    # The decoder's own speed: every declaration through the model.
    stats = UnitStats()
    t = time.perf_counter()
    for f, d in sources:
        translate_bytes(d, str(f), settings, runner=runner, stats=stats, every_unit=True)
    seconds = time.perf_counter() - t
    result["drafted"] = {
        "seconds": seconds,
        "src_tokens": stats.src_tokens,
        "tokens_per_s": stats.src_tokens / seconds,
        "decoder_calls": stats.calls,
        "edits": stats.edits,
        "out_tokens": stats.out_tokens,
        "fallback_units": len(stats.fallbacks),
    }
    plain = UnitStats()
    subset = sources[:greedy_files]
    t = time.perf_counter()
    greedy_out = [
        translate_bytes(
            d, str(f), settings, runner=runner, stats=plain, use_draft=False, every_unit=True
        )
        for f, d in subset
    ]
    seconds = time.perf_counter() - t
    draft_same = UnitStats()
    t = time.perf_counter()
    drafted_out = [
        translate_bytes(d, str(f), settings, runner=runner, stats=draft_same, every_unit=True)
        for f, d in subset
    ]
    seconds_d = time.perf_counter() - t
    result["greedy_subset"] = {
        "files": len(subset),
        "src_tokens": plain.src_tokens,
        "greedy_seconds": seconds,
        "greedy_tokens_per_s": plain.src_tokens / seconds,
        "greedy_decoder_calls": plain.calls,
        "drafted_seconds": seconds_d,
        "drafted_tokens_per_s": draft_same.src_tokens / seconds_d,
        "drafted_decoder_calls": draft_same.calls,
        # The runtime target: drafting changes the cost, never the output.
        "identical_files": sum(a == b for a, b in zip(greedy_out, drafted_out, strict=True)),
    }
    return result


def _program_of(file_id: str) -> str:
    return Path(file_id).parts[0] if "/" in file_id else file_id


def _trained_on(prep: Path | None) -> set[str]:
    """The source texts the shipped model was trained on (decoded from prepare's arrays)."""
    if prep is None:
        return set()
    import numpy as np
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(prep / "tokenizer.json"))
    arrays = np.load(prep / "tokens.npz")
    src, off = arrays["train_src"], arrays["train_src_off"]
    ids = [src[off[i] : off[i + 1]].tolist() for i in range(len(off) - 1)]
    return set(tok.decode_batch(ids, skip_special_tokens=True))


#: rules and shipped model scored on the units auto is scored on (those of compiled programs).
RULES_SAME = "rules, auto's units"
MODEL_SAME = "model, auto's units"


def accuracy(
    data: Path,
    heldout_report: Path | None,
    limit: int,
    prep: Path | None,
    programs_only: bool = False,
) -> dict[str, Any]:
    from cass_build.model import UnitStats as Stats
    from cass_build.model import hazard_rules, load
    from cass_build.rules import translate_bytes as rules
    from cass_build.settings import Settings
    from cass_build.train.prepare import read_split

    settings = Settings(warp="native")
    runner = load()
    trained = _trained_on(prep)
    records = [r for r in read_split(data, "test") if r["cuda"] not in trained][:limit]
    compiled: dict[tuple[str, str], bool] = {}
    if heldout_report and heldout_report.is_file():
        for row in json.loads(heldout_report.read_text())["rows"]:
            compiled[(row["program"], row["strategy"])] = bool(row.get("compiled"))
    programs = {p for p, _ in compiled}
    if programs_only:
        records = [r for r in records if r.get("file") in programs]
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for rec in records:
        cuda = rec["cuda"].encode("latin-1")
        want = rec["hip"].encode("latin-1")
        ruled = rules(cuda, "unit.cu", settings)
        draft = ruled.data
        raw = runner.translate_unit(cuda, draft, Stats())
        raw_out = draft if raw is None else raw
        flagged = any(
            d.severity == "warning" and d.rule in hazard_rules() for d in ruled.diagnostics
        )
        shipped = raw_out if flagged else draft
        program = rec.get("file") if rec.get("file") in programs else None
        model_compiled = compiled.get((program, "model")) if program else None
        scores = {
            "model (every unit)": raw_out == want,
            "model": shipped == want,
            "rules": draft == want,
        }
        if model_compiled is not None:
            scores["auto"] = (shipped if model_compiled else draft) == want
            # The same units for rules and model, so that auto is compared like for like.
            scores[RULES_SAME] = scores["rules"]
            scores[MODEL_SAME] = scores["model"]
        keys = ["all", rec["source"].split(":")[0]]
        hazards = rec.get("hazards") or []
        keys += ["hazard subset"] if hazards else ["no hazard"]
        keys += [f"hazard: {h}" for h in hazards]
        for key in keys:
            g = groups[key]
            for name, ok in scores.items():
                g[name][0] += int(ok)
                g[name][1] += 1
    return {
        "units": len(records),
        "trained_on_units": len(trained),
        "groups": {k: dict(v) for k, v in groups.items()},
    }


def _pct(pair: list[int] | None) -> str:
    if not pair or not pair[1]:
        return "-"
    return f"{100 * pair[0] / pair[1]:.1f}% ({pair[0]}/{pair[1]})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT / "build" / "model_data")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--greedy-files", type=int, default=3)
    ap.add_argument("--heldout-limit", type=int, default=100000)
    ap.add_argument("--heldout-report", type=Path, default=None)
    ap.add_argument(
        "--trained-on", type=Path, default=None, help="prepare's dir: skip units trained on"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "reports")
    ap.add_argument("--speed-only", action="store_true", help="skip the held-out accuracy part")
    ap.add_argument(
        "--programs-only",
        action="store_true",
        help="score only the held-out units of the programs in --heldout-report",
    )
    args = ap.parse_args()
    os.environ["CASS_MODEL_THREADS"] = str(args.threads)

    loads = [_fresh(LOAD, args.threads)["seconds"] for _ in range(3)]
    mem_model = _fresh(MEMORY.format(model=True), args.threads)["maxrss_kib"]
    mem_rules = _fresh(MEMORY.format(model=False), args.threads)["maxrss_kib"]
    sp = speed(args.threads, args.greedy_files)
    acc = (
        None
        if args.speed_only
        else accuracy(
            args.data, args.heldout_report, args.heldout_limit, args.trained_on, args.programs_only
        )
    )
    card = json.loads((ROOT / "cass_build" / "models" / "config.json").read_text())
    models = ROOT / "cass_build" / "models"
    size_mb = sum(f.stat().st_size for f in models.iterdir() if f.is_file()) / 1e6
    doc = {
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "threads": args.threads,
        "load_seconds": {"best": min(loads), "all": loads},
        "peak_rss_mib": {"model": mem_model / 1024, "rules_only": mem_rules / 1024},
        "speed": sp,
        "model_mb": size_mb,
        "accuracy": acc,
        "model": card,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "model.json").write_text(json.dumps(doc, indent=2) + "\n")
    d = sp["drafted"]
    g = sp["greedy_subset"]
    lines = [
        "## Speed, load time and memory (generated by bench/model.py)",
        "",
        f"Command: `{doc['command']}`; {doc['machine']}, {args.threads} onnxruntime threads.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| load time (fresh process, best of 3) | {min(loads):.3f} s (target: at most 0.5 s) |",
        f"| shipped strategy, all {sp['files']} bench sources | "
        f"{sp['shipped']['seconds']:.2f} s ({sp['shipped']['units_to_model']} declarations "
        "carried a hazard warning and went to the model) |",
        f"| drafted decoding, every declaration of the {sp['files']} sources | "
        f"{d['tokens_per_s']:.0f} source tokens/s (target: 5,000; {d['src_tokens']} tokens, "
        f"{d['decoder_calls']} decoder calls, {d['edits']} edits) |",
        f"| plain greedy, first {g['files']} sources | {g['greedy_tokens_per_s']:.0f} tokens/s "
        f"({g['greedy_decoder_calls']} calls) |",
        f"| drafted, same {g['files']} sources | {g['drafted_tokens_per_s']:.0f} tokens/s "
        f"({g['drafted_decoder_calls']} calls): "
        f"{g['drafted_tokens_per_s'] / g['greedy_tokens_per_s']:.1f}x plain greedy |",
        f"| drafted output identical to plain greedy | {g['identical_files']} of "
        f"{g['files']} files (target: all) |",
        f"| model files on disk | {size_mb:.1f} MB (target: at most 60 MB) |",
        f"| rules on the same {sp['files']} sources (baseline) | {sp['rules_seconds']:.3f} s "
        f"(the model takes {d['seconds'] / sp['rules_seconds']:.0f}x as long) |",
        f"| peak memory, translating them | {mem_model / 1024:.0f} MiB "
        f"(rules only: {mem_rules / 1024:.0f} MiB) |",
    ]
    if acc is not None:
        lines += [
            "",
            "## Held-out exact match per unit (generated by bench/model.py)",
            "",
            f"{acc['units']} held-out units. auto: the model's translation where its program "
            "compiled for AMD, else the rules' (programs of the synthesized test split only).",
            "",
            "| group | model (every unit) | model (shipped) | rules-only | auto | "
            "model (shipped), auto's units | rules-only, auto's units |",
            "|---|---|---|---|---|---|---|",
        ]
    groups = acc["groups"] if acc is not None else {}
    order = sorted(groups, key=lambda k: (k != "all", k.startswith("hazard:"), k))
    for key in order:
        grp = groups[key]
        lines.append(
            f"| {key} | {_pct(grp.get('model (every unit)'))} | {_pct(grp.get('model'))} | "
            f"{_pct(grp.get('rules'))} | {_pct(grp.get('auto'))} | "
            f"{_pct(grp.get(MODEL_SAME))} | {_pct(grp.get(RULES_SAME))} |"
        )
    (args.out / "model.generated.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
