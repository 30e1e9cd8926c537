#!/usr/bin/env python3
"""Translation speed of CASS on a large synthetic CUDA corpus (a benchmark, not a test).

Generates (or reuses) a deterministic corpus of CUDA sources, then measures on one thread,
pinned to one CPU:

1. end to end: read, translate and atomically write every file through the public
   API the CLI uses (``cass_build.api.translate_file`` + ``cass_build._files.write_atomic``);
2. the C++ core alone: ``cass_build._core.translate`` on in-memory bytes;
3. the ``cass translate CORPUS --out-dir OUT -j 1`` command, wall time;
4. a naive regex baseline (one ``re.sub(r"\\bcudaX\\b", "hipX")`` per mapped table name, the
   hipify-perl approach) on a small sample, for ratios;

plus a per-stage breakdown of the end-to-end path and, where valgrind is installed, the core's
instructions per byte (callgrind), which do not depend on the machine's load. Results go to
``bench/reports/translate_speed.{md,json}``. Run ``python bench/translate_speed.py --help``.

Throughput is in MB/s with MB = 10^6 bytes of *input*. Wall-clock and CPU-time
(``time.process_time``) rates are both reported: CPU time leaves out waiting for a CPU on a
shared machine, though not the slowdown of sharing its caches and cores.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from corpus_gen import GENERATOR_VERSION, generate_corpus

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000
NOTES_BEGIN = "<!-- notes: kept when the report is regenerated -->"
NOTES_END = "<!-- /notes -->"
TARGET_MB_S = 100.0


# --------------------------------------------------------------------------- results


@dataclass
class Rate:
    """Repeated timings of one measurement over ``bytes`` of input."""

    bytes: int
    wall_s: list[float]
    cpu_s: list[float]
    diagnostics: int = 0
    loadavg: list[float] = field(default_factory=list)

    @property
    def best_wall(self) -> float:
        return min(self.wall_s)

    @property
    def median_wall(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def best_cpu(self) -> float:
        return min(self.cpu_s)

    def mb_s(self, seconds: float) -> float:
        return self.bytes / MB / seconds if seconds > 0 else float("inf")

    def summary(self) -> dict[str, Any]:
        return {
            "bytes": self.bytes,
            "wall_s": [round(s, 4) for s in self.wall_s],
            "cpu_s": [round(s, 4) for s in self.cpu_s],
            "mb_s_best_wall": round(self.mb_s(self.best_wall), 3),
            "mb_s_median_wall": round(self.mb_s(self.median_wall), 3),
            "mb_s_best_cpu": round(self.mb_s(self.best_cpu), 3),
            "diagnostics": self.diagnostics,
            "loadavg_1min_before_after": self.loadavg,
        }


def _load1() -> float:
    return round(os.getloadavg()[0], 2)


def _cpu_pressure() -> str:
    """The kernel's CPU pressure line (PSI): share of time tasks waited for a CPU."""
    try:
        return Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return "n/a"


def _repeat(
    reps: int, nbytes: int, body: Callable[[], int], before: Callable[[], None] | None = None
) -> Rate:
    """Run ``body`` ``reps`` times (``before`` untimed before each); body returns diagnostics."""
    rate = Rate(nbytes, [], [], loadavg=[_load1()])
    for _ in range(reps):
        if before is not None:
            before()
        c0, t0 = time.process_time(), time.perf_counter()
        rate.diagnostics = body()
        t1, c1 = time.perf_counter(), time.process_time()
        rate.wall_s.append(t1 - t0)
        rate.cpu_s.append(c1 - c0)
    rate.loadavg.append(_load1())
    return rate


# --------------------------------------------------------------------------- environment


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def _environment() -> dict[str, Any]:
    import cass_build
    from cass_build import _core
    from cass_build.rules.tables import load_tables

    families = load_tables()
    dirty = _git("status", "--porcelain", "--", "cass_build", "cpp", "python", "CMakeLists.txt")
    return {
        "cpu_model": _cpu_model(),
        "nproc": os.cpu_count(),
        "affinity_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "cpu_pressure_at_start": _cpu_pressure(),
        "python": sys.version.split()[0],
        "python_impl": platform.python_implementation(),
        "platform": platform.platform(),
        "cass_version": cass_build.__version__,
        "cass_build_path": str(Path(cass_build.__file__).parent),
        "core_path": str(_core.__file__),
        "core_mtime_utc": time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(Path(str(_core.__file__)).stat().st_mtime)
        ),
        "git_head": _git("rev-parse", "--short=12", "HEAD"),
        "git_dirty_core_or_package": [ln for ln in dirty.splitlines() if ln],
        "table_rows": sum(len(f.rows) for f in families),
        "table_families": [f.name for f in families],
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


