"""Directory throughput of ``cass translate DIR --out-dir OUT --verify none``.

A seeded tree of about 4,000 small sources (about 25 MB, ``corpus_gen`` with small
files) is translated by two copies of the package, in the same run and alternating:

- **baseline**: the Python sources of a git revision (default ``main``), from
  ``git archive``;
- **current**: the Python sources of this checkout.

Both use the C++ core this checkout built (``cass_build._core`` as installed, with the
tables its build parsed), so the comparison is the Python side only, unless
``--baseline-core`` gives the baseline its own; the report says whether ``cpp/`` and
``python/`` differ between the two revisions. Each copy runs as ``python -S -m cass_build`` with
``PYTHONPATH`` naming it, from a scratch working directory, so neither the editable
install nor the checkout shadows it.

Each repetition times, for each copy: a **cold** run (empty cache, no outputs) and a
**warm** run right after it (the cache and the outputs of the cold run in place, as a
rebuild finds them). The figure is the median over repetitions, in MB/s of source
read. The work directory defaults to ``/dev/shm`` (tmpfs), so that the disk of a
shared virtual machine does not decide the result; ``--work`` picks another.

    python bench/dir_throughput.py                  # about 1 minute on 2 cores
    python bench/dir_throughput.py --reps 5 --jobs 2
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from corpus_gen import generate_corpus  # noqa: E402


def _package_copy(dest: Path, revision: str | None, core: Path | None = None) -> Path:
    """The package's Python files (from ``revision``, or this checkout) plus the core
    (``core``, a built ``_core`` module, or this checkout's)."""
    dest.mkdir(parents=True)
    if revision is None:
        shutil.copytree(
            ROOT / "cass_build", dest / "cass_build", ignore=shutil.ignore_patterns("models")
        )
    else:
        archive = subprocess.run(
            ["git", "archive", revision, "cass_build", ":!cass_build/models"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    import importlib.util

    spec = importlib.util.find_spec("cass_build._core")
    if spec is None or spec.origin is None:
        sys.exit("dir_throughput: cass_build._core is not built (pip install -e .)")
    origin = core if core is not None else Path(spec.origin)
    shutil.copy2(origin, dest / "cass_build" / origin.name)
    # The tables as that build parsed and packed them (rules/ship_tables.py: tables.marshal
    # and, since perf21, the core's packed tables beside it), where the build has them.
    built = origin.parent / "data"
    for shipped in [*built.glob("tables.marshal"), *built.glob("core-table-*.bin")]:
        shutil.copy2(shipped, dest / "cass_build" / "data" / shipped.name)
    # Byte-compiled, as pip installs a package: otherwise, with PYTHONDONTWRITEBYTECODE
    # set (as on the shared machine), every run compiles every module it imports again.
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(dest / "cass_build")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return dest


def _run(
    package: Path, tree: Path, out: Path, cache: Path, jobs: int, work: Path
) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the CLI and its workers)."""
    env = dict(os.environ)
    env.update(PYTHONPATH=str(package), CASS_CACHE_DIR=str(cache))
    for name in ("CASS_VERIFY", "CASS_STRATEGY", "CASS_HIP_VERSION"):
        env.pop(name, None)
    argv = [sys.executable, "-S", "-m", "cass_build", "translate", str(tree)]
    argv += ["--out-dir", str(out), "--verify", "none", "-q", "-j", str(jobs)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):  # 1: the outputs hold unsupported-API errors
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        sys.exit(f"dir_throughput: {shlex.join(argv)} exited {done.returncode}: {tail}")
    return seconds, cpu


def _core_alone(files: list[Path]) -> float:
    """The C++ core on the same bytes in this process, one thread: the bound on one core."""
    from cass_build.rules import translate_bytes
    from cass_build.settings import Settings

    settings = Settings(rename_cu_includes=True)
    data = [(f.read_bytes(), str(f)) for f in files]
    translate_bytes(*data[0], settings)  # the table is built outside the timing
    start = time.perf_counter()
    for source, name in data:
        translate_bytes(source, name, settings)
    return time.perf_counter() - start


def _core_batch(tree: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Wall and CPU seconds of the core's one call alone (``_core.translate_tree``: read,
    translate, write and render every file of the tree on ``jobs`` threads, as the command
    does, its outputs already in place): the bound on the whole command."""
    import argparse

    from cass_build.cli.translate import _tree_files
    from cass_build.cli.tree_batch import Batch
    from cass_build.settings import Settings, options_from_env

    args = argparse.Namespace(out_dir=out, inputs=[tree])
    sources, targets, plain = _tree_files(args, tree)
    settings = Settings(rename_cu_includes=True)
    mirror = ((tree.resolve(), out.resolve()),)
    options = options_from_env(settings=settings, verify="none", mirror=mirror)
    Batch(sources, targets, options, jobs, out_dir=out, plain=plain)  # the outputs, once
    runs = []
    for _ in range(3):
        start, cpu = time.perf_counter(), time.process_time()
        Batch(sources, targets, options, jobs, out_dir=out, plain=plain)
        runs.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(w for w, _ in runs), min(c for _, c in runs)


def _startup(package: Path, work: Path, reps: int) -> dict[str, float]:
    """Median wall seconds of the interpreter alone and of ``cass --version``: the floor
    under any run of the command, whatever the tree."""
    env = {**os.environ, "PYTHONPATH": str(package)}
    argvs = {
        "python": [sys.executable, "-S", "-c", "pass"],
        "cass_version": [sys.executable, "-S", "-m", "cass_build", "--version"],
    }
    out = {}
    for name, argv in argvs.items():
        runs = []
        for _ in range(reps):
            start = time.perf_counter()
            subprocess.run(argv, env=env, cwd=work, stdout=subprocess.DEVNULL, check=True)
            runs.append(time.perf_counter() - start)
        out[name] = statistics.median(runs)
    return out


def _same_tree(a: Path, b: Path) -> bool:
    names = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    if names != sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file()):
        return False
    return all(filecmp.cmp(a / n, b / n, shallow=False) for n in names)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=25.6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cass -j")
    parser.add_argument("--baseline", default="main", help="git revision of the baseline")
    parser.add_argument(
        "--baseline-core",
        type=Path,
        default=None,
        help="the baseline's own built _core module (e.g. from a wheel of --baseline); "
        "default: this checkout's, so that only the Python side is compared",
    )
    parser.add_argument("--work", type=Path, default=None, help="scratch (default /dev/shm)")
    parser.add_argument("--out", type=Path, default=HERE / "reports")
    args = parser.parse_args(argv)
    load_at_start = os.getloadavg()

    base = args.work or (Path("/dev/shm") if Path("/dev/shm").is_dir() else None)
    with tempfile.TemporaryDirectory(prefix="cass-dirbench-", dir=base) as name:
        work = Path(name)
        info = generate_corpus(
            work / "tree", int(args.size_mb * 1e6), args.seed, min_kb=2, max_kb=9
        )
        tree = work / "tree" / "src"
        packages = {
            "baseline": _package_copy(work / "baseline", args.baseline, args.baseline_core),
            "current": _package_copy(work / "current", None),
        }
        times: dict[str, dict[str, list[float]]] = {k: {} for k in packages}
        for _ in range(args.reps):
            for label, package in packages.items():
                out, cache = work / f"out-{label}", work / f"cache-{label}"
                shutil.rmtree(out, ignore_errors=True)
                shutil.rmtree(cache, ignore_errors=True)
                for kind in ("cold", "warm"):  # warm: the cold run's cache and outputs
                    wall, cpu = _run(package, tree, out, cache, args.jobs, work)
                    times[label].setdefault(kind, []).append(wall)
                    times[label].setdefault(kind + "_cpu", []).append(cpu)
        same = _same_tree(work / "out-baseline", work / "out-current")
        startup = _startup(packages["current"], work, max(5, args.reps))
        core_seconds = _core_alone(info.files)
        batch_wall, batch_cpu = _core_batch(tree, work / "out-core", args.jobs)

    own_core = args.baseline_core is not None
    core_changed = bool(
        subprocess.run(
            ["git", "diff", "--quiet", args.baseline, "--", "cpp", "python"], cwd=ROOT
        ).returncode
    )
    mb = info.bytes / 1e6
    rows = {}
    for label, runs in times.items():
        rows[label] = {k: {"seconds": statistics.median(v), "mb_s": mb / statistics.median(v)}
                       for k, v in runs.items()}  # fmt: skip
    ratio = {k: rows["current"][k]["mb_s"] / rows["baseline"][k]["mb_s"] for k in rows["current"]}
    command = "python bench/dir_throughput.py " + shlex.join(argv or sys.argv[1:])
    doc = {
        "command": command.strip(),
        "files": len(info.files),
        "bytes": info.bytes,
        "seed": args.seed,
        "reps": args.reps,
        "jobs": args.jobs,
        "cpus": os.cpu_count(),
        "load_average_at_start": load_at_start,
        "load_average": os.getloadavg(),
        "work": str(base or tempfile.gettempdir()),
        "baseline": args.baseline,
        "core_differs_from_baseline": core_changed,
        "baseline_core": str(args.baseline_core) if own_core else None,
        "outputs_identical": same,
        "results": rows,
        "raw_seconds": times,
        "ratio": ratio,
        "core_alone": {"seconds": core_seconds, "mb_s": info.bytes / 1e6 / core_seconds},
        "core_batch": {"seconds": batch_wall, "cpu_seconds": batch_cpu, "jobs": args.jobs},
        "startup_seconds": startup,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "dir_throughput.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [
        "# Directory throughput: `cass translate DIR --out-dir OUT --verify none`",
        "",
        f"Command: `{doc['command']}` (from the repository root).",
        "",
        f"Tree: {len(info.files)} files, {info.bytes / 1e6:.1f} MB (corpus_gen, seed "
        f"{args.seed}, 2-9 KiB files), in {doc['work']}. `-j {args.jobs}` on "
        f"{os.cpu_count()} CPUs; load average (1 min) {load_at_start[0]:.2f} at the start, "
        f"{doc['load_average'][0]:.2f} at the end "
        "(the machine is shared). Median of "
        f"{args.reps} alternating repetitions. "
        + (
            f"Baseline: `{args.baseline}`'s Python sources with its own C++ core "
            f"(`{args.baseline_core}`, built from it), so the ratio is the whole change. "
            if own_core
            else f"Baseline: `{args.baseline}`'s Python sources; both use this checkout's C++ "
            f"core ({'which differs from' if core_changed else 'the same as'} the baseline's). "
        )
        + f"Outputs of the two byte-identical: {'yes' if same else 'NO'}.",
        "",
        "MB/s of CPU is the bytes over the CPU seconds the run used, summed over its processes:",
        "less sensitive than the wall clock to the other jobs on the machine.",
        "",
        "| run | baseline s | baseline MB/s | current s | current MB/s | ratio |",
        "|---|---|---|---|---|---|",
    ]
    kinds = (
        ("cold", "cold (empty cache, no outputs): wall"),
        ("warm", "warm (again): wall"),
        ("cold_cpu", "cold: CPU (user + system)"),
        ("warm_cpu", "warm: CPU (user + system)"),
    )
    for kind, what in kinds:
        b, c = rows["baseline"][kind], rows["current"][kind]
        lines.append(
            f"| {what} | {b['seconds']:.2f} | {b['mb_s']:.1f} | {c['seconds']:.2f} | "
            f"{c['mb_s']:.1f} | {ratio[kind]:.2f}x |"
        )
    per_file = rows["current"]["cold_cpu"]["seconds"] / len(info.files) * 1e6
    warm_file = rows["current"]["warm_cpu"]["seconds"] / len(info.files) * 1e6
    core_file = core_seconds / len(info.files) * 1e6
    batch_file = batch_cpu / len(info.files) * 1e6
    lines += [
        "",
        f"The C++ core alone on the same files, in one process on one thread: "
        f"{core_seconds:.2f} s, {info.bytes / 1e6 / core_seconds:.0f} MB/s. Its one call "
        f"(`_core.translate_tree`: read, translate, write and render every file on "
        f"{args.jobs} threads, as the command does, the outputs already there; best of 3): "
        f"{batch_wall:.2f} s wall, {mb / batch_wall:.0f} MB/s, and {batch_cpu:.2f} s of CPU, "
        f"{mb / batch_cpu:.0f} MB/s: the bound on the command.",
        "",
        "What bounds it: the target is 100 MB/s. The current code spends "
        f"{per_file:.0f} us of CPU per file cold and {warm_file:.0f} us warm, of which the "
        f"core's translation is {core_file:.0f} us and the core's whole call {batch_file:.0f} "
        "us (reading, the include scans, writing, rendering the messages and report "
        "entries); the rest is the interpreter's start, the imports, listing the tree, "
        "the JSON report and, cold, building the core table from the shipped tables. "
        "At that cost per file, 100 MB/s on this tree needs "
        f"{per_file * len(info.files) / 1e6 / (info.bytes / 1e6 / 100):.1f} idle cores cold; "
        f"this machine has {os.cpu_count()}, shared with other jobs.",
        "",
        f"The floor: the interpreter alone starts in {startup['python']:.2f} s here and "
        f"`cass --version` takes {startup['cass_version']:.2f} s (medians, same run), while "
        f"100 MB/s on this tree means {mb / 100:.2f} s for the whole command. The current "
        f"cold run spends {rows['current']['cold']['seconds'] - startup['cass_version']:.2f} s "
        "beyond `cass --version`.",
    ]
    (args.out / "dir_throughput.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
