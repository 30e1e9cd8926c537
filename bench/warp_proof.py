"""Issue 19's proof on an NVIDIA GPU: CUDA's warps through the HIP-on-CUDA layer, both wave sizes.

One run, through the existing machinery (``cass bench``'s :func:`run_bench`, bench/wave64.py):

1. every bench program (bench/programs), translated in ``--warp cuda`` and in ``--warp native``
   mode, each translation run in the layer's wave32 and wave64 modes against the CUDA original;
2. bench/warp_cost (what warp operations cost the emulation: votes one half of a wave runs
   alone, votes and shuffles in every lane), and the self-checking warp and PTX programs
   (bench/warp_programs, bench/ptx_programs: program folders with main.cu and manifest.toml,
   or loose .cu files), the same way;
3. the wave64 proof programs (tests/fixtures/wave64) as bench/wave64.py designs them: CASS's
   translation agrees in both wave modes, the hazard programs' naive one differs in wave64.

It writes ``OUT/warp_proof.json`` and ``OUT/warp_proof.md`` (agreement per program and mode;
for the programs that use warp operations, the runtime ratios wave64 / wave32 and cuda mode /
native mode, from the same run on the same GPU), plus each part's own report under ``OUT``.
``--build-only`` builds everything with nvcc through the layer and runs nothing (no GPU
needed: the check of this script on a machine without one). bench/device/warp_proof.sh
installs CASS from a bare checkout and runs this.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import shlex
import shutil
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cass_build._files import write_atomic  # noqa: E402
from cass_build.runcheck.bench import BenchConfig, run_bench  # noqa: E402
from cass_build.runcheck.compare import gpu_description, nvcc_version  # noqa: E402

MODES = ("cuda", "native")
SETS = {
    "bench": ROOT / "bench" / "programs",
    "warp": ROOT / "bench" / "warp_programs",
    "ptx": ROOT / "bench" / "ptx_programs",
    "cost": ROOT / "bench" / "warp_cost",
}
#: A program "uses warp operations" when its CUDA source calls one of these (or PTX's).
WARP_OPS = re.compile(
    r"\b(__shfl(_up|_down|_xor)?(_sync)?|__ballot(_sync)?|__any(_sync)?|__all(_sync)?|"
    r"__uni_sync|__activemask|__match_(any|all)_sync|"
    r"__reduce_\w+_sync|__syncwarp|tiled_partition|coalesced_threads|thread_block_tile|"
    r"warpSize|cub::Warp\w+)\b|\b(shfl|vote|match|redux)\.sync|%laneid|%lanemask"
)


def _load_wave64() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cass_bench_wave64", ROOT / "bench" / "wave64.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _program_root(name: str, source: Path, work: Path, only: list[str]) -> Path | None:
    """A folder of bench programs for one set: the set itself, or (loose .cu files, or
    ``--only``) a copy with one program folder per file, as ``cass bench`` reads them."""
    if not source.is_dir():
        return None
    folders = sorted(
        p.parent for p in source.rglob("manifest.toml") if (p.parent / "main.cu").is_file()
    )
    loose = sorted(p for p in source.glob("*.cu"))
    if not only and folders and not loose:
        return source
    root = work / f"programs-{name}"
    shutil.rmtree(root, ignore_errors=True)
    for folder in folders:
        if not only or folder.name.startswith(tuple(only)):
            shutil.copytree(folder, root / folder.name)
    for cu in loose:
        if only and not cu.stem.startswith(tuple(only)):
            continue
        target = root / cu.stem
        target.mkdir(parents=True)
        shutil.copy2(cu, target / "main.cu")
        for header in source.glob("*.h*"):  # the local headers loose programs share
            shutil.copy2(header, target / header.name)
        (target / "manifest.toml").write_text(f'domain = "{name}"\n', encoding="utf-8")
    return root if any(root.iterdir()) else None


def _warp_ops(directory: Path) -> int:
    text = "".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(directory.glob("*"))
        if p.suffix in (".cu", ".cuh", ".h", ".hpp")
    )
    return len(WARP_OPS.findall(text))


def _bench(name: str, root: Path, mode: str, args: argparse.Namespace, out: Path) -> dict[str, Any]:
    config = BenchConfig(
        strategies=["rules"],
        runs=1,
        jobs=args.jobs,
        out=out,
        name=f"{name}-{mode}",
        gpu=True,
        command=f"python bench/warp_proof.py (part {name}, --warp {mode})",
        parallel_runs=args.parallel_runs,
        waves=(32, 64),
        warp=mode,
        build_only=args.build_only,
    )
    start = time.monotonic()
    doc = run_bench(root, config)
    print(f"warp_proof: {name} --warp {mode}: {time.monotonic() - start:.0f} s", file=sys.stderr)
    return doc


def _cells(row: dict[str, Any], build_only: bool) -> dict[str, Any]:
    """One mode's columns of a bench row; in a build-only run, "built" where nothing ran."""
    w64 = row.get("wave64") or {}

    def state(value: Any) -> Any:
        return "built" if build_only and value is None and row.get("translated") else value

    return {
        "wave32": state(row.get("executed")),
        "wave32_note": row.get("run_note", "") or row.get("compile_note", ""),
        "wave32_seconds": row.get("hip_seconds"),
        "cuda_seconds": row.get("cuda_seconds"),
        "wave64": state(w64.get("executed")) if w64 else None,
        "wave64_note": w64.get("run_note", ""),
        "wave64_seconds": w64.get("hip_seconds"),
        "scheduling": w64.get("scheduling", ""),
        "cuda_timings": (row.get("timings") or {}).get("cuda", []),
        "wave32_timings": (row.get("timings") or {}).get("hip", []),
        "wave64_timings": w64.get("timings", []),
        # What a failing run printed (both sides: stdout, stderr, a failed build's output).
        "wave32_output": row.get("output", {}),
        "wave64_output": w64.get("output", {}),
    }


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a and b else None