# --------------------------------------------------------------------------- measurements


def _pairs(root: Path, files: Sequence[Path], out_dir: Path) -> list[tuple[Path, Path]]:
    """(input, output) pairs named the way ``cass translate SRC --out-dir OUT`` names them."""
    pairs = []
    for path in files:
        rel = path.relative_to(root)
        if rel.suffix == ".cu":
            rel = rel.with_suffix(".hip")
        pairs.append((path, out_dir / rel))
    return pairs


def _settings() -> Any:
    from cass_build.settings import Settings

    # What `cass translate SRC_DIR --out-dir OUT` uses: environment, tree mode.
    return Settings.from_env().replace(rename_cu_includes=True)


class FreshOutputs:
    """A new output tree for every run, all of them deleted only at the end (with the scratch
    directory).

    Deleting a run's tree right before the next run would time the filesystem instead: ext4
    without a journal (the development VMs' disk) skips recently deleted inodes one by one
    when it allocates new ones, so creating thousands of files right after deleting thousands
    costs several times as much (about 2 ms instead of 0.3 ms a file there). A real
    ``cass translate`` writes one tree.
    """

    def __init__(self, root: Path, files: Sequence[Path], base: Path) -> None:
        self.root, self.files, self.base = root, files, base
        self.runs = 0
        self.dir = base
        self.pairs: list[tuple[Path, Path]] = []
        self.inputs = frozenset(p.resolve() for p in files)

    def next(self) -> None:
        self.runs += 1
        self.dir = self.base / f"run{self.runs}"
        self.pairs = _pairs(self.root, self.files, self.dir)


def measure_end_to_end(
    root: Path, files: Sequence[Path], out_dir: Path, nbytes: int, reps: int
) -> Rate:
    from cass_build._files import write_atomic
    from cass_build.api import translate_file

    settings = _settings()
    out = FreshOutputs(root, files, out_dir)

    def body() -> int:
        diags = 0
        for src, dst in out.pairs:
            result = translate_file(src, options=settings)
            diags += len(result.diagnostics)
            write_atomic(dst, result.data, inputs=out.inputs)  # the bytes `cass translate` writes
        return diags

    return _repeat(reps, nbytes, body, before=out.next)


def measure_pipeline(
    root: Path, files: Sequence[Path], out_dir: Path, nbytes: int, reps: int
) -> Rate | str:
    """What ``cass translate SRC --out-dir OUT`` does per file with the flags of ``CLI_FLAGS``:
    ``pipeline.translate_file`` (local includes, strategy chain, report) and
    ``pipeline.write_if_changed``. Returns why not when the pipeline is missing or changed."""
    try:
        from cass_build.pipeline import options_from_env, translate_file, write_if_changed

        options = options_from_env(
            settings=_settings(), strategy="rules", verify="none", use_cache=False
        )
    except (ImportError, TypeError) as exc:
        return f"pipeline not measured: {exc}"
    out = FreshOutputs(root, files, out_dir)

    def body() -> int:
        diags = 0
        run = options.replace(mirror=((root.resolve(), out.dir.resolve()),))
        for src, dst in out.pairs:
            result = translate_file(src, run)
            diags += len(result.diagnostics)
            write_if_changed(dst, result.data, out.inputs)
        return diags

    return _repeat(reps, nbytes, body, before=out.next)


def measure_core(blobs: Sequence[bytes], reps: int) -> Rate:
    """``_core.translate_result`` as ``rules.translate_bytes`` calls it: the C++ core and the
    binding that hands back the output bytes and the ``Diagnostic`` tuples."""
    from cass_build import _core
    from cass_build.rules import _workspace, core_options, core_table
    from cass_build.rules.diagnostics import SEVERITIES, Diagnostic

    settings = _settings()
    table = core_table()
    options = core_options(settings)
    workspace = _workspace()

    def body() -> int:
        diags = 0
        for data in blobs:
            _data, found, _counts, _lines = _core.translate_result(
                data, table, options, "<bench>", Diagnostic, SEVERITIES, workspace
            )
            diags += len(found)
        return diags

    return _repeat(reps, sum(map(len, blobs)), body)


