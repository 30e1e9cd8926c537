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

When ``HEAD`` has the translation server (``cass_build/nvcc/server.py``), a third column
runs the same calls through the stand-in's ``bin/nvcc`` and the installed client, as a
build does, and counts everything the call costs outside the HIP compile: the shell
script and the client (this process's children's CPU), the server's child for the call
(its own CPU, from ``CASS_NVCC_SERVER_STATS``) and the server parent's CPU over the
calls (``/proc``, divided by the calls). The server's start, paid once per idle
period, is printed on its own line.

    python bench/nvcc_percall.py --base 990c1b9 --calls 5
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import signal
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


def _env(tree: Path) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(tree), CASS_CACHE_DIR=str(tree.parent / "cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tree.parent / "pycache")
    env.setdefault("CASS_ARCHS", "gfx90a;gfx1030")
    return env


def _call(tree: Path, work: Path, src: Path, out: str) -> float:
    env = _env(tree)
    argv = [sys.executable, "-S", "-P", str(work / "probe.py"), "-c", str(src), "-o", out]
    proc = subprocess.run(argv, env=env, cwd=work, capture_output=True, text=True, check=False)
    lines = [w for w in proc.stderr.splitlines() if w.startswith("SELF ")]
    if proc.returncode != 0 or not lines or lines[-1].split()[2] != "0":
        sys.exit(f"{tree}: the driver failed:\n{proc.stderr}")
    return float(lines[-1].split()[1])


def _ticks(pid: int) -> float:
    """A process's own CPU so far, in ms (``/proc/PID/stat``: utime and stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return 1000 * (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Served:
    """``HEAD``'s tree run through its ``bin/nvcc`` and the installed client."""

    def __init__(self, tree: Path, work: Path, client: Path) -> None:
        self.tree, self.work = tree, work
        bin_dir = tree / "cass_build" / "toolkit" / "bin"
        (bin_dir / ".python").write_text(sys.executable + "\n")
        (bin_dir / ".client").write_text(f"{client}\n")
        self.nvcc = bin_dir / "nvcc"
        self.stats = work / "server-stats.txt"
        runtime = work / "run"
        runtime.mkdir(mode=0o700)
        self.env = dict(_env(tree), XDG_RUNTIME_DIR=str(runtime))
        self.env["CASS_NVCC_SERVER_STATS"] = str(self.stats)
        self.env.pop("CASS_NVCC_SERVER", None)
        self.server = 0
        self.start_cpu = self.parent_cpu = 0.0

    @classmethod
    def for_tree(cls, tree: Path, work: Path) -> _Served | None:
        import cass_build._core as core

        client = Path(core.__file__).parent / "libexec" / "cass-nvcc-client"
        has_server = (tree / "cass_build" / "nvcc" / "server.py").is_file()
        return cls(tree, work, client) if has_server and client.is_file() else None

    def _lines(self) -> list[dict[str, str]]:
        text = self.stats.read_text() if self.stats.exists() else ""
        return [dict(w.split("=", 1) for w in line.split()) for line in text.splitlines()]

    def call(self, src: Path, out: str) -> float:
        """The call's CPU outside the HIP compile: script + client, and the server child."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seen = len(self._lines())
        argv = [str(self.nvcc), "-c", str(src), "-o", out]
        proc = subprocess.run(argv, env=self.env, cwd=self.work, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        lines = self._lines()[seen:]
        if proc.returncode != 0 or len(lines) != 1 or lines[0]["rc"] != "0":
            sys.exit(f"the served call failed (or ran in-process):\n{proc.stderr}")
        self.server = int(lines[0]["server"])
        client = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return 1000 * client + float(lines[0]["cpu_ms"])

    def begin(self) -> None:
        """After round 0: the server's CPU so far is its start (and round 0's forks)."""
        self.start_cpu = _ticks(self.server)

    def parent_share(self, calls: int) -> float:
        self.parent_cpu = _ticks(self.server) - self.start_cpu
        return self.parent_cpu / calls

    def summary(self, calls: int) -> str:
        return (
            f"server: start {self.start_cpu:.0f} ms CPU once (imports, the core's table; "
            f"with round 0's two accepts), then {self.parent_cpu:.0f} ms over {calls} calls "
            f"in the parent (accept, code stamp, fork), included above per call"
        )

    def stop(self) -> None:
        if self.server:
            with contextlib.suppress(OSError):
                os.kill(self.server, signal.SIGTERM)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="990c1b9")
    parser.add_argument("--head", default="HEAD")
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--no-server", action="store_true", help="skip the server column")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cass-percall-"))
    served: _Served | None = None
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
        served = _Served.for_tree(trees["head"], work) if not args.no_server else None
        if served is not None:
            got["server"] = {"cold": [], "hit": []}
            for i in range(args.calls + 1):  # round 0 starts the server
                src = work / f"served_{i}.cu"
                src.write_text(f"__global__ void s{i}(float* o) {{ o[threadIdx.x] = {i}.25f; }}\n")
                cold = served.call(src, f"{src}.o")
                hit = served.call(src, f"{src}.2.o")
                if i == 0:
                    served.begin()
                else:
                    got["server"]["cold"].append(cold)
                    got["server"]["hit"].append(hit)
            share = served.parent_share(2 * args.calls)
            for kind in ("cold", "hit"):
                got["server"][kind] = [v + share for v in got["server"][kind]]
        load = os.getloadavg()
        heads = [args.base, args.head] + ([f"{args.head} via the server"] if served else [])
        print(f"| CPU per call, ms (median of {args.calls}) | {' | '.join(heads)} |")
        print("|---|---|---|" + ("---|" if served else ""))
        for kind in ("cold", "hit"):
            row = [f"{statistics.median(got[n][kind]):.1f}" for n in got]
            print(f"| {kind} | {' | '.join(row)} |")
        if served is not None:
            print(served.summary(2 * args.calls))
        print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if served is not None:
            served.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