def _geomean(values: list[float]) -> float | None:
    return round(math.exp(sum(map(math.log, values)) / len(values)), 3) if values else None


def _programs(set_name: str, docs: dict[str, dict[str, Any]], root: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    by_mode = {m: {r["program"]: r for r in d["rows"]} for m, d in docs.items()}
    names = sorted({n for rows_ in by_mode.values() for n in rows_})
    for name in names:
        entry: dict[str, Any] = {"set": set_name, "program": name}
        folder = next(
            (p.parent for p in root.rglob("manifest.toml") if p.parent.name == name), None
        )
        entry["warp_ops"] = _warp_ops(folder) if folder else 0
        for mode, found in by_mode.items():
            if name in found:
                entry[mode] = _cells(found[name], bool(docs[mode].get("build_only")))
        cuda, native = entry.get("cuda", {}), entry.get("native", {})
        entry["ratios"] = {
            "cuda_wave64_over_native_wave32": _ratio(
                cuda.get("wave64_seconds"), native.get("wave32_seconds")
            ),
            "cuda_wave64_over_cuda_wave32": _ratio(
                cuda.get("wave64_seconds"), cuda.get("wave32_seconds")
            ),
            "native_wave64_over_native_wave32": _ratio(
                native.get("wave64_seconds"), native.get("wave32_seconds")
            ),
            "cuda_over_native_wave32": _ratio(
                cuda.get("wave32_seconds"), native.get("wave32_seconds")
            ),
            "cuda_over_native_wave64": _ratio(
                cuda.get("wave64_seconds"), native.get("wave64_seconds")
            ),
        }
        rows.append(entry)
    return rows


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for set_name in sorted({r["set"] for r in rows}):
        mine = [r for r in rows if r["set"] == set_name]
        counts: dict[str, Any] = {"programs": len(mine)}
        for mode in MODES:
            for wave in ("wave32", "wave64"):
                cells = [r[mode][wave] for r in mine if mode in r]
                if cells:
                    good = sum(c is True or c == "built" for c in cells)
                    counts[f"{mode}_{wave}"] = f"{good}/{len(cells)}"
        heavy = [r for r in mine if r["warp_ops"] > 0]
        counts["warp_programs"] = len(heavy)
        for key in heavy[0]["ratios"] if heavy else {}:
            values = [r["ratios"][key] for r in heavy if r["ratios"][key]]
            counts[f"geomean_{key}"] = _geomean(values)
            counts[f"max_{key}"] = max(values) if values else None
        out[set_name] = counts
    return out


TOTAL_COLUMNS = [
    "set", "programs", "cuda wave32", "cuda wave64", "native wave32", "native wave64",
    "with warp ops", "geomean wave64/wave32 (cuda)", "geomean cuda wave64 / native wave32",
    "geomean cuda/native (wave32)", "geomean cuda/native (wave64)", "max cuda wave64/wave32",
]  # fmt: skip
TOTAL_KEYS = [
    "geomean_cuda_wave64_over_cuda_wave32", "geomean_cuda_wave64_over_native_wave32",
    "geomean_cuda_over_native_wave32", "geomean_cuda_over_native_wave64",
    "max_cuda_wave64_over_cuda_wave32",
]  # fmt: skip


def _row(cells: list[Any]) -> str:
    return "| " + " | ".join("-" if c is None else str(c) for c in cells) + " |"


def _mark(value: Any) -> str:
    return {True: "yes", False: "**no**", None: "-"}.get(value, str(value))


def _markdown(doc: dict[str, Any]) -> str:
    lines = [
        "# Issue 19's proof: CUDA's warps through the HIP-on-CUDA layer, wave32 and wave64",
        "",
        "Each program is built with nvcc as written (the reference) and, translated by the rules "
        "in `--warp cuda` mode (logical 32-lane warps) and in `--warp native` mode, with nvcc "
        "through the HIP-on-CUDA layer in wave32 mode and in wave64 mode (AMD's 64-lane "
        "wavefronts emulated, docs/hip_on_cuda.md); every run is compared with the CUDA original "
        "(exit code, VERDICT lines, output files). Runtimes are wall times of one run of each "
        f"binary ({doc['parallel_runs']} program(s) on the GPU at once), process start to exit.",
        "",
        f"- GPU: {doc['gpu']}",
        f"- nvcc: {doc['nvcc']}",
        f"- command: `{doc['command']}`",
        f"- install: {doc.get('install', 'not recorded')}",
        f"- took: {doc['seconds']:.0f} s"
        + (" (build only: nothing ran)" if doc["build_only"] else ""),
        "",
        "## Totals",
        "",
        _row(TOTAL_COLUMNS),
        _row(["---"] * len(TOTAL_COLUMNS)),
    ]
    for set_name, c in doc["summary"].items():
        cells = [set_name, c["programs"]]
        cells += [c.get(f"{m}_{w}", "-") for m in MODES for w in ("wave32", "wave64")]
        cells += [c["warp_programs"]] + [c.get(k) for k in TOTAL_KEYS]
        lines.append(_row(cells))
    proof = doc.get("wave64_proof")
    if proof:
        lines += [
            "",
            "## Wave64 proof programs (tests/fixtures/wave64, bench/wave64.py's design)",
            "",
            f"{proof['as_expected']} of {proof['runs']} runs as expected; the full table is in "
            "`wave64/wave64.md`.",
        ]
        bad = [r for r in proof["rows"] if not r.get("as_expected")]
        for r in bad:
            lines.append(
                f"- **unexpected**: {r['program']} ({r['translation']}) HIP {r['hip_version']} "
                f"wave{r['wave']}: {r['outcome']}, expected {r['expected']}: {r['reason']}"
            )
            printed = {k: r.get(k, "") for k in ("hip_stdout", "hip_stderr", "hip_build_output")}
            lines += _printed(printed, indent="  ")
    lines += [
        "",
        "## Per program",
        "",
        "Agreement with the CUDA original per mode; runtime ratios of the translation's runs "
        "(wave64 over wave32 in `cuda` mode, `cuda` over `native` mode at each wave size).",
        "",
        "| set | program | warp ops | cuda w32 | cuda w64 | native w32 | native w64 "
        "| cuda w64/w32 | cuda/native w32 | cuda/native w64 | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in doc["programs"]:
        ratios = r["ratios"]
        notes = [
            f"{m} w{w[4:]}: {r[m][w + '_note']}"
            for m in MODES
            if m in r
            for w in ("wave32", "wave64")
            if r[m][w] is False and r[m][w + "_note"]
        ]
        note = "; ".join(notes).replace("|", "\\|").replace("\n", " ")[:400]
        marks = [_mark(r.get(m, {}).get(w)) for m in MODES for w in ("wave32", "wave64")]
        keys = (
            "cuda_wave64_over_cuda_wave32",
            "cuda_over_native_wave32",
            "cuda_over_native_wave64",
        )
        lines.append(
            _row([r["set"], r["program"], r["warp_ops"], *marks, *map(ratios.get, keys), note])
        )
    timed = [r for r in doc["programs"] if any(r.get(m, {}).get("wave32_timings") for m in MODES)]
    if timed:
        lines += ["", "## Kernel times the programs measured", ""]
        for r in timed:
            lines.append(f"`{r['program']}`:")
            lines.append("")
            cuda = r.get("cuda") or r.get("native") or {}
            lines += [f"- CUDA original: {'; '.join(cuda.get('cuda_timings', []))}"]
            for m in MODES:
                for w in ("wave32", "wave64"):
                    if found := r.get(m, {}).get(f"{w}_timings"):
                        lines.append(f"- `--warp {m}` {w}: {'; '.join(found)}")
            lines.append("")
    failed = [
        (r, m, w)
        for r in doc["programs"]
        for m in MODES
        for w in ("wave32", "wave64")
        if r.get(m, {}).get(w) is False and r[m].get(f"{w}_output")
    ]
    if failed:
        lines += ["", "## What the failing runs printed (tails; all of it in the JSON)", ""]
        for r, m, w in failed:
            lines.append(f"- `{r['program']}` `--warp {m}` {w}:")
            lines += _printed(r[m][f"{w}_output"], indent="  ")
    if doc.get("skipped"):
        lines += ["", "## Not run", ""] + [f"- {s}" for s in doc["skipped"]]
    return "\n".join(lines) + "\n"


#: Lines of each stream the Markdown report shows (the JSON keeps the whole tail).
PRINTED_LINES = 8


def _printed(streams: dict[str, str], indent: str) -> list[str]:
    """A failing run's output streams as indented code blocks: each stream's first lines (a
    self-check's first mismatch) and its last two (its summary)."""
    out: list[str] = []
    for name, text in streams.items():
        kept = [ln for ln in text.splitlines() if ln.strip()]
        if len(kept) > PRINTED_LINES:
            kept = [*kept[: PRINTED_LINES - 2], "...", *kept[-2:]]
        if kept:
            fence = f"{indent}```"
            out += [f"{indent}{name}:", fence, *(indent + ln for ln in kept), fence]
    return out


def _proof(args: argparse.Namespace, out: Path, work: Path) -> dict[str, Any]:
    """bench/wave64.py's runs, in this process (its CUDA builds shared with the rest)."""
    from cass_build.runcheck.compare import set_parallel_runs

    set_parallel_runs(args.parallel_runs)
    wave64 = _load_wave64()
    translated = work / "wave64-translated"
    versions = ["7.1", "5.2"]
    wave64.translate_all(translated, versions)
    programs = sorted(wave64.PROGRAMS.glob("*.cu"))
    if args.only:
        programs = [p for p in programs if p.stem.startswith(tuple(args.only))]
    jobs = [(p, v, w, "cass") for v in versions for p in programs for w in wave64.WAVES]
    jobs += [
        (p, v, 64, "naive")
        for v in versions
        for p in programs
        if wave64.directives(p).get("WAVE64") == "fail"
    ]
    from concurrent.futures import ThreadPoolExecutor

    def run(job: tuple[Path, str, int, str]) -> dict[str, Any]:
        row: dict[str, Any] = wave64.one(
            *job, translated, work / "wave64-runs", build_only=args.build_only
        )
        return row

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(run, jobs))
    ns = argparse.Namespace(
        translated=translated,
        versions=versions,
        out=out / "wave64",
        parallel_runs=args.parallel_runs,
    )
    wave64.report(rows, ns, "python bench/warp_proof.py (part wave64)")
    good = sum(bool(r.get("as_expected")) for r in rows)
    return {"runs": len(rows), "as_expected": good, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where the reports go")
    parser.add_argument("--work", type=Path, help="scratch folder (default: OUT/work)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--parallel-runs", type=int, default=4, metavar="N")
    parser.add_argument("--build-only", action="store_true", help="build everything, run nothing")
    parser.add_argument("--only", action="append", default=[], help="programs with this prefix")
    parser.add_argument(
        "--part",
        action="append",
        choices=("bench", "cost", "warp", "ptx", "wave64"),
        default=[],
        help="run only these parts (default: all)",
    )
    parser.add_argument("--budget", type=float, default=480.0, help="seconds; later parts skipped")
    parser.add_argument("--install", default="", help="how CASS was installed (for the report)")
    args = parser.parse_args(argv)
    parts = args.part or ["bench", "cost", "warp", "ptx", "wave64"]
    out: Path = args.out.resolve()
    work = (args.work or out / "work").resolve()
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    command = shlex.join(
        ["python", "bench/warp_proof.py", *(sys.argv[1:] if argv is None else argv)]
    )
    skipped: list[str] = []
    # The bench in both modes first (the headline), then the new programs in cuda
    # mode, the proof programs, and the new programs in native mode (written for 32 lanes,
    # they are expected to fail there in wave64). A part that would start past the budget is
    # skipped and listed; the report is rewritten after every part, so that a run stopped
    # from outside leaves what it did.
    plan = [("bench", "cuda"), ("bench", "native"), ("cost", "cuda"), ("cost", "native"),
            ("warp", "cuda"), ("ptx", "cuda"), ("wave64", ""), ("warp", "native"),
            ("ptx", "native")]  # fmt: skip
    docs: dict[str, dict[str, dict[str, Any]]] = {}
    roots: dict[str, Path] = {}
    proof: dict[str, Any] | None = None

    def write() -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        for set_name, by_mode in docs.items():
            rows += _programs(set_name, by_mode, roots[set_name])
        doc: dict[str, Any] = {
            "command": command,
            "gpu": gpu_description(),
            "nvcc": nvcc_version(),
            "install": args.install,
            "build_only": args.build_only,
            "parallel_runs": args.parallel_runs,
            "seconds": round(time.monotonic() - start, 1),
            "summary": _summary(rows),
            "programs": rows,
            "wave64_proof": proof,
            "skipped": skipped,
        }
        # Atomic: bench/device/warp_proof.sh may stop this run at its deadline at any time.
        write_atomic(out / "warp_proof.json", (json.dumps(doc, indent=2) + "\n").encode())
        write_atomic(out / "warp_proof.md", _markdown(doc).encode())
        return doc

    write()  # a run stopped before its first part still leaves a report
    for set_name, mode in plan:
        if set_name not in parts:
            continue
        late = time.monotonic() - start > args.budget
        if set_name == "wave64":
            if late:
                skipped.append(f"wave64 proof programs: past the {args.budget:g} s budget")
            else:
                proof = _proof(args, out, work)
            write()
            continue
        root = roots.get(set_name) or _program_root(set_name, SETS[set_name], work, args.only)
        if root is None:
            if mode == "cuda":
                skipped.append(f"{set_name}: no programs in {SETS[set_name].relative_to(ROOT)}")
            continue
        roots[set_name] = root
        if late:
            skipped.append(f"{set_name} --warp {mode}: past the {args.budget:g} s budget")
            continue
        docs.setdefault(set_name, {})[mode] = _bench(set_name, root, mode, args, out / "parts")
        write()
    doc = write()
    print(f"warp_proof: {out / 'warp_proof.md'} ({doc['seconds']:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
