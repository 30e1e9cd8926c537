"""The model's evaluation in ``--warp native`` (issue 21, item 3): one command per machine.

Here (hipcc for gfx90a, the C++ core, onnxruntime):

    python bench/model_eval.py translate --data build/model_data --out build/model_eval

For each program set, ``bench/programs`` and the held-out synthesized programs of the
data build (``DATA/test_programs``, copied to ``OUT/programs/heldout``, at most
``--heldout-programs``, those with hazards first), it runs ``cass bench --no-gpu`` for
model-only (``--strategy model``), rules-only (``--strategy rules``) and ``auto`` in
``--warp native``, and for the ``--warp cuda`` reference (``--strategy rules``). That
gives the AMD compile rate (hipcc, gfx90a) and keeps every translation under
``OUT/trans/<set>/<native|cuda>/<strategy>/<program>/``; the compile reports go to
``OUT/reports``. It then scores exact match on the held-out units (``DATA/test.jsonl.gz``)
against their verified targets, per package and per hazard class, and writes
``OUT/local.json``.

On the H200 (no hipcc, no network): ``bash bench/device/model_eval.sh OUT`` runs the kept
translations through the HIP-on-CUDA layer in wave64 mode against the CUDA originals
and writes ``OUT/model_eval_device.tar.gz``; carry ``build/model_eval``.

Back here:

    python bench/model_eval.py report --eval build/model_eval --device DEVICE_TAR

writes the sections between the ``model_eval`` markers of ``bench/reports/model.md``
(and ``OUT/report.md``) from ``local.json`` and the device's reports.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tarfile
import tempfile
import time
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (report name suffix, warp mode, strategies scored in it)
MODES = (("native", "native", ("model", "rules", "auto")), ("cuda", "cuda", ("rules",)))
#: The columns of every table: the strategy in native mode, and the cuda reference.
COLUMNS = ("model", "rules", "auto", "cuda")
BEGIN, END = "<!-- model_eval:begin -->", "<!-- model_eval:end -->"


def _column(mode: str, strategy: str) -> str:
    return "cuda" if mode == "cuda" else strategy


def _hazards(program: Path) -> list[str]:
    try:
        manifest = tomllib.loads((program / "manifest.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return []
    return [str(h) for h in manifest.get("hazards", [])]


def _heldout(data: Path, dest: Path, limit: int) -> Path:
    """Copy at most ``limit`` held-out programs (those with hazards first) to ``dest``."""
    source = data / "test_programs"
    found = (
        sorted(p for p in source.iterdir() if (p / "main.cu").is_file()) if source.is_dir() else []
    )
    found.sort(key=lambda p: (not _hazards(p), p.name))
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for program in found[:limit]:
        shutil.copytree(program, dest / program.name)
    return dest


def _bench(
    root: Path, out: Path, name: str, keep: Path, warp: str, strategies: tuple[str, ...], jobs: int
) -> dict[str, Any]:
    """``cass bench --no-gpu`` of ``root``: compiled for gfx90a, translations kept."""
    from cass_build.runcheck.bench import BenchConfig, run_bench

    config = BenchConfig(
        strategies=strategies,
        archs=("gfx90a",),
        jobs=jobs,
        out=out / "reports" / "parts",
        name=name,
        gpu=False,
        keep=keep,
        warp=warp,
        command=(
            f"cass bench {root} --no-gpu --warp {warp} --offload-arch gfx90a "
            + " ".join(f"--strategy {s}" for s in strategies)
            + f" --keep {keep} --name {name}"
        ),
    )
    doc: dict[str, Any] = run_bench(root, config)
    return doc


def _needs_model(program: Path, row: dict[str, Any]) -> bool:
    """Whether model and auto can differ from the native rules on this program: the rules
    leave a warp-size hazard (the model is asked), or their file fails to compile (auto
    then takes the cuda-mode file). Elsewhere both are the rules' translation."""
    from cass_build.model.native import has_hazards
    from cass_build.rules import translate_bytes as rules
    from cass_build.settings import Settings

    native = Settings().replace(warp="native")
    sources = [program / "main.cu", *sorted(program.glob("*.cuh")), *sorted(program.glob("*.h"))]
    found = any(has_hazards(rules(f.read_bytes(), str(f), native)) for f in sources if f.is_file())
    return found or row.get("compiled") is False