_INSTRUCTIONS_SCRIPT = """
import sys
from pathlib import Path
from cass_build.rules import translate_bytes
from cass_build.settings import Settings
settings = Settings.from_env().replace(rename_cu_includes=True)
for name in sys.argv[1:]:
    translate_bytes(Path(name).read_bytes(), name, settings)
"""


def measure_instructions(files: Sequence[Path], sample_bytes: int) -> dict[str, Any]:
    """Instructions the C++ core executes per byte of input (callgrind, ``cass::translate``
    only), on the first files of the corpus. Unlike times, they do not depend on the load."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return {"available": False, "reason": "valgrind is not installed"}
    sample: list[Path] = []
    nbytes = 0
    for path in files:
        if nbytes >= sample_bytes:
            break
        sample.append(path)
        nbytes += path.stat().st_size
    # The interpreter itself, not a launcher script (pyenv shims are shell scripts).
    python = os.path.realpath(sys.executable)
    cmd = [
        valgrind,
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        "--toggle-collect=cass::translate*",
        python,
        "-c",
        _INSTRUCTIONS_SCRIPT,
        *map(str, sample),
    ]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=REPO)
    found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        return {"available": False, "reason": f"callgrind failed: {proc.stderr[-300:]}"}
    instructions = int(found.group(1))
    return {
        "available": True,
        "files": len(sample),
        "bytes": nbytes,
        "instructions": instructions,
        "per_byte": round(instructions / nbytes, 2),
        "seconds": round(time.perf_counter() - t0, 1),
        "command": "valgrind --tool=callgrind --toggle-collect='cass::translate*' python -c "
        "'<translate_bytes on each file>' FILE...",
    }


def _cass_command() -> list[str]:
    exe = Path(sys.executable).with_name("cass")
    if exe.is_file():
        return [str(exe)]
    found = shutil.which("cass")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from cass_build.cli import main; sys.exit(main())"]


@dataclass
class CliRun:
    command: list[str]
    returncode: int
    wall_s: float
    cpu_s: float
    stderr_lines: int
    stderr_tail: str
    startup_wall_s: float


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


# The rule translator alone: `cass translate` by default also compiles every output with
# hipcc (--verify auto), may try other strategies first (--strategy auto) and caches results
# (a second run would not translate at all). Those are other jobs, timed elsewhere.
CLI_FLAGS = ("-j", "1", "--strategy", "rules", "--verify", "none", "--no-cache")


def measure_cli(root: Path, out_dir: Path, tiny: Path, scratch: Path) -> CliRun:
    base = _cass_command()
    cmd = [*base, "translate", str(root), "--out-dir", str(out_dir), *CLI_FLAGS]
    log = scratch / "cli-stderr.txt"
    with log.open("wb") as err:
        c0, t0 = _child_cpu(), time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=err, check=False, cwd=REPO)
        t1, c1 = time.perf_counter(), _child_cpu()
    text = log.read_text(errors="replace")
    # Fixed cost of one invocation: interpreter start, imports, table load, one small file.
    tiny_out = scratch / "cli-startup-out"
    s0 = time.perf_counter()
    subprocess.run(
        [*base, "translate", str(tiny), "--out-dir", str(tiny_out), *CLI_FLAGS, "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        cwd=REPO,
    )
    startup = time.perf_counter() - s0
    lines = text.splitlines()
    return CliRun(
        cmd, proc.returncode, t1 - t0, c1 - c0, len(lines), "\n".join(lines[-3:]), startup
    )


class RegexHipify:
    """The naive baseline: one precompiled ``\\bNAME\\b`` substitution per mapped name."""

    def __init__(self) -> None:
        from cass_build.rules.tables import load_tables

        pairs = {
            (r.cuda, r.hip)
            for f in load_tables()
            for r in f.rows
            if r.status != "unsupported" and r.hip and r.hip != r.cuda
        }
        ordered = sorted(pairs, key=lambda p: (-len(p[0]), p[0]))
        t0 = time.perf_counter()
        self.patterns = [
            (re.compile(rf"\b{re.escape(cuda)}\b"), hip.replace("\\", "\\\\"))
            for cuda, hip in ordered
        ]
        self.compile_s = time.perf_counter() - t0

    def translate(self, text: str) -> str:
        for pattern, replacement in self.patterns:
            text = pattern.sub(replacement, text)
        return text


def measure_baseline(texts: Sequence[str], nbytes: int) -> tuple[Rate, int, float]:
    hipify = RegexHipify()

    def body() -> int:
        for text in texts:
            hipify.translate(text)
        return 0

    return _repeat(1, nbytes, body), len(hipify.patterns), hipify.compile_s


def measure_stages(
    root: Path, files: Sequence[Path], out_dir: Path
) -> tuple[dict[str, float], Counter[str]]:
    """One pass of the end-to-end path split into stages (seconds per stage).

    Mirrors ``api.translate_file`` -> ``sources.read_source`` -> ``rules.translate_bytes`` ->
    ``sources.write_atomic`` step by step; the sum is compared with the end-to-end time in the
    report. Also counts the diagnostics by rule.
    """
    from cass_build import _core
    from cass_build._files import _read_all, check_source, write_atomic
    from cass_build.api import Translation
    from cass_build.rules import (
        RuleResult,
        _family_count,
        _family_names,
        _workspace,
        core_options,
        core_table,
    )
    from cass_build.rules.diagnostics import SEVERITIES, Diagnostic
    from cass_build.rules.stats import Stats

    settings = _settings()
    pairs = _pairs(root, files, out_dir)
    inputs = frozenset(p.resolve() for p, _ in pairs)
    names = (
        "read",
        "utf8_check",
        "empty_check",
        "hip_version",
        "core",
        "to_python",
        "decode_output",
        "encode_output",
        "write_atomic",
    )
    t = dict.fromkeys(names, 0.0)
    rules: Counter[str] = Counter()
    table = core_table()
    clock = time.perf_counter
    for src, dst in pairs:
        c0 = clock()
        fd = os.open(src, os.O_RDONLY | os.O_CLOEXEC)
        try:
            data = _read_all(fd, os.fstat(fd))
        finally:
            os.close(fd)
        c1 = clock()
        check_source(data, str(src), settings.max_bytes)
        c2 = clock()
        _ = not data or data.isspace()
        c3 = clock()
        options = core_options(settings)
        c4 = clock()
        path = str(src)
        out, diagnostics, counts, lines = _core.translate_result(
            data, table, options, path, Diagnostic, SEVERITIES, _workspace()
        )
        c5 = clock()
        family = _family_names()
        stats = Stats({family[i]: _family_count(c, u) for i, c, u in counts}, lines, len(data))
        rule_result = RuleResult(out, diagnostics, stats)
        c6 = clock()
        result = Translation(
            data=rule_result.data,
            diagnostics=tuple(rule_result.diagnostics),
            stats=rule_result.stats,
            path=path,
        )
        c7 = clock()
        out = result.data
        c8 = clock()
        write_atomic(dst, out, inputs=inputs)
        c9 = clock()
        rules.update(d.rule for d in diagnostics)
        marks = (c0, c1, c2, c3, c4, c5, c6, c7, c8, c9)
        for k, name in enumerate(names):
            t[name] += marks[k + 1] - marks[k]
    return t, rules


# --------------------------------------------------------------------------- report


def _fmt(x: float, digits: int = 1) -> str:
    return f"{x:,.{digits}f}"


def _existing_notes(path: Path) -> str:
    if not path.is_file():
        return ""
    text = path.read_text()
    if NOTES_BEGIN in text and NOTES_END in text:
        return text[text.index(NOTES_BEGIN) : text.index(NOTES_END) + len(NOTES_END)]
    return ""


def _pinning(config: dict[str, Any]) -> str:
    cpu = config.get("cpu")
    return f"pinned to CPU {cpu}" if cpu is not None else "not pinned to a CPU"


def _pipeline_row(pipe: dict[str, Any]) -> list[str]:
    if "mb_s_best_wall" not in pipe:
        return []
    return [
        "| End to end as `cass translate` does it: `pipeline.translate_file` + "
        f"`write_if_changed` | {_fmt(pipe['mb_s_best_wall'])} | "
        f"{_fmt(pipe['mb_s_median_wall'])} | {_fmt(pipe['mb_s_best_cpu'])} | whole corpus |"
    ]


def _instruction_lines(ins: dict[str, Any]) -> list[str]:
    if not ins:
        return []
    if not ins.get("available"):
        return [f"- Instructions per byte: not measured ({ins.get('reason', 'skipped')})."]
    return [
        f"- Instructions per byte of input in the C++ core (callgrind, `cass::translate` only, "
        f"{ins['files']} files, {ins['bytes']:,} bytes): **{ins['per_byte']:.1f}** "
        f"({ins['instructions']:,} instructions). Unlike the times, this does not depend on "
        "the machine's load."
    ]


def render_markdown(res: dict[str, Any], notes: str) -> str:
    env, corpus, r = res["environment"], res["corpus"], res["results"]
    e2e, core, cli, base = r["end_to_end"], r["core"], r["cli"], r["baseline"]
    busy = max(
        [*env["loadavg_at_start"][:1], *env["loadavg_at_end"][:1]]
        + e2e["loadavg_1min_before_after"]
        + core["loadavg_1min_before_after"]
    )
    lines = [
        "# CASS translation speed",
        "",
        f"Generated by `bench/translate_speed.py` on {env['date_utc']}. "
        "MB = 10^6 bytes of CUDA input; one thread throughout, "
        f"{_pinning(res['config'])}. "
        f"Best and median of {res['config']['reps']} repetitions for the API and core rows.",
        "",
        "## Results",
        "",
        "| Measurement | MB/s (wall, best) | MB/s (wall, median) | MB/s (CPU time) | Input |",
        "|---|---:|---:|---:|---|",
        f"| End to end: `translate_file` + `write_atomic` | {_fmt(e2e['mb_s_best_wall'])} | "
        f"{_fmt(e2e['mb_s_median_wall'])} | {_fmt(e2e['mb_s_best_cpu'])} | whole corpus |",
        *_pipeline_row(r.get("pipeline", {})),
        f"| Core alone: `_core.translate_result` on bytes | {_fmt(core['mb_s_best_wall'])} | "
        f"{_fmt(core['mb_s_median_wall'])} | {_fmt(core['mb_s_best_cpu'])} | whole corpus |",
        f"| CLI: `cass translate CORPUS --out-dir OUT {' '.join(CLI_FLAGS)}` | "
        f"{_fmt(cli['mb_s_wall'])} | - | "
        f"{_fmt(cli['mb_s_cpu'])} | whole corpus, one run |",
        f"| Baseline: regex hipify, {base['patterns']} patterns | "
        f"{_fmt(base['kb_s_wall'] / 1000, 3)} | - | {_fmt(base['kb_s_cpu'] / 1000, 3)} | "
        f"{_fmt(base['bytes'] / MB, 2)} MB sample |",
        f"| Core on the same sample | {_fmt(base['core_same_sample_mb_s_wall'])} | - | "
        f"{_fmt(base['core_same_sample_mb_s_cpu'])} | same sample |",
        "",
        f"- Baseline: **{_fmt(base['kb_s_wall'])} kB/s** (wall). "
        f"CASS end to end is **{_fmt(base['ratio_end_to_end'], 0)}x** the baseline, "
        f"the core alone **{_fmt(base['ratio_core'], 0)}x** "
        f"(on the same sample: {_fmt(base['ratio_core_same_sample'], 0)}x; "
        f"end to end in CPU time: {_fmt(base['ratio_end_to_end_cpu'], 0)}x).",
        f"- Target {TARGET_MB_S:.0f} MB/s end to end on one core: "
        f"**{'met' if e2e['mb_s_best_wall'] >= TARGET_MB_S else 'NOT met'}** "
        f"({_fmt(e2e['mb_s_best_wall'])} MB/s wall, {_fmt(e2e['mb_s_best_cpu'])} MB/s CPU time).",
        f"- Diagnostics on the corpus: {e2e['diagnostics']:,} "
        f"({_fmt(e2e['diagnostics'] / (corpus['bytes'] / MB), 0)} per MB). "
        f"CLI exit status {cli['returncode']}, {cli['stderr_lines']:,} stderr lines; "
        f"fixed cost of one CLI start on a tiny file: {cli['startup_wall_s'] * 1000:.0f} ms. "
        "By rule: "
        + ", ".join(f"`{k}` {v:,}" for k, v in list(r["diagnostics_by_rule"].items())[:8])
        + ".",
        *_instruction_lines(r.get("instructions", {})),
        f"- Load average (1 min) before/after: end to end {e2e['loadavg_1min_before_after']}, "
        f"core {core['loadavg_1min_before_after']}. CPU time leaves out waiting for a CPU, "
        "but not the slowdown of sharing caches and cores with other work.",
        *(
            [
                f"- **Warning: the machine was busy** (1-min load average up to {busy:.1f} on "
                f"{env['nproc']} CPUs): other processes competed for the cores, so these "
                "numbers understate a quiet machine. Rerun when it is idle for clean numbers.",
                "",
            ]
            if busy > (env["nproc"] or 1)
            else []
        ),
        "## Where the end-to-end time goes",
        "",
        "One instrumented pass over the corpus, stage by stage "
        "(`api.translate_file` -> `rules.translate_bytes` -> `sources.write_atomic`).",
        "",
        "| Stage | Seconds | Share | MB/s if only this stage |",
        "|---|---:|---:|---:|",
    ]
    stages: dict[str, float] = r["stages_s"]
    total = sum(stages.values())
    labels = {
        "read": "read (`open`, `fstat`, `read`)",
        "utf8_check": "input check (`check_source`: NUL scan + UTF-8 decode)",
        "empty_check": "empty-input check (`data.isspace()`)",
        "hip_version": "`settings.resolved_hip_version()` per file",
        "core": "C++ core + `Diagnostic` tuples (`_core.translate_result`)",
        "to_python": "stats and `RuleResult` objects",
        "decode_output": "`Translation` object (keeps the output bytes)",
        "encode_output": "output bytes for writing (`Translation.data`)",
        "write_atomic": "`write_atomic` (open dir, create temp, write, rename)",
    }
    for name, secs in stages.items():
        share = secs / total * 100 if total else 0.0
        speed = corpus["bytes"] / MB / secs if secs else float("inf")
        lines.append(f"| {labels.get(name, name)} | {secs:.3f} | {share:.1f}% | {_fmt(speed)} |")
    lines += [
        f"| **sum** | {total:.3f} | 100% | {_fmt(corpus['bytes'] / MB / total)} |",
        "",
        "## Corpus",
        "",
        f"- {corpus['files']} files, {corpus['bytes']:,} bytes "
        f"({_fmt(corpus['bytes'] / MB, 1)} MB), "
        f"{corpus['min_file_bytes']:,} to {corpus['max_file_bytes']:,} bytes per file; "
        f"seed {corpus['seed']}, generator version {corpus['generator_version']} "
        f"(`bench/corpus_gen.py`); generated in {corpus['generate_s']:.1f} s"
        f"{' (reused)' if corpus['reused'] else ''}.",
        "- Files are read from the page cache (they were just written or read); outputs are "
        f"written under `{res['config']['scratch']}`, a new tree for every run, all deleted "
        "at the end (see `FreshOutputs` in the script for why not in between).",
        "",
        "## Command",
        "",
        "```sh",
        res["command"],
        "```",
        "",
        "CLI command as run:",
        "",
        "```sh",
        " ".join(cli["command"]),
        "```",
        "",
        "## Environment",
        "",
        f"- CPU: {env['cpu_model']}; nproc {env['nproc']}; "
        f"load average at start {env['loadavg_at_start']}, at end {env['loadavg_at_end']}",
        f"- CPU pressure (`/proc/pressure/cpu`) at start `{env['cpu_pressure_at_start']}`, "
        f"at end `{env['cpu_pressure_at_end']}`",
        f"- Python {env['python']} ({env['python_impl']}), {env['platform']}",
        f"- cass {env['cass_version']}, git {env['git_head']}"
        + (
            f" with uncommitted changes in {len(env['git_dirty_core_or_package'])} package/core "
            "path(s)"
            if env["git_dirty_core_or_package"]
            else ""
        ),
        f"- package: `{env['cass_build_path']}`; core: `{env['core_path']}` "
        f"(built {env['core_mtime_utc']})",
        f"- tables: {env['table_rows']} rows in {len(env['table_families'])} families "
        f"({', '.join(env['table_families'])})",
        "",
    ]
    if notes:
        lines += [notes, ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument(
        "--size-mb", type=float, default=50.0, help="corpus size in MiB (2^20 bytes); default 50"
    )
    p.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    p.add_argument(
        "--out",
        type=Path,
        default=REPO / "bench" / "reports",
        help="report directory (default bench/reports)",
    )
    p.add_argument(
        "--corpus-dir",
        type=Path,
        default=None,
        help="where the corpus goes (default bench/corpus/seed<S>-<N>mib)",
    )
    p.add_argument(
        "--keep-corpus",
        action="store_true",
        help="keep the generated corpus (it is reused by the next run)",
    )
    p.add_argument("--reps", type=int, default=5, help="repetitions of 1 and 2 (default 5)")
    p.add_argument(
        "--cpu",
        type=int,
        default=None,
        help="CPU to pin the benchmark (and the CLI it starts) to; default: the first one this "
        "process may use. The target is for one core",
    )
    p.add_argument(
        "--no-pin", action="store_true", help="do not pin to a CPU (the OS may move the process)"
    )
    p.add_argument(
        "--instructions-kb",
        type=int,
        default=2048,
        help="sample for the callgrind instruction count in KiB, whole files (default 2048; "
        "0 skips it; about 20 s)",
    )
    p.add_argument(
        "--baseline-kb",
        type=int,
        default=256,
        help="sample for the regex baseline in KiB, whole files (default 256; it is slow: "
        "thousands of patterns, each a pass over the text)",
    )
    p.add_argument("--no-cli", action="store_true", help="skip the CLI measurement")
    p.add_argument(
        "--scratch",
        type=Path,
        default=None,
        help="directory for the translated outputs (default: beside the corpus); e.g. "
        "/dev/shm to take the disk's file-creation cost out of the end-to-end numbers",
    )
    return p.parse_args(argv)


def log(msg: str) -> None:
    print(f"[translate_speed] {msg}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    try:
        from cass_build import _core  # noqa: F401
    except ImportError as exc:
        print(
            f"translate_speed: cannot import the CASS core ({exc}); install the package "
            "first: pip install --no-build-isolation .",
            file=sys.stderr,
        )
        return 2
    size_bytes = int(args.size_mb * 2**20)
    corpus_dir: Path = args.corpus_dir or (
        REPO / "bench" / "corpus" / f"seed{args.seed}-{args.size_mb:g}mib"
    )
    scratch = (args.scratch or corpus_dir.parent) / f".scratch-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    command = " ".join(
        ["python bench/translate_speed.py", *(sys.argv[1:] if argv is None else argv)]
    )

    cpu: int | None = None
    if not args.no_pin and hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        cpu = args.cpu if args.cpu is not None else allowed[0]
        os.sched_setaffinity(0, {cpu})  # inherited by the CLI's process
    try:
        env = _environment()
        log(f"cass {env['cass_version']} from {env['cass_build_path']}, core {env['core_path']}")
        t0 = time.perf_counter()
        info = generate_corpus(corpus_dir, size_bytes, args.seed)
        gen_s = time.perf_counter() - t0
        files = sorted(info.files)
        sizes = [f.stat().st_size for f in files]
        log(
            f"corpus: {len(files)} files, {info.bytes / MB:.1f} MB in {gen_s:.1f} s"
            f"{' (reused)' if info.reused else ''}"
        )
        blobs = [f.read_bytes() for f in files]

        # Warm-up: table load, imports, first-touch allocations (untimed).
        measure_core(blobs[:3], 1)

        gc.collect()
        log("measuring end to end (translate_file + write_atomic) ...")
        e2e = measure_end_to_end(corpus_dir, files, scratch / "api", info.bytes, args.reps)
        log(
            f"  end to end: {e2e.mb_s(e2e.best_wall):.1f} MB/s wall, "
            f"{e2e.mb_s(e2e.best_cpu):.1f} MB/s cpu"
        )

        gc.collect()
        log("measuring end to end through the CLI's pipeline ...")
        pipe = measure_pipeline(corpus_dir, files, scratch / "pipeline", info.bytes, args.reps)
        if isinstance(pipe, Rate):
            log(f"  pipeline: {pipe.mb_s(pipe.best_wall):.1f} MB/s wall")
        else:
            log(f"  {pipe}")

        gc.collect()
        log("measuring the core alone ...")
        core = measure_core(blobs, args.reps)
        log(
            f"  core: {core.mb_s(core.best_wall):.1f} MB/s wall, "
            f"{core.mb_s(core.best_cpu):.1f} MB/s cpu"
        )

        log("measuring stage by stage ...")
        stages, rules = measure_stages(corpus_dir, files, scratch / "stages")

        cli: dict[str, Any]
        if args.no_cli:
            cli = {
                "command": [],
                "returncode": -1,
                "wall_s": 0.0,
                "cpu_s": 0.0,
                "mb_s_wall": 0.0,
                "mb_s_cpu": 0.0,
                "stderr_lines": 0,
                "stderr_tail": "",
                "startup_wall_s": 0.0,
            }
        else:
            log("measuring the CLI ...")
            tiny = min(files, key=lambda f: f.stat().st_size)
            run = measure_cli(corpus_dir, scratch / "cli", tiny, scratch)
            cli = asdict(run) | {
                "mb_s_wall": round(info.bytes / MB / run.wall_s, 3),
                "mb_s_cpu": round(info.bytes / MB / run.cpu_s, 3) if run.cpu_s else 0.0,
            }
            log(f"  cli: {cli['mb_s_wall']:.1f} MB/s wall (exit {run.returncode})")

        instructions: dict[str, Any] = {}
        if args.instructions_kb > 0:
            log("counting the core's instructions with callgrind ...")
            instructions = measure_instructions(files, args.instructions_kb * 1024)
            if instructions.get("available"):
                log(f"  {instructions['per_byte']:.1f} instructions per byte")

        log("measuring the regex baseline ...")
        sample: list[bytes] = []
        for blob in blobs:
            if sum(map(len, sample)) >= args.baseline_kb * 1024:
                break
            sample.append(blob)
        sample_bytes = sum(map(len, sample))
        base, npatterns, compile_s = measure_baseline([b.decode() for b in sample], sample_bytes)
        core_sample = measure_core(sample, args.reps)
        base_kb_s = sample_bytes / 1000 / base.best_wall
        base_kb_s_cpu = sample_bytes / 1000 / base.best_cpu
        log(f"  baseline: {base_kb_s:.1f} kB/s on {sample_bytes / MB:.2f} MB, {npatterns} patterns")

        results = {
            "end_to_end": e2e.summary(),
            "pipeline": pipe.summary() if isinstance(pipe, Rate) else {"skipped": pipe},
            "core": core.summary(),
            "cli": cli,
            "baseline": {
                "bytes": sample_bytes,
                "files": len(sample),
                "patterns": npatterns,
                "compile_s": round(compile_s, 4),
                "wall_s": round(base.best_wall, 4),
                "cpu_s": round(base.best_cpu, 4),
                "kb_s_wall": round(base_kb_s, 3),
                "kb_s_cpu": round(base_kb_s_cpu, 3),
                "core_same_sample_mb_s_wall": round(core_sample.mb_s(core_sample.best_wall), 3),
                "core_same_sample_mb_s_cpu": round(core_sample.mb_s(core_sample.best_cpu), 3),
                "ratio_end_to_end": round(e2e.mb_s(e2e.best_wall) * 1000 / base_kb_s, 2),
                "ratio_core": round(core.mb_s(core.best_wall) * 1000 / base_kb_s, 2),
                "ratio_end_to_end_cpu": round(e2e.mb_s(e2e.best_cpu) * 1000 / base_kb_s_cpu, 2),
                "ratio_core_same_sample": round(
                    core_sample.mb_s(core_sample.best_wall) * 1000 / base_kb_s, 2
                ),
            },
            "stages_s": {k: round(v, 4) for k, v in stages.items()},
            "instructions": instructions,
            "diagnostics_by_rule": dict(rules.most_common()),
        }
        res = {
            "command": command,
            "config": {
                "scratch": str(scratch.parent),
                "size_mb": args.size_mb,
                "seed": args.seed,
                "reps": args.reps,
                "cpu": cpu,
                "baseline_kb": args.baseline_kb,
            },
            "environment": env
            | {
                "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
                "cpu_pressure_at_end": _cpu_pressure(),
            },
            "corpus": {
                "dir": str(
                    corpus_dir.relative_to(REPO) if corpus_dir.is_relative_to(REPO) else corpus_dir
                ),
                "files": len(files),
                "bytes": info.bytes,
                "min_file_bytes": min(sizes),
                "max_file_bytes": max(sizes),
                "seed": args.seed,
                "generator_version": GENERATOR_VERSION,
                "generate_s": round(gen_s, 2),
                "reused": info.reused,
            },
            "results": results,
        }
        args.out.mkdir(parents=True, exist_ok=True)
        md_path = args.out / "translate_speed.md"
        notes = _existing_notes(md_path)
        (args.out / "translate_speed.json").write_text(json.dumps(res, indent=2) + "\n")
        md_path.write_text(render_markdown(res, notes))
        log(f"wrote {md_path} and translate_speed.json")
        print(
            f"end-to-end {e2e.mb_s(e2e.best_wall):.1f} MB/s | core {core.mb_s(core.best_wall):.1f}"
            f" MB/s | cli {cli['mb_s_wall']:.1f} MB/s | baseline {base_kb_s:.1f} kB/s | "
            f"ratio {results['baseline']['ratio_end_to_end']:.0f}x"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if not args.keep_corpus:
            shutil.rmtree(corpus_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
