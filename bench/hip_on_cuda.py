"""Every fixture program run as CUDA and as translated HIP on one NVIDIA GPU.

`cass compare` in bulk: each program in tests/fixtures/programs is built with nvcc as
written, and its rules translation is built with nvcc through the HIP-on-CUDA layer;
both run on the same GPU (runs one at a time, builds in parallel) and must agree on
exit code, VERDICT line and output files. Writes `<out>/hip_on_cuda.md` and `.json`.

Translating needs CASS's C++ core; a GPU machine without it can take translations
made elsewhere: `--translate-only DIR` here, then `--translated DIR` there.
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
    Comparison,
    compare,
    gpu_backend,
    gpu_description,
    nvcc_version,
    set_parallel_runs,
)
from tests.fixture_header import directives  # noqa: E402

PROGRAMS = ROOT / "tests" / "fixtures" / "programs"
#: CUDA libraries each table family links against (the fixtures' LINK lines name HIP's).
LIBS = {
    "driver": "-lcuda",
    "cublas": "-lcublas",
    "curand": "-lcurand",
    "cufft": "-lcufft",
    "cusparse": "-lcusparse",
    "cusolver": "-lcusolver",
    "nccl": "-lnccl",
    "cudnn": "-lcudnn",
}


def translate_all(out: Path, versions: list[str]) -> None:
    """Rules translations of every program and local header, one folder per HIP version."""
    from cass_build import Settings, translate_file
    from cass_build.rules.tables import parse_version

    sources = sorted(PROGRAMS.glob("*.cu")) + sorted(PROGRAMS.glob("*.cuh"))
    for version in versions:
        folder = out / f"hip-{version}"
        folder.mkdir(parents=True, exist_ok=True)
        settings = Settings(hip_version=parse_version(version))
        for path in sources:
            name = f"{path.stem}.hip" if path.suffix == ".cu" else path.name
            (folder / name).write_bytes(translate_file(path, options=settings).data)
        print(f"translated {len(sources)} sources for HIP {version} into {folder}", file=sys.stderr)


def one(path: Path, version: str, hip_dir: Path, work: Path) -> dict[str, object]:
    info = directives(path)
    families = info.get("FAMILIES", "").split()
    row: dict[str, object] = {
        "program": path.stem,
        "hip_version": version,
        "families": " ".join(families),
    }
    if info.get("NVCC", "yes").startswith("no"):
        row.update(status="not built", reason=f"CUDA original: {info['NVCC']}")
        return row
    link = [LIBS[f] for f in families if f in LIBS]
    hip = hip_dir / f"{path.stem}.hip"
    result: Comparison = compare(
        path, hip, workdir=work / version / path.stem, link=link, timeout=60.0
    )
    cuda_ok = bool(result.cuda.verdicts) and result.cuda.verdicts[-1].startswith("VERDICT: PASS")
    row.update(
        status="pass" if result.passed and cuda_ok else "fail",
        reason=result.reason,
        cuda_build="ok" if result.cuda.built else "failed",
        hip_build="ok" if result.hip.built else "failed",
        cuda_build_seconds=result.cuda.build_seconds,
        hip_build_seconds=result.hip.build_seconds,
        cuda_exit=result.cuda.exit_code,
        hip_exit=result.hip.exit_code,
        cuda_verdict=" | ".join(result.cuda.verdicts),
        hip_verdict=" | ".join(result.hip.verdicts),
        cuda_seconds=result.cuda.seconds,
        hip_seconds=result.hip.seconds,
        hip_build_output=result.hip.build_output[-1500:] if not result.hip.built else "",
        hip_stderr=result.hip.stderr[-800:] if not result.passed else "",
    )
    print(f"{row['status']}: {path.stem} @ HIP {version}: {result.reason}", file=sys.stderr)
    return row


COLUMNS = (
    ("program", "program"),
    ("hip_version", "HIP"),
    ("cuda_build", "CUDA build"),
    ("hip_build", "HIP build"),
    ("cuda_verdict", "CUDA verdict"),
    ("hip_verdict", "HIP verdict"),
    ("cuda_seconds", "CUDA s"),
    ("hip_seconds", "HIP s"),
    ("status", "result"),
    ("reason", "reason"),
)


def cell(value: object) -> str:
    return "" if value is None else str(value).replace("|", "\\|")


def report(
    rows: list[dict[str, object]], versions: list[str], command: str, args: argparse.Namespace
) -> None:
    from cass_build.runcheck.hip_on_cuda import layer_dir

    totals: dict[str, dict[str, int]] = {}
    seconds: dict[str, list[float]] = {}
    for r in rows:
        version = str(r["hip_version"])
        counts = totals.setdefault(version, {})
        counts[str(r["status"])] = counts.get(str(r["status"]), 0) + 1
        if r["status"] == "pass":
            acc = seconds.setdefault(version, [0.0, 0.0])
            acc[0] += float(r["cuda_seconds"])  # type: ignore[arg-type]
            acc[1] += float(r["hip_seconds"])  # type: ignore[arg-type]
    doc = {
        "gpu": gpu_description(),
        "nvcc": nvcc_version(),
        "command": command,
        "translations": args.translated_command,
        "layer": layer_dir().name,
        "platform": platform.platform(),
        "parallel_runs": args.parallel_runs,
        "hip_versions": versions,
        "totals": totals,
        "run_seconds": {
            v: {"cuda": round(s[0], 3), "hip": round(s[1], 3)} for v, s in seconds.items()
        },
        "programs": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hip_on_cuda.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [
        "# Fixture programs as CUDA and as translated HIP on one GPU",
        "",
        "Each program is built with nvcc as written (CUDA) and, translated by the rules for the",
        "HIP version shown, with nvcc through the HIP-on-CUDA layer (HIP); both run on the same",
        "GPU and must agree on exit code, VERDICT line and output files.",
        "",
        f"- GPU: {doc['gpu']}",
        f"- nvcc: {doc['nvcc']}",
        f"- layer: `{doc['layer']}` (generated from the tables at this commit)",
        f"- programs running at once: {args.parallel_runs} (runtimes: wall time of each run)",
        f"- command: `{command}`",
        f"- translations: `{args.translated_command}`",
        "",
    ]
    for version in versions:
        counts = totals.get(version, {})
        text = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        run = seconds.get(version)
        extra = (
            f"; summed run time of the passing programs: CUDA {run[0]:.2f} s, HIP {run[1]:.2f} s"
            if run
            else ""
        )
        lines.append(f"Totals for HIP {version}: {text}{extra}.")
        lines.append("")
    lines.append("| " + " | ".join(title for _, title in COLUMNS) + " |")
    lines.append("|" + "---|" * len(COLUMNS))
    for r in rows:
        lines.append("| " + " | ".join(cell(r.get(key)) for key, _ in COLUMNS) + " |")
    (args.out / "hip_on_cuda.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hip-version", action="append", dest="versions", metavar="X.Y")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "reports")
    parser.add_argument("--work", type=Path, default=Path("/tmp/cass-hip-on-cuda"))
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 4)
    parser.add_argument("--translated", type=Path, help="translations made by --translate-only")
    parser.add_argument("--translate-only", type=Path, metavar="DIR", help="translate and stop")
    parser.add_argument(
        "--only", action="append", default=[], help="only programs with this prefix"
    )
    parser.add_argument(
        "--parallel-runs",
        type=int,
        default=1,
        metavar="N",
        help="programs running at once (default 1: each runtime measured on an idle GPU)",
    )
    args = parser.parse_args(argv)
    versions = args.versions or ["7.1", "5.2"]
    if args.translate_only:
        translate_all(args.translate_only, versions)
        return 0
    if gpu_backend() != "nvidia":
        print("bench/hip_on_cuda.py: needs an NVIDIA GPU and nvcc", file=sys.stderr)
        return 2
    source = args.translated
    if source is None:
        source = args.work / "translated"
        translate_all(source, versions)
        args.translated_command = "made by this command (rules translator)"
    else:
        args.translated_command = (
            f"python bench/hip_on_cuda.py --translate-only {source} "
            + " ".join(f"--hip-version {v}" for v in versions)
        )
    set_parallel_runs(args.parallel_runs)
    programs = sorted(PROGRAMS.glob("*.cu"))
    if args.only:
        programs = [p for p in programs if p.stem.startswith(tuple(args.only))]
    jobs = [(p, v) for v in versions for p in programs]
    start = time.perf_counter()
    done: dict[tuple[str, str], dict[str, object]] = {}

    def stop(signum: int, frame: object) -> None:
        raise TimeoutError

    # A time limit (timeout(1) sends SIGTERM) still leaves a report of what finished.
    signal.signal(signal.SIGTERM, stop)
    pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
    futures = {pool.submit(one, p, v, source / f"hip-{v}", args.work): (p.stem, v) for p, v in jobs}
    stopped = False
    try:
        for future in as_completed(futures):
            done[futures[future]] = future.result()
    except TimeoutError:
        stopped = True
    rows = []
    for p, v in jobs:
        reason = "stopped by the time limit before it finished"
        rows.append(
            done.get((p.stem, v))
            or {"program": p.stem, "hip_version": v, "status": "not run", "reason": reason}
        )
    command = "python bench/hip_on_cuda.py " + shlex.join(
        argv if argv is not None else sys.argv[1:]
    )
    report(rows, versions, command, args)
    failed = [f"{r['program']}@{r['hip_version']}" for r in rows if r["status"] == "fail"]
    took = time.perf_counter() - start
    print(f"{len(rows)} comparisons in {took:.0f} s; failed: {failed or 'none'}", file=sys.stderr)
    if stopped:
        os._exit(3)  # do not wait for the builds still running
    pool.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