def _native_set(root: Path, out: Path, name: str, jobs: int) -> dict[str, Any]:
    """Rules on every program; model and auto only where they can differ (copied else)."""
    keep = out / "trans" / name / "native"
    rules_doc = _bench(root, out, f"{name}_native_rules", keep, "native", ("rules",), jobs)
    rows = {r["program"]: r for r in rules_doc["rows"]}
    subset = out / "subset" / name
    if subset.exists():
        shutil.rmtree(subset)
    subset.mkdir(parents=True)
    programs = sorted(p for p in root.iterdir() if (p / "manifest.toml").is_file())
    asked = [p for p in programs if p.name in rows and _needs_model(p, rows[p.name])]
    for program in asked:
        shutil.copytree(program, subset / program.name)
    model_rows: list[dict[str, Any]] = []
    commands = [rules_doc["command"]]
    if asked:
        doc = _bench(subset, out, f"{name}_native_model", keep, "native", ("model", "auto"), jobs)
        model_rows = doc["rows"]
        commands.append(doc["command"])
    done = {(r["program"], r["strategy"]) for r in model_rows}
    copied = []
    for program, row in rows.items():
        for strategy in ("model", "auto"):
            if (program, strategy) in done:
                continue
            copied.append(
                {
                    **row,
                    "strategy": strategy,
                    "compile_note": row["compile_note"] or "same as rules",
                }
            )
            src = keep / "rules" / program
            if src.is_dir():
                shutil.copytree(src, keep / strategy / program, dirs_exist_ok=True)
    merged = {
        "name": f"{name}_native",
        "commands": commands,
        "asked": [p.name for p in asked],
        "rows": [*model_rows, *copied, *rules_doc["rows"]],
    }
    (out / "reports" / f"{name}_native.json").write_text(json.dumps(merged, indent=2) + "\n")
    return merged


def _cuda_set(root: Path, out: Path, name: str, jobs: int) -> dict[str, Any]:
    keep = out / "trans" / name / "cuda"
    doc = _bench(root, out, f"{name}_cuda", keep, "cuda", ("rules",), jobs)
    merged = {"name": f"{name}_cuda", "commands": [doc["command"]], "rows": doc["rows"]}
    (out / "reports" / f"{name}_cuda.json").write_text(json.dumps(merged, indent=2) + "\n")
    return merged


def _records(data: Path) -> list[dict[str, Any]]:
    path = data / "test.jsonl.gz"
    if not path.is_file():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _files(out: Path, program_set: str, program: str) -> dict[str, bytes]:
    """Each column's translated main file of one program (absent: not translated)."""
    texts = {}
    for mode, _, strategies in MODES:
        for strategy in strategies:
            path = out / "trans" / program_set / mode / strategy / program / "main.hip"
            if path.is_file():
                texts[_column(mode, strategy)] = path.read_bytes()
    return texts


def _source(program: Path) -> bytes:
    """A held-out program's CUDA sources, concatenated (b"" when it is not there)."""
    if not program.is_dir():
        return b""
    return b"".join(
        f.read_bytes() for f in sorted(program.iterdir()) if f.suffix in (".cu", ".cuh", ".h")
    )


