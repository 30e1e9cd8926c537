"""Issue 20's goal, measured: every program whose hand port builds also builds when translated.

Each bench/hand_ports/<name>/main.hip is a HIP port, written by hand, of
bench/programs/<name>/main.cu. For each program this script

1. builds the hand port with hipcc for gfx90a;
2. translates the CUDA source with `cass translate` (the default route) and builds that;
3. translates it with `cass translate --strategy rules` and builds that;

all with the same hipcc command, and writes bench/reports/hand_ports.md. A translation
"builds" when cass wrote it and hipcc compiled and linked it; `cass translate` exiting
non-zero (no candidate verified) counts as not building, with cass's first error.

    python bench/hand_ports.py            # all programs, 2 at a time
    python bench/hand_ports.py -j 1 --only basic-vector_bf16_convert
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PORTS = ROOT / "bench" / "hand_ports"
PROGRAMS = ROOT / "bench" / "programs"
REPORT = ROOT / "bench" / "reports" / "hand_ports.md"
ARCH = "gfx90a"
ROUTES = {"default": [], "rules": ["--strategy", "rules"]}


@dataclass
class Step:
    ok: bool
    error: str = ""


@dataclass
class Result:
    name: str
    hand: Step
    routes: dict[str, Step]


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:300]
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _run(cmd: list[str], timeout: int = 600) -> tuple[int, str]:
    env = dict(os.environ, HIP_PLATFORM="amd")
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s: {shlex.join(cmd)}"
    return done.returncode, done.stdout + done.stderr


def hipcc_command(source: Path, exe: Path, include: str) -> list[str]:
    """The one build command for hand ports and translations alike."""
    return [
        "hipcc",
        f"--offload-arch={ARCH}",
        "-std=c++17",
        "-O2",
        "-I",
        include,
        "-x",
        "hip",
        str(source),
        "-o",
        str(exe),
    ]


def _build(source: Path, work: Path, include: str) -> Step:
    rc, out = _run(hipcc_command(source, work / (source.stem + ".exe"), include))
    return Step(rc == 0, "" if rc == 0 else _first_error(out))


def measure(name: str, include: str) -> Result:
    with tempfile.TemporaryDirectory(prefix=f"hand_ports_{name}_") as tmp:
        work = Path(tmp)
        hand = _build(PORTS / name / "main.hip", work, include)
        routes: dict[str, Step] = {}
        for route, extra in ROUTES.items():
            out = work / f"{route}.hip"
            rc, text = _run(
                [
                    sys.executable,
                    "-m",
                    "cass_build",
                    "translate",
                    str(PROGRAMS / name / "main.cu"),
                    "-o",
                    str(out),
                    *extra,
                ]
            )
            if rc != 0 or not out.exists():
                routes[route] = Step(False, "cass translate: " + _first_error(text))
                continue
            routes[route] = _build(out, work, include)
        return Result(name, hand, routes)


def _cell(step: Step) -> str:
    return "yes" if step.ok else "**no**"


def report(results: list[Result], command: str, seconds: float, hipcc_version: str) -> str:
    built = [r for r in results if r.hand.ok]
    build = shlex.join(hipcc_command(Path("SOURCE"), Path("EXE"), "$(cass --includedir)"))
    lines = [
        "# Hand ports against translations",
        "",
        "Issue 20's goal: every program whose hand-written HIP port builds also builds when"
        " translated. The CUDA programs are bench/programs/<name>/main.cu; their hand ports"
        " bench/hand_ports/<name>/main.hip.",
        "",
        f"Command: `{command}` ({seconds:.0f} s)",
        "",
        f"Build command (hand ports and translations): `{build}`; {hipcc_version}.",
        "Translations: `cass translate main.cu -o out.hip` (default route) and"
        " `... --strategy rules`.",
        "",
        "## Totals",
        "",
        "| | programs | hand port builds | default route builds | rules builds |",
        "|---|---|---|---|---|",
    ]
    n_default = sum(r.routes["default"].ok for r in built)
    n_rules = sum(r.routes["rules"].ok for r in built)
    n = len(built)
    lines.append(f"| all | {len(results)} | {n} | {n_default}/{n} | {n_rules}/{n} |")
    lines += [
        "",
        "Counts of translations that build are over the programs whose hand port builds.",
        "",
    ]
    lines += [
        "## Per program",
        "",
        "| program | hand port | default | rules | first error |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        errors = [f"{k}: {s.error}" for k, s in [("hand", r.hand), *r.routes.items()] if not s.ok]
        err = "; ".join(errors).replace("|", "\\|")
        cells = [_cell(r.hand), _cell(r.routes["default"]), _cell(r.routes["rules"])]
        lines.append(f"| {r.name} | {' | '.join(cells)} | {err} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=2, help="programs measured at once (default 2)"
    )
    parser.add_argument(
        "--only", action="append", default=[], help="measure only this program (repeatable)"
    )
    parser.add_argument(
        "--out", type=Path, default=REPORT, help=f"report path (default {REPORT.relative_to(ROOT)})"
    )
    args = parser.parse_args(argv)
    names = sorted(p.name for p in PORTS.iterdir() if (p / "main.hip").is_file())
    missing = [n for n in names if not (PROGRAMS / n / "main.cu").is_file()]
    if missing:
        print(
            f"hand_ports.py: no CUDA source in bench/programs for {', '.join(missing)}",
            file=sys.stderr,
        )
        return 2
    if args.only:
        names = [n for n in names if n in set(args.only)]
    rc, include = _run([sys.executable, "-m", "cass_build", "--includedir"])
    if rc != 0:
        print(f"hand_ports.py: `cass --includedir` failed: {include.strip()}", file=sys.stderr)
        return 2
    _, version = _run(["hipcc", "--version"])
    hip_line = next((line for line in version.splitlines() if "HIP version" in line), "hipcc")
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda n: measure(n, include.strip()), names))
    seconds = time.monotonic() - start
    command = "python bench/hand_ports.py" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:])
    )
    text = report(results, command, seconds, hip_line.strip())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.out)
    for r in results:
        cells = ", ".join(f"{k} {_cell(s)}" for k, s in [("hand", r.hand), *r.routes.items()])
        print(f"{r.name}: {cells}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
