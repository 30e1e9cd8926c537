"""The wave64 proof programs run as CUDA and as translated HIP in both wave modes.

Each program in tests/fixtures/wave64 is built with nvcc as written (32-lane warps: the
reference) and, translated by the rules for each HIP version, with nvcc through the
HIP-on-CUDA layer twice: in wave32 mode and in wave64 mode (64-lane AMD wavefronts
emulated, docs/hip_on_cuda.md). CASS's translation, hazard fixes included, must agree
with the CUDA original in both modes, for every program. The programs marked
`WAVE64: fail` (code that assumes 32 lanes) also run in wave64 mode as a naive
translation (the same rules with the hazard fixes off: renames only, as a plain
translator leaves them), which must differ: that is what the fixes fix.
Writes `<out>/wave64.md` and `.json`.

Translating needs CASS's C++ core; a GPU machine without it takes translations made
elsewhere: `--translate-only DIR` here, then `--translated DIR` there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cass_build.runcheck.compare import (  # noqa: E402
    compare,
    gpu_backend,
    gpu_description,
    nvcc_version,
    set_parallel_runs,
)
from tests.fixture_header import directives  # noqa: E402

PROGRAMS = ROOT / "tests" / "fixtures" / "wave64"
WAVES = (32, 64)


def translate_all(out: Path, versions: list[str]) -> None:
    """Rules translations of every program, with and without the hazard fixes, and the
    warp-size diagnostics CASS gives."""
    from cass_build import Settings, _core, translate_file
    from cass_build.rules import core_options, core_table
    from cass_build.rules.tables import parse_version

    diagnostics: dict[str, dict[str, list[str]]] = {}
    for version in versions:
        folder = out / f"hip-{version}"
        naive = out / f"naive-{version}"
        folder.mkdir(parents=True, exist_ok=True)
        naive.mkdir(parents=True, exist_ok=True)
        settings = Settings(hip_version=parse_version(version))
        naive_options = _core.Options(
            hip_version=core_options(settings).hip_version,
            cuda_arch=settings.cuda_arch,
            cuda_version=settings.cuda_version,
            hazard_fixes=False,
            logical_warps=False,  # naive: HIP's own warp operations, as a renamer leaves them
        )
        found = diagnostics.setdefault(version, {})
        for path in sorted(PROGRAMS.glob("*.cu")):
            result = translate_file(path, options=settings)
            (folder / f"{path.stem}.hip").write_bytes(result.data)
            text = _core.translate(path.read_bytes(), core_table(), naive_options)[0]
            (naive / f"{path.stem}.hip").write_bytes(text)
            found[path.stem] = [
                f"{d.line}:{d.column} {d.severity} {d.rule}"
                for d in result.diagnostics
                if d.rule.startswith(("cass-warp", "cass-ballot", "cass-shfl", "cass-lane"))
            ]
    (out / "diagnostics.json").write_text(json.dumps(diagnostics, indent=2) + "\n")
    print(f"translated {len(found)} programs for HIP {', '.join(versions)} into {out}")


def one(
    path: Path,
    version: str,
    wave: int,
    translation: str,
    translated: Path,
    work: Path,
    build_only: bool = False,
) -> dict[str, object]:
    """One comparison; ``build_only`` builds both sides and runs neither (no GPU needed),
    and the row is as expected when both built."""
    info = directives(path)
    expected = "pass" if translation == "cass" or wave == 32 else info.get("WAVE64", "pass")
    folder = f"hip-{version}" if translation == "cass" else f"naive-{version}"
    result = compare(
        path,
        translated / folder / f"{path.stem}.hip",
        workdir=work / translation / version / str(wave) / path.stem,
        timeout=60.0,
        wave=wave,
        build_only=build_only,
    )
    cuda_ok = bool(result.cuda.verdicts) and result.cuda.verdicts[-1].startswith("VERDICT: PASS")
    outcome = "pass" if result.passed else "fail"
    if build_only:
        cuda_ok, expected = result.cuda.built, "built"
        outcome = "built" if result.passed else "fail"
    row: dict[str, object] = {
        "program": path.stem,
        "hazard": info.get("HAZARD", info.get("FIXES", "")),
        "kind": "hazard" if "HAZARD" in info else "fixed" if "FIXES" in info else "agnostic",
        "translation": translation,
        "hip_version": version,
        "wave": wave,
        "expected": expected,
        "outcome": outcome,
        "as_expected": cuda_ok and result.hip.built and outcome == expected,
        "reason": result.reason,
        "cuda_verdict": " | ".join(result.cuda.verdicts),
        "hip_verdict": " | ".join(result.hip.verdicts),
        "hip_exit": result.hip.exit_code,
        "cuda_seconds": result.cuda.seconds,
        "hip_seconds": result.hip.seconds,
        "hip_build_output": "" if result.hip.built else result.hip.build_output[-1500:],
        "hip_stdout": result.hip.stdout[-1500:],  # device printf: the emulation's messages
        "hip_stderr": result.hip.stderr[-1500:],
        "hip_build_command": " ".join(result.hip.build_command),
        "hip_scheduling": result.hip.scheduling,
    }
    mark = "ok" if row["as_expected"] else "UNEXPECTED"
    where = f"{path.stem} ({translation}) @ HIP {version} wave{wave}"
    print(f"{mark}: {where}: {outcome}: {result.reason}")
    return row


def cell(value: object) -> str:
    return "" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def report(rows: list[dict[str, object]], args: argparse.Namespace, command: str) -> None:
    from cass_build.runcheck.hip_on_cuda import layer_dir

    diagnostics = {}
    if (args.translated / "diagnostics.json").is_file():
        diagnostics = json.loads((args.translated / "diagnostics.json").read_text())
    doc = {
        "gpu": gpu_description(),
        "nvcc": nvcc_version(),
        "command": command,
        "translations": f"python bench/wave64.py --translate-only {args.translated} "
        + " ".join(f"--hip-version {v}" for v in args.versions),
        "layer": layer_dir().name,
        "platform": platform.platform(),
        "parallel_runs": args.parallel_runs,
        "programs": rows,
        "diagnostics": diagnostics,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "wave64.json").write_text(json.dumps(doc, indent=2) + "\n")
    good = sum(bool(r.get("as_expected")) for r in rows)
    lines = [
        "# Wave64 proof programs: CUDA, and translated HIP with 32- and 64-lane waves",
        "",
        "Each program is built with nvcc as written (32-lane warps, the reference) and, "
        "translated by the rules for the HIP version shown, with nvcc through the HIP-on-CUDA "
        "layer in wave32 and in wave64 mode; every run is compared with the CUDA original "
        "(exit code, VERDICT line, output files). Expected: CASS's translation (hazard fixes "
        "included) agrees in both modes for every program; the hazard programs' naive "
        "translation (the rules with the hazard fixes off) differs in wave64 mode.",
        "",
        f"- GPU: {doc['gpu']}",
        f"- nvcc: {doc['nvcc']}",
        f"- layer: `{doc['layer']}`",
        f"- command: `{command}`",
        f"- translations: `{doc['translations']}`",
        f"- runs as expected: {good} of {len(rows)}",
        "",
        "| program | kind | hazard | translation | HIP | wave | expected | result | as expected "
        "| reason |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            "| "
            + " | ".join(
                cell(r.get(k))
                for k in (
                    "program",
                    "kind",
                    "hazard",
                    "translation",
                    "hip_version",
                )
            )
            + f" | {r.get('wave')}{scheduled(r)} | {cell(r.get('expected'))}"
            + f" | {cell(r.get('outcome', r.get('status')))} | "
            + ("yes" if r.get("as_expected") else "**no**")
            + f" | {cell(r.get('reason'))} |"
        )
    (args.out / "wave64.md").write_text("\n".join(lines) + "\n")


def scheduled(row: dict[str, object]) -> str:
    """`` (convergent)`` or `` (independent)``: how the wave64 build scheduled its warps."""
    how = str(row.get("hip_scheduling") or "")
    return f" ({how.split(':')[0]})" if how else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hip-version", action="append", dest="versions", metavar="X.Y")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "reports")
    parser.add_argument("--work", type=Path, default=Path("/tmp/cass-wave64"))
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--translated", type=Path, help="translations made by --translate-only")
    parser.add_argument("--translate-only", type=Path, metavar="DIR", help="translate and stop")
    parser.add_argument("--only", action="append", default=[], help="programs with this prefix")
    parser.add_argument(
        "--parallel-runs", type=int, default=1, metavar="N", help="programs running at once"
    )
    args = parser.parse_args(argv)
    args.versions = args.versions or ["7.1", "5.2"]
    if args.translate_only:
        translate_all(args.translate_only, args.versions)
        return 0
    if gpu_backend() != "nvidia":
        print("bench/wave64.py: needs an NVIDIA GPU and nvcc", file=sys.stderr)
        return 2
    if args.translated is None:
        args.translated = args.work / "translated"
        translate_all(args.translated, args.versions)
    set_parallel_runs(args.parallel_runs)
    programs = sorted(PROGRAMS.glob("*.cu"))
    if args.only:
        programs = [p for p in programs if p.stem.startswith(tuple(args.only))]
    jobs = [(p, v, w, "cass") for v in args.versions for p in programs for w in WAVES]
    jobs += [
        (p, v, 64, "naive")
        for v in args.versions
        for p in programs
        if directives(p).get("WAVE64") == "fail"
    ]
    done: dict[tuple[str, str, int, str], dict[str, object]] = {}

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError

    # A time limit (timeout(1) sends SIGTERM) still leaves a report of what finished.
    signal.signal(signal.SIGTERM, stop)
    start = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
    futures = {
        pool.submit(one, p, v, w, t, args.translated, args.work): (p.stem, v, w, t)
        for p, v, w, t in jobs
    }
    stopped = False
    try:
        for future in as_completed(futures):
            done[futures[future]] = future.result()
    except TimeoutError:
        stopped = True
    rows = [
        done.get((p.stem, v, w, t))
        or {"program": p.stem, "translation": t, "hip_version": v, "wave": w, "status": "not run"}
        for p, v, w, t in jobs
    ]
    command = "python bench/wave64.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    report(rows, args, command)
    unexpected = [
        f"{r['program']}({r['translation']})@{r['hip_version']}/wave{r['wave']}"
        for r in rows
        if not r.get("as_expected")
    ]
    took = time.perf_counter() - start
    print(f"{len(rows)} runs in {took:.0f} s; unexpected: {unexpected or 'none'}", file=sys.stderr)
    if stopped:
        os._exit(3)
    pool.shutdown()
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