def units(data: Path, out: Path, limit: int) -> dict[str, Any]:
    """Exact match of every held-out unit against its verified target.

    In isolation (each declaration translated alone, as the model sees it): rules-only is
    the native rules' translation, model-only the model's output where the rules flag a
    hazard (its per-unit guards applied), auto the model's output where those guards
    accept it, else (flagged) the unit's ``--warp cuda`` translation or (not flagged) the
    native rules', and cuda the cuda-mode translation.
    In the file: for the units of the held-out programs translated above, whether the
    target appears verbatim in the file each strategy wrote (so file-level guards, the
    fallback and verification count).
    """
    from cass_build.model import UnitStats, hazard_rules, load
    from cass_build.rules import translate_bytes as rules
    from cass_build.settings import Settings

    native = Settings().replace(warp="native")
    cuda = native.replace(warp="cuda")
    runner = load()
    records = _records(data)[:limit]
    groups: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    file_cache: dict[str, dict[str, bytes]] = {}
    heldout = out / "programs" / "heldout"
    refused = 0
    start = time.perf_counter()
    for rec in records:
        cu = rec["cuda"].encode("latin-1")
        want = rec["hip"].encode("latin-1")
        ruled = rules(cu, "unit.cu", native)
        flagged = any(
            d.severity == "warning" and d.rule in hazard_rules() for d in ruled.diagnostics
        )
        lines = {d.line for d in ruled.diagnostics if d.rule in hazard_rules()}
        model_out = (
            runner.translate_unit(cu, ruled.data, UnitStats(), hazard_lines=lines)
            if flagged
            else None
        )
        refused += flagged and model_out is None
        cuda_out = rules(cu, "unit.cu", cuda).data
        # auto, per unit: the model's text where accepted; a flagged unit it did not fix
        # falls back to its cuda-mode text; an unflagged one is the native rules'.
        auto = model_out if model_out is not None else cuda_out if flagged else ruled.data
        scores = {
            "rules": ruled.data == want,
            "model": (model_out if model_out is not None else ruled.data) == want,
            "auto": auto == want,
            "cuda": cuda_out == want,
        }
        program = str(rec.get("file", ""))
        in_file: dict[str, bool] = {}
        # Only units of the program's own source count in the file (the agnostic forms
        # the synthesizer wrote beside a naive program belong to no file).
        if program and rec["cuda"].encode("latin-1") in _source(heldout / program):
            texts = file_cache.setdefault(program, _files(out, "heldout", program))
            in_file = {f"{c} (in file)": want in t for c, t in texts.items()}
        package = str(rec.get("package") or "synth")  # builds before `package` are synth only
        hazards = [str(h) for h in rec.get("hazards") or []]
        keys = ["all", f"package: {package}", "hazard units" if hazards else "no hazard"]
        keys += [f"hazard: {h}" for h in hazards]
        if hazards:
            keys.append(f"hazard units, package: {package}")
        for key in keys:
            for name, ok in (*scores.items(), *in_file.items()):
                groups[key][name][0] += int(ok)
                groups[key][name][1] += 1
    return {
        "records": len(records),
        "flagged_refused": refused,
        "seconds": round(time.perf_counter() - start, 1),
        "groups": {k: dict(v) for k, v in groups.items()},
    }


def _summary(doc: dict[str, Any], mode: str) -> dict[str, Any]:
    """Per column: [compiled, tried] overall and per hazard, from a report's rows."""
    result: dict[str, Any] = {}
    for row in doc["rows"]:
        column = result.setdefault(
            _column(mode, row["strategy"]), {"compiled": [0, 0], "per_hazard": {}}
        )
        if row.get("compiled") is None:
            continue
        for pair in [
            column["compiled"],
            *(column["per_hazard"].setdefault(h, [0, 0]) for h in row.get("hazards") or []),
        ]:
            pair[0] += bool(row["compiled"])
            pair[1] += 1
    return result


def _model_digest() -> str:
    """The installed model's files, hashed: which model a report measured."""
    import hashlib

    from cass_build.model import FILES, model_dir

    digest = hashlib.sha256()
    for name in FILES:
        path = model_dir() / name
        digest.update(path.read_bytes() if path.is_file() else b"-")
    return digest.hexdigest()[:16]


def _data_command(data: Path) -> str:
    try:
        return str(json.loads((data / "manifest.json").read_text()).get("command", "?"))
    except (OSError, ValueError):
        return "?"


def translate(args: argparse.Namespace) -> int:
    out: Path = args.out
    if args.units_only:  # score the units again against the files already written
        kept: dict[str, Any] = json.loads((out / "local.json").read_text())
        kept["units"] = units(args.data, out, args.unit_limit)
        (out / "local.json").write_text(json.dumps(kept, indent=2) + "\n")
        print(render(kept, {}))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("trans", "reports"):
        shutil.rmtree(out / stale, ignore_errors=True)
    (out / "reports").mkdir()
    sets = {"bench": ROOT / "bench" / "programs"}
    if (args.data / "test_programs").is_dir():
        sets["heldout"] = _heldout(args.data, out / "programs" / "heldout", args.heldout_programs)
    local: dict[str, Any] = {
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "data": str(args.data),
        "model": json.loads((ROOT / "cass_build" / "models" / "config.json").read_text()),
        "model_sha256": _model_digest(),
        "data_command": _data_command(args.data),
        "sets": {},
        "commands": [],
    }
    for name, root in sets.items():
        summary: dict[str, Any] = {"programs": len([p for p in root.iterdir() if p.is_dir()])}
        for mode, run in (("native", _native_set), ("cuda", _cuda_set)):
            t = time.perf_counter()
            doc = run(root, out, name, args.jobs)
            summary.update(_summary(doc, mode))
            summary.setdefault("asked", doc.get("asked", []))
            local["commands"] += doc["commands"]
            print(f"model_eval: {name} {mode}: {time.perf_counter() - t:.0f} s", flush=True)
        local["sets"][name] = summary
    local["units"] = units(args.data, out, args.unit_limit)
    (out / "local.json").write_text(json.dumps(local, indent=2) + "\n")
    print(render(local, {}))
    return 0


