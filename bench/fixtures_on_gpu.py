"""Build every fixture program as CUDA with nvcc and run it: its verdict line is the truth.

Meant for a machine with an NVIDIA GPU (the project's H200 device). Writes
`<out>/fixtures_gpu.md` and `.json`: per program the build status, exit code,
verdict line and wall time. The translated-HIP side of this comparison comes
with the HIP-on-CUDA layer (the pipeline issue).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fixture_header import directives  # noqa: E402

PROGRAMS = ROOT / "tests" / "fixtures" / "programs"


def build_and_run(path: Path, work: Path, arch: str) -> dict[str, object]:
    info = directives(path)
    row: dict[str, object] = {"program": path.stem, "families": info.get("FAMILIES", "")}
    if info.get("NVCC", "yes").startswith("no"):
        row.update(status="not built", reason=info["NVCC"])
        return row
    exe = work / path.stem
    cmd = ["nvcc", "-std=c++17", f"-arch={arch}", "-I", str(PROGRAMS), str(path), "-o", str(exe)]
    if "driver" in info.get("FAMILIES", ""):
        cmd.append("-lcuda")
    built = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if built.returncode != 0:
        row.update(status="build failed", reason=built.stderr.strip().splitlines()[-1:])
        return row
    start = time.perf_counter()
    try:
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        row.update(status="timeout")
        return row
    wall = time.perf_counter() - start
    verdicts = [ln for ln in ran.stdout.splitlines() if ln.startswith("VERDICT:")]
    ok = ran.returncode == 0 and len(verdicts) == 1 and verdicts[0].startswith("VERDICT: PASS")
    row.update(
        status="pass" if ok else "fail",
        exit=ran.returncode,
        verdict=verdicts[-1] if verdicts else "",
        seconds=round(wall, 3),
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "reports")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--work", type=Path, default=Path("/tmp/cass-fixtures-gpu"))
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    programs = sorted(PROGRAMS.glob("*.cu"))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        rows = list(pool.map(lambda p: build_and_run(p, args.work, args.arch), programs))
    gpu = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=False)
    command = "python bench/fixtures_on_gpu.py " + shlex.join(argv or sys.argv[1:])
    counts: dict[str, int] = {}
    for r in rows:
        counts[str(r["status"])] = counts.get(str(r["status"]), 0) + 1
    doc = {
        "gpu": gpu,
        "nvcc": nvcc.stdout.strip().splitlines()[-1:],
        "command": command,
        "platform": platform.platform(),
        "counts": counts,
        "programs": rows,
    }
    (args.out / "fixtures_gpu.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [
        "# Fixture programs as CUDA on a GPU",
        "",
        f"GPU: {gpu}. nvcc: {' '.join(doc['nvcc'])}. Command: `{command}`.",
        "",
        "Totals: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + ".",
        "",
        "| program | status | verdict | seconds |",
        "|---|---|---|---|",
    ]
    for r in rows:
        verdict = r.get("verdict") or r.get("reason", "")
        lines.append(f"| {r['program']} | {r['status']} | {verdict} | {r.get('seconds', '')} |")
    (args.out / "fixtures_gpu.md").write_text("\n".join(lines) + "\n")
    print(f"{counts}", file=sys.stderr)
    return 0 if counts.get("fail", 0) == 0 and counts.get("build failed", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
