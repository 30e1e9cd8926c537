"""What one ``cass nvcc -c`` adds per call: the driver process's own CPU, children excluded.

The HIP compile the driver runs is the clang command the hand-written route runs too, so
the driver's cost is its own process: start-up, imports, translation, cache. Measured
for two commits side by side (``--base``, default the commit before the issue-18 speed
work, against ``HEAD``), interleaved, each from ``git archive`` with the installed C++
core copied in, run as ``python -S -P -m``-style with ``PYTHONPATH`` (the editable
install would shadow it otherwise), with bytecode caching on:

* cold: a new ``.cu`` per call (its translation not cached; table caches warm),
* hit: the same ``.cu`` again (a CASS cache hit: a second build directory, a clean
  rebuild).

    python bench/nvcc_percall.py --base 990c1b9 --calls 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """\
import resource, sys
sys.argv = ["nvcc", *sys.argv[1:]]
from cass_build.nvcc import main
rc = main()
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"SELF {1000 * (r.ru_utime + r.ru_stime):.3f} {rc}", file=sys.stderr)
"""


def _tree(commit: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "cass_build"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    import cass_build._core as core  # the installed build of the C++ core

    shutil.copy(core.__file__, into / "cass_build")
    return into


def _call(tree: Path, work: Path, src: Path, out: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree), CASS_CACHE_DIR=str(tree.parent / "cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tree.parent / "pycache")
    env.setdefault("CASS_ARCHS", "gfx90a;gfx1030")
    argv = [sys.executable, "-S", "-P", str(work / "probe.py"), "-c", str(src), "-o", out]
    proc = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, check=False)
    lines = [w for w in proc.stderr.splitlines() if w.startswith("SELF ")]
    if proc.returncode != 0 or not lines or lines[-1].split()[2] != "0":
        sys.exit(f"{tree}: the driver failed:\n{proc.stderr}")
    return float(lines[-1].split()[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="990c1b9")
    parser.add_argument("--head", default="HEAD")
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cass-percall-"))
    try:
        (work / "probe.py").write_text(PROBE)
        trees = {name: _tree(c, work / name / "src") for name, c in
                 (("base", args.base), ("head", args.head))}  # fmt: skip
        got: dict[str, dict[str, list[float]]] = {n: {"cold": [], "hit": []} for n in trees}
        for i in range(args.calls + 1):  # round 0 warms the table caches and the probe
            for name, tree in trees.items():
                src = work / f"{name}_{i}.cu"
                src.write_text(f"__global__ void k{i}(float* o) {{ o[threadIdx.x] = {i}.5f; }}\n")
                cold = _call(tree, work, src, f"{src}.o")
                hit = _call(tree, work, src, f"{src}.2.o")
                if i:
                    got[name]["cold"].append(cold)
                    got[name]["hit"].append(hit)
        load = os.getloadavg()
        print(f"| driver process CPU, ms (median of {args.calls}) | {args.base} | {args.head} |")
        print("|---|---|---|")
        for kind in ("cold", "hit"):
            row = [f"{statistics.median(got[n][kind]):.0f}" for n in trees]
            print(f"| {kind} | {' | '.join(row)} |")
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