def device(args: argparse.Namespace) -> int:
    """On the GPU machine: the kept translations of one set, every column in one
    ``cass bench`` run (the CUDA originals are built once), in wave64 mode."""
    from cass_build.runcheck.bench import BenchConfig, run_bench

    roots = {"bench": ROOT / "bench" / "programs", "heldout": args.eval / "programs" / "heldout"}
    trans = args.eval / "trans" / args.set
    combined = args.out / "trans" / args.set
    combined.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for mode, _, strategies in MODES:
        report = args.eval / "reports" / f"{args.set}_{mode}.json"
        found = json.loads(report.read_text())["rows"] if report.is_file() else []
        for strategy in strategies:
            column = _column(mode, strategy)
            link = combined / column
            if not link.exists() and (trans / mode / strategy).is_dir():
                link.symlink_to((trans / mode / strategy).resolve(), target_is_directory=True)
            rows += [{**r, "strategy": column} for r in found if r["strategy"] == strategy]
    compile_report = args.out / f"{args.set}_compile.json"
    compile_report.write_text(json.dumps({"rows": rows}) + "\n")
    command = (
        f"python bench/model_eval.py device --eval {args.eval} --set {args.set} --out {args.out}"
    )
    config = BenchConfig(
        strategies=COLUMNS,
        runs=1,
        jobs=args.jobs,
        out=args.out,
        name=args.set,
        command=command,
        translations=combined,
        compile_report=compile_report,
        parallel_runs=args.parallel_runs,
        waves=(64,),
    )
    doc = run_bench(roots[args.set], config)
    for column, totals in doc["totals"].items():
        print(f"model_eval device: {args.set} {column}: {totals}", flush=True)
    return 0


def _device_reports(tar: Path | None) -> dict[str, Any]:
    """The wave64 reports in the device tar, by name (``bench_native``, ...)."""
    if tar is None or not tar.is_file():
        return {}
    found: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(tar) as archive:
        archive.extractall(tmp, filter="data")
        for path in Path(tmp).rglob("*.json"):
            try:
                doc = json.loads(path.read_text())
            except ValueError:
                continue
            if isinstance(doc, dict) and "rows" in doc and "totals" in doc:
                found[path.stem] = doc  # a cass bench report (not the compile rows fed in)
            elif path.name == "summary.json":
                found["_summary"] = doc
    return found


def _pct(pair: list[int] | None) -> str:
    if not pair or not pair[1]:
        return "-"
    return f"{100 * pair[0] / pair[1]:.1f}% ({pair[0]}/{pair[1]})"


def _wave64(device: dict[str, Any], name: str) -> dict[str, dict[str, list[int]]]:
    """{column: {group: [agreed, ran]}} from the device's report of one set."""
    result: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    doc = device.get(name)  # one report per set, one strategy per column
    for row in doc["rows"] if doc else []:
        w = row.get("wave64")
        if w:
            column = row["strategy"]
            for group in ["all", *(f"hazard: {h}" for h in row.get("hazards") or [])]:
                result[column][group][0] += bool(w.get("executed"))
                result[column][group][1] += 1
    return result


def render(local: dict[str, Any], device: dict[str, Any]) -> str:
    lines = [
        BEGIN,
        "## Evaluation in `--warp native` (generated by bench/model_eval.py)",
        "",
        f"Local command: `{local['command']}`; data build `{local['data']}` "
        f"(`{local.get('data_command', '?')}`); model files sha256 "
        f"`{local.get('model_sha256', '?')}`. It ran:",
        "",
        *[f"- `{c}`" for c in local["commands"]],
        "",
        "Columns: **model** = `--strategy model --warp native` (the model's declarations, "
        "guards applied, refused ones left as the native rules wrote them); **rules** = "
        "`--strategy rules --warp native`; **auto** = `--strategy auto --warp native` "
        "(model, verify, fall back to `--warp cuda`, docs/model.md); **cuda** = "
        "`--strategy rules --warp cuda`, the reference auto must never be worse than.",
        "",
    ]
    for name, summary in local["sets"].items():
        asked = summary.get("asked", [])
        lines += [
            f"### {name}: {summary['programs']} programs",
            "",
            f"{len(asked)} of them carry a warp-size hazard in native mode or fail to compile "
            "there, so model and auto were run on them; on the others both are the native "
            "rules' translation (copied).",
            "",
            "| measure | " + " | ".join(COLUMNS) + " |",
            "|---|" + "---|" * len(COLUMNS),
            "| AMD compile rate (hipcc, gfx90a) | "
            + " | ".join(_pct(summary.get(c, {}).get("compiled")) for c in COLUMNS)
            + " |",
        ]
        waves = _wave64(device, name)
        if waves:
            lines.append(
                "| wave64 agreement (H200, HIP-on-CUDA wave64) | "
                + " | ".join(_pct(waves.get(c, {}).get("all")) for c in COLUMNS)
                + " |"
            )
        hazards = sorted({h for c in COLUMNS for h in summary.get(c, {}).get("per_hazard", {})})
        for h in hazards:
            cells = []
            for c in COLUMNS:
                compiled = _pct(summary.get(c, {}).get("per_hazard", {}).get(h))
                agreed = _pct(waves.get(c, {}).get(f"hazard: {h}")) if waves else ""
                cells.append(compiled + (f"; wave64 {agreed}" if agreed else ""))
            lines.append(
                f"| {h}: compile{'; wave64' if waves else ''} | " + " | ".join(cells) + " |"
            )
        if not waves:
            lines.append("")
            lines.append(
                "No wave64 figures: the device tar was not given or had no report of this set."
            )
        lines.append("")
    u = local.get("units", {})
    if u.get("records"):
        lines += [
            f"### Exact match on held-out units ({u['records']} units of `DATA/test.jsonl.gz`)",
            "",
            "In isolation: each declaration alone (auto: the model where its per-unit guards "
            "accept it, else a flagged unit's `--warp cuda` translation, an unflagged one's "
            "native rules translation). In the file: the units of the held-out programs "
            "above (those in the program's source), exact where the target appears verbatim "
            "in the file that strategy wrote. "
            f"{u['flagged_refused']} flagged units were refused by the per-unit guards.",
            "",
            "| group | "
            + " | ".join(COLUMNS)
            + " | "
            + " | ".join(f"{c} (in file)" for c in COLUMNS)
            + " |",
            "|---|" + "---|" * (2 * len(COLUMNS)),
        ]
        groups = u["groups"]
        order = sorted(groups, key=lambda k: (k != "all", k.startswith("hazard:"), k))
        for key in order:
            g = groups[key]
            cells = [_pct(g.get(c)) for c in COLUMNS] + [
                _pct(g.get(f"{c} (in file)")) for c in COLUMNS
            ]
            lines.append(f"| {key} | " + " | ".join(cells) + " |")
        lines.append("")
    if not device:
        lines += ["No device run in this report (`--device` not given).", ""]
    if "_summary" in device:
        lines += [
            "Device run (`bash bench/device/model_eval.sh OUT` on the H200, carrying "
            "`build/model_eval`), its steps:",
            "",
            "```",
            *device["_summary"].get("steps", []),
            "```",
            "",
        ]
    lines.append(END)
    return "\n".join(lines) + "\n"


def report(args: argparse.Namespace) -> int:
    local = json.loads((args.eval / "local.json").read_text())
    text = render(local, _device_reports(args.device))
    (args.eval / "report.md").write_text(text)
    target: Path = args.report
    old = target.read_text() if target.is_file() else ""
    if BEGIN in old and END in old:
        new = old[: old.index(BEGIN)] + text.rstrip("\n") + old[old.index(END) + len(END) :]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    target.write_text(new)
    print(text)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("translate", help="translate, compile and score here (hipcc)")
    t.add_argument("--data", type=Path, default=ROOT / "build" / "model_data")
    t.add_argument("--out", type=Path, default=ROOT / "build" / "model_eval")
    t.add_argument("--heldout-programs", type=int, default=40)
    t.add_argument("--unit-limit", type=int, default=100000)
    t.add_argument("--jobs", type=int, default=2)
    t.add_argument("--units-only", action="store_true", help="rescore the units only")
    d = sub.add_parser("device", help="on the GPU machine: run one set's kept translations")
    d.add_argument("--eval", type=Path, default=ROOT / "build" / "model_eval")
    d.add_argument("--set", choices=("bench", "heldout"), required=True)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--jobs", type=int, default=16)
    d.add_argument("--parallel-runs", type=int, default=8)
    r = sub.add_parser("report", help="write bench/reports/model.md's evaluation sections")
    r.add_argument("--eval", type=Path, default=ROOT / "build" / "model_eval")
    r.add_argument("--device", type=Path, default=None, help="the device script's tar")
    r.add_argument("--report", type=Path, default=ROOT / "bench" / "reports" / "model.md")
    args = ap.parse_args()
    run = {"translate": translate, "device": device, "report": report}[args.command]
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
