"""The ``cass`` command line.

Exit codes: 0 clean; 1 a translation left errors (unsupported APIs, inline PTX;
with ``--werror`` any warning) or failed verification; 2 usage or I/O errors, or a
missing or failing tool, reported in one line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ._version import __version__
from .errors import CassError, UsageError, VerificationError

if TYPE_CHECKING:
    from .pipeline import PipelineOptions, Result
    from .settings import Settings
    from .stats import Stats

__all__ = ["main"]

TREE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".cxx", ".hh", ".inl", ".c")
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, hint=f"see '{self.prog} --help'")


def _build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """All subcommands, or only ``translate`` when that is the one run: a build starts
    ``cass translate`` once per file, and the others import more than it needs."""
    parser = _Parser(prog="cass", description="Translate CUDA sources to HIP.", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"cass {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    tr = sub.add_parser(
        "translate",
        help="translate CUDA sources to HIP",
        allow_abbrev=False,
        epilog="exit status: 0 clean; 1 errors remain in the output (with --werror, any "
        "warning), or verification failed; 2 usage, input or output errors, or a missing or "
        "failing tool. Diagnostics are documented in docs/diagnostics.md.",
    )
    tr.add_argument("inputs", nargs="+", type=Path, metavar="FILE|SRC_DIR")
    out = tr.add_mutually_exclusive_group(required=True)
    out.add_argument("-o", "--output", type=Path, help="output file ('-' for stdout)")
    out.add_argument("--out-dir", type=Path, help="directory for the outputs")
    tr.add_argument("--hip-version", help="HIP release to target, e.g. 5.2 or 6.4")
    tr.add_argument(
        "--launch-syntax",
        choices=("chevrons", "ggl"),
        default=None,
        help="keep k<<<g, b>>>(...) (default; HIP accepts it) or emit hipLaunchKernelGGL",
    )
    tr.add_argument("--cuda-arch", type=int, default=None, help="assumed __CUDA_ARCH__ (700)")
    tr.add_argument("--cuda-version", type=int, default=None, help="assumed CUDART_VERSION")
    tr.add_argument("--werror", action="store_true", help="treat warnings as errors")
    tr.add_argument(
        "--stats",
        nargs="?",
        const="text",
        choices=("text", "json", "csv"),
        help="converted/unconverted references per API family, per file and in total",
    )
    tr.add_argument("--stats-file", type=Path, help="write --stats there instead of stderr")
    tr.add_argument("--max-bytes", type=int, default=None, help="largest source accepted")
    tr.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    tr.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    pipe = tr.add_argument_group("verification (docs/pipeline.md)")
    pipe.add_argument(
        "--strategy",
        help="auto (default: model, rules, hipify-perl, hipify-clang), or a comma-separated "
        "chain of those, or exec:CMD; $CASS_STRATEGY",
    )
    pipe.add_argument(
        "--verify",
        choices=("auto", "none", "syntax", "compile", "run"),
        help="check each translation: HIP front end, hipcc for every arch, or a run against "
        "the CUDA original (default: $CASS_VERIFY, else auto = compile where hipcc exists)",
    )
    pipe.add_argument(
        "--offload-arch",
        action="append",
        default=[],
        metavar="ARCH",
        help="AMD target to verify for, repeatable (default: $CASS_ARCHS, "
        "$CMAKE_HIP_ARCHITECTURES, $PYTORCH_ROCM_ARCH, else gfx90a and gfx1030)",
    )
    pipe.add_argument(
        "-I",
        dest="include_dirs",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="include directory for headers and verification",
    )
    pipe.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    pipe.add_argument(
        "--hip-flags",
        action="append",
        default=[],
        metavar="FLAGS",
        help="extra hipcc flags for the verification compile, e.g. '-O2 -fPIC'",
    )
    pipe.add_argument(
        "--mirror",
        action="append",
        default=[],
        metavar="SRC_ROOT=OUT_ROOT",
        help="also translate local headers under SRC_ROOT into OUT_ROOT",
    )
    pipe.add_argument(
        "--object",
        type=Path,
        metavar="OBJ",
        help="keep the object file of the compile check (with -o)",
    )
    pipe.add_argument("--depfile", type=Path, help="write a Makefile depfile (with -o)")
    pipe.add_argument(
        "--report",
        type=Path,
        help="JSON run report (default: reports/last.json in the cache directory)",
    )
    pipe.add_argument(
        "--allow-unverified",
        action="store_true",
        help="keep a translation that fails verification, with a warning",
    )
    pipe.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")

    if command == "translate":
        return parser
    ca = sub.add_parser("cache", help="inspect or clear the translation cache", allow_abbrev=False)
    ca.add_argument("action", choices=("info", "clear", "dir"))

    sub.add_parser("doctor", help="show the toolchains CASS found and what is missing")
    __import__("cass_build.compare", fromlist=["add_parser"]).add_parser(sub)

    be = sub.add_parser(
        "bench",
        help="score translators on a directory of self-checking CUDA programs",
        allow_abbrev=False,
        epilog="layout and report format: docs/bench.md",
    )
    be.add_argument("directory", nargs="?", type=Path, default=Path("bench/programs"))
    be.add_argument(
        "--strategy",
        action="append",
        default=[],
        help="strategy to score, repeatable (default: rules)",
    )
    be.add_argument("--offload-arch", action="append", default=[], metavar="ARCH")
    be.add_argument("--runs", type=int, default=3, help="GPU runs per program (median time)")
    be.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    be.add_argument("--out", type=Path, default=Path("bench/reports"))
    be.add_argument("--name", help="report name (default: the directory's name)")
    be.add_argument("--no-gpu", action="store_true", help="translate and compile only")
    be.add_argument(
        "--run-report",
        type=Path,
        action="append",
        default=[],
        metavar="JSON",
        help="take the GPU run columns from this report, repeatable (with --translations)",
    )
    be.add_argument(
        "--parallel-runs",
        type=int,
        default=1,
        metavar="N",
        help="let N programs run on the GPU at once (default 1: fair runtimes)",
    )
    be.add_argument(
        "--wave",
        default="32",
        metavar="32,64",
        help="run the translation with 32-lane warps, emulated 64-lane AMD wavefronts, or "
        "both (32,64: a second column); NVIDIA GPU, docs/hip_on_cuda.md",
    )
    be.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep the translations there (for a GPU machine without CASS's core)",
    )
    be.add_argument(
        "--translations",
        type=Path,
        metavar="DIR",
        help="run translations kept by --keep instead of translating",
    )
    be.add_argument(
        "--compile-report",
        type=Path,
        metavar="JSON",
        help="take the compile columns from this earlier report",
    )
    be.add_argument(
        "--resources",
        nargs="?",
        const="",
        metavar="TARGETS",
        help="add each program's lowest AMD/NVIDIA occupancy ratio and its reason, compiled "
        "for one sm_XX reference and gfx targets (default sm_90,gfx942,gfx1100; needs hipcc "
        "and nvcc: on a GPU machine without them, --compile-report carries the figures)",
    )
    be.add_argument(
        "--resource-block",
        type=int,
        default=256,
        metavar="N",
        help="threads per block for the occupancy estimates (256)",
    )

    tb = sub.add_parser("tables", help="print the mapping tables", allow_abbrev=False)
    tb.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    tb.add_argument("--family", action="append", help="only these families")
    tb.add_argument("--out-dir", type=Path, help="write one Markdown page per family there")
    __import__("cass_build.asm.cli", fromlist=["add_parsers"]).add_parsers(sub)
    return parser


def _settings(args: argparse.Namespace, tree: bool) -> Settings:
    from .settings import Settings
    from .tables import parse_version

    # An option wins over its CASS_* variable, even over a malformed one.
    environ = dict(os.environ)
    if args.hip_version:
        environ.pop("CASS_HIP_VERSION", None)
    if args.launch_syntax:
        environ.pop("CASS_LAUNCH_SYNTAX", None)
    changes: dict[str, object] = {"rename_cu_includes": tree}
    if args.hip_version:
        try:
            changes["hip_version"] = parse_version(args.hip_version)
        except ValueError as exc:
            msg = f"--hip-version: {exc}"
            raise UsageError(msg) from None
    settings = Settings.from_env(environ)
    for name in ("launch_syntax", "cuda_arch", "cuda_version", "max_bytes"):
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    return settings.replace(**changes)


def _plan(args: argparse.Namespace) -> tuple[list[tuple[Path, Path | None]], bool]:
    """Pairs (input, output or None for stdout), and whether a tree is mirrored."""
    inputs: list[Path] = args.inputs
    dirs = [p for p in inputs if p.is_dir()]
    if dirs:
        if len(inputs) != 1 or args.out_dir is None:
            msg = f"{dirs[0]}: is a directory; a directory input must be alone, with --out-dir"
            raise UsageError(msg, hint="cass translate SRC_DIR --out-dir DST_DIR")
        src = dirs[0].resolve()
        dst = args.out_dir.resolve()
        if dst == src or src in dst.parents:
            msg = f"--out-dir {args.out_dir} must be outside {dirs[0]}"
            raise UsageError(msg)
        from .walk import tree_sources

        pairs = []
        # Paths as the user spelled them, so diagnostics read like a compiler's.
        files, args.tree_problems = tree_sources(dirs[0], TREE_SUFFIXES)
        for path in files:
            rel = path.relative_to(dirs[0])
            if rel.suffix == ".cu":
                rel = rel.with_suffix(".hip")
            pairs.append((path, args.out_dir / rel))
        return pairs, True
    if args.output is not None:
        if len(inputs) != 1:
            msg = "-o takes one input; use --out-dir for several"
            raise UsageError(msg)
        return [(inputs[0], None if str(args.output) == "-" else args.output)], False
    names = [p.with_suffix(".hip").name if p.suffix == ".cu" else p.name for p in inputs]
    if len(set(names)) != len(names):
        msg = "two inputs have the same file name; translate them into separate dirs"
        raise UsageError(msg)
    return [(p, args.out_dir / n) for p, n in zip(inputs, names, strict=True)], False


def _pipeline_options(
    args: argparse.Namespace, settings: Settings, tree_roots: tuple[Path, Path] | None
) -> PipelineOptions:
    import shlex

    from .pipeline import options_from_env
    from .toolchain import parse_archs

    mirror = []
    for spec in args.mirror:
        src, sep, dst = spec.partition("=")
        if not sep or not src or not dst:
            msg = f"--mirror {spec!r}: expected SRC_ROOT=OUT_ROOT"
            raise UsageError(msg)
        mirror.append((Path(src).resolve(), Path(dst).resolve()))
    if tree_roots is not None:
        mirror.append((tree_roots[0].resolve(), tree_roots[1].resolve()))
    changes: dict[str, Any] = {
        "settings": settings,
        "include_dirs": tuple(args.include_dirs),
        "defines": tuple(args.defines),
        "flags": tuple(f for group in args.hip_flags for f in shlex.split(group)),
        "mirror": tuple(mirror),
        "allow_unverified": args.allow_unverified,
        "use_cache": not args.no_cache,
        "want_object": args.object is not None,
    }
    if args.strategy:
        changes["strategy"] = args.strategy
    if args.verify:
        changes["verify"] = args.verify
    if args.offload_arch:
        changes["archs"] = tuple(a for v in args.offload_arch for a in parse_archs(v))
    options = options_from_env(**changes)
    if not args.verify and "CASS_VERIFY" not in os.environ:
        options = options.replace(verify="auto")
    return options


def _translate(args: argparse.Namespace, err: TextIO) -> int:
    from .pipeline import translate_file, write_depfile, write_if_changed
    from .sources import write_atomic
    from .stats import format_stats

    _check_outputs(args)  # before any work: not after a whole tree was compiled
    args.tree_problems = []
    pairs, tree = _plan(args)
    settings = _settings(args, tree)
    settings.resolved_hip_version()
    if (args.depfile or args.object) and (args.output is None or str(args.output) == "-"):
        msg = "--depfile and --object need -o FILE"
        raise UsageError(msg)
    tree_roots = (args.inputs[0], args.out_dir) if tree else None
    options = _pipeline_options(args, settings, tree_roots)
    from .strategies import parse_chain

    parse_chain(options.strategy)  # a bad --strategy is a usage error before any work
    if options.verify in ("syntax", "compile") and not options.allow_unverified:
        from .errors import ToolchainError
        from .toolchain import find_hip, install_hint

        if find_hip() is None:  # once, not once per file
            msg = f"--verify {options.verify}: no HIP toolchain found (hipcc)"
            raise ToolchainError(msg, hint=install_hint())
    from .pipeline import real_path, rules_first

    inputs = frozenset(real_path(p) for p, _ in pairs)

    # Verification off with the rules first: the per-file work is Python, so it goes to
    # processes (see parallel.py).
    fast = options.verify == "none" and not options.want_object and rules_first(options)

    def one(pair: tuple[Path, Path | None]) -> Result | CassError:
        try:
            return translate_file(pair[0], options)
        except CassError as exc:  # reported in order below; other files go on
            return exc

    # Files are translated in parallel (see parallel.py); outputs are written, and
    # diagnostics printed, in input order as results arrive.
    jobs = max(1, min(args.jobs, len(pairs)))
    errors = warnings = failures = written = unverified = 0
    done: list[tuple[str, Stats]] = []
    reports: list[dict[str, object]] = []
    progress = _Progress(len(pairs), err)
    for problem in args.tree_problems:  # entries of the tree that could not be read
        failures += 1
        progress.write(f"cass: error: {problem}\n")
    from .parallel import ordered_map

    if fast and jobs > 1:
        from .rules import core_table

        core_table()  # built once, before the workers fork
    results = ordered_map(one, pairs, jobs, processes=fast)
    for (source, target), result in zip(pairs, results, strict=True):
        progress.advance(str(source))
        if isinstance(result, CassError):
            failures += 1
            if isinstance(result, VerificationError):
                unverified += 1
            reports.append(_failure_report(str(source), result))
            progress.write(_format_error(result))
            continue
        done.append((result.path, result.stats))
        reports.append(result.report())
        shown = []
        for found in result.diagnostics:
            d = found.promoted() if args.werror else found
            errors += d.severity == "error"
            warnings += d.severity == "warning"
            if not args.quiet or d.severity == "error":
                shown.append(f"{d}\n")
        progress.write("".join(shown))  # one write per file, not per diagnostic
        try:
            if target is None:
                sys.stdout.buffer.write(result.data)
                sys.stdout.flush()
            else:
                _write_outputs(result, target, inputs)
                if args.object is not None and result.object_data is not None:
                    # Unchanged bytes keep their timestamp: nothing links again.
                    write_if_changed(args.object, result.object_data, inputs)
                if args.depfile is not None:
                    write_depfile(args.depfile, target, result.depends)
            written += 1
        except CassError as exc:  # e.g. it would overwrite an input; the others go on
            failures += 1
            progress.write(_format_error(exc))
    progress.close()
    if args.stats:
        report = format_stats(done, args.stats)
        if args.stats_file:
            write_atomic(args.stats_file, report.encode(), inputs=inputs)
        else:
            err.write(report)
    _write_report(args, options, reports, inputs)
    if not args.quiet:
        levels = _levels_summary(reports) if options.verify != "none" else ""
        # Every failed file printed one error line: counted, so that the summary agrees
        # with the exit status.
        print(
            f"cass: {written} file(s) translated{levels}: {errors + failures} error(s), "
            f"{warnings} warning(s)",
            file=err,
        )
    if failures > unverified:
        return EXIT_USAGE
    return EXIT_FINDINGS if errors or unverified else EXIT_OK


def _check_outputs(args: argparse.Namespace) -> None:
    from .outputs import check_output_dir, check_output_file

    if args.output is not None and str(args.output) != "-":
        check_output_file("-o", args.output)
    if args.out_dir is not None:
        check_output_dir("--out-dir", args.out_dir)
    for option in ("report", "stats_file", "depfile", "object"):
        if (path := getattr(args, option)) is not None:
            check_output_file("--" + option.replace("_", "-"), path)


def _failure_report(source: str, exc: CassError) -> dict[str, object]:
    """A failed file's entry in the JSON report: the error, and every attempt made."""
    from .errors import ToolFailedError

    entry: dict[str, object] = {"file": source, "failed": str(exc)}
    if isinstance(exc, VerificationError):
        entry["cached"] = exc.cached
        entry["attempts"] = list(exc.attempts)
    elif isinstance(exc, ToolFailedError):
        entry["tool"] = exc.tool
        entry["command"] = exc.command
    return entry


def _write_outputs(result: Result, target: Path, inputs: frozenset[Path]) -> None:
    from .pipeline import write_if_changed

    write_if_changed(target, result.data, inputs)
    for header, data in result.headers.items():
        write_if_changed(header, data, inputs)


def _levels_summary(reports: list[dict[str, object]]) -> str:
    from .pipeline import HEADER_SUFFIXES

    counts: dict[str, int] = {}
    for r in reports:
        if Path(str(r["file"])).suffix in HEADER_SUFFIXES:
            counts["headers"] = counts.get("headers", 0) + 1
        elif "level" in r:
            key = f"{r['level']}" + (", cached" if r.get("cached") else "")
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return ""
    parts = []
    for key, n in sorted(counts.items()):
        if key == "headers":
            label = "header(s), checked with their sources"
        elif key.startswith("none"):
            label = key.replace("none", "unverified")
        else:
            label = f"verified to {key}"
        parts.append(f"{n} {label}")
    return " (" + ", ".join(parts) + ")"


def _write_report(
    args: argparse.Namespace,
    options: PipelineOptions,
    reports: list[dict[str, object]],
    inputs: frozenset[Path],
) -> None:
    import json

    from .sources import write_atomic

    path = args.report
    if path is None:
        from .cache import cache_dir

        path = cache_dir() / "reports" / "last.json"
    doc = {
        "cass": __version__,
        "options": {
            "strategy": options.strategy,
            "verify": options.verify,
            "archs": list(options.archs),
            "hip_version": ".".join(map(str, options.settings.resolved_hip_version())),
        },
        "files": reports,
    }
    try:
        # One file entry a line: json's C encoder only runs without indent, and a tree's
        # report holds thousands of entries.
        head = json.dumps({k: v for k, v in doc.items() if k != "files"}, indent=2)
        body = ",\n".join(json.dumps(r) for r in reports)
        text = f'{head[:-2]},\n  "files": [\n{body}\n  ]\n}}\n'
        write_atomic(path, text.encode(), inputs=inputs)
    except CassError:
        if args.report is not None:
            raise  # the one the user asked for must be written


class _Progress:
    """A progress bar on a terminal for multi-file runs; plain lines otherwise."""

    def __init__(self, total: int, err: TextIO) -> None:
        self.err = err
        self.bar: Any = None
        if total > 1 and err.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=Console(file=err))
            self.task = self.bar.add_task("translating", total=total)
            self.bar.start()

    def advance(self, name: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=name[-40:])

    def write(self, text: str) -> None:
        if not text:
            return
        if self.bar is not None:
            self.bar.console.print(text.rstrip("\n"), markup=False, highlight=False)
        else:
            self.err.write(text if text.endswith("\n") else text + "\n")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _format_error(exc: CassError) -> str:
    if isinstance(exc, VerificationError):
        lines = [str(exc), *(f"  note: {d}" for d in exc.details)]
    else:
        lines = [f"cass: error: {exc}"]
    if exc.hint:
        lines.append(f"cass: hint: {exc.hint}")
    return "\n".join(lines) + "\n"


def _report(exc: CassError, err: TextIO) -> None:
    print(f"cass: error: {exc}", file=err)
    if exc.hint:
        print(f"cass: hint: {exc.hint}", file=err)


def _tables(args: argparse.Namespace) -> int:
    from .tables import load_tables
    from .tables_doc import render_tables

    known = sorted(f.name for f in load_tables())
    for name in args.family or ():
        if name not in known:
            msg = f"--family {name}: no such family"
            raise UsageError(msg, hint=f"families: {', '.join(known)}")
    if args.out_dir is None:
        sys.stdout.write(render_tables(args.format, args.family))
        return EXIT_OK
    from .sources import write_atomic
    from .tables_doc import render_pages

    for name, text in render_pages().items():
        write_atomic(args.out_dir / name, text.encode("utf-8"))
    return EXIT_OK


def _bench(args: argparse.Namespace, err: TextIO) -> int:
    import shlex

    from .bench import run_bench
    from .toolchain import parse_archs

    archs = tuple(a for v in args.offload_arch for a in parse_archs(v))
    strategies = args.strategy or ["rules"]
    from .strategies import parse_chain

    for strategy in strategies:
        parse_chain(strategy)
    name = args.name or args.directory.resolve().name
    resources = None
    if args.resources is not None:
        from .bench import parse_resource_targets

        resources = parse_resource_targets(args.resources, block=args.resource_block)

    def show(row: Any) -> None:
        mark = {None: "-", True: "ok", False: "FAIL"}
        wave64 = row.extra.get("wave64")
        worst = (row.extra.get("resources") or {}).get("worst")
        print(
            f"cass bench: {row.strategy:<8} {row.program:<40} compile {mark[row.compiled]:<4} "
            f"run {mark[row.executed]}"
            + (f" wave64 {mark[wave64['executed']]}" if wave64 else "")
            + (f" occupancy {worst['ratio']:.2f} on {worst['target']}" if worst else ""),
            file=err,
        )

    doc = run_bench(
        args.directory,
        strategies=strategies,
        archs=archs,
        runs=args.runs,
        jobs=args.jobs,
        out=args.out,
        name=name,
        gpu=not args.no_gpu,
        progress=show,
        command=shlex.join(["cass", *args.argv]),
        keep=args.keep,
        translations=args.translations,
        compile_report=args.compile_report,
        parallel_runs=args.parallel_runs,
        run_reports=args.run_report,
        waves=__import__("cass_build.wave64", fromlist=["parse_waves"]).parse_waves(args.wave),
        resources=resources,
    )
    for strategy, t in doc["totals"].items():
        print(
            f"cass bench: {strategy}: {t['programs']} programs, compiled "
            f"{t['compiled']}/{t['compile_tried']}, executed {t['executed']}/{t['run_tried']}",
            file=err,
        )
    print(f"cass bench: report in {args.out / (name + '.md')}", file=err)
    return EXIT_OK


def _cache(args: argparse.Namespace) -> int:
    from .cache import Cache

    cache = Cache()
    if args.action == "dir":
        print(cache.root)
    elif args.action == "info":
        info = cache.info()
        print(f"{info.path}: {info.entries} entries, {info.bytes / 2**20:.1f} MiB")
    else:
        print(f"cass: removed {cache.clear()} entries from {cache.root}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None, *, err: TextIO | None = None) -> int:
    """Run ``cass``; returns the exit code instead of exiting."""
    stream = err or sys.stderr
    verbose = argv is not None and ("-v" in argv or "--verbose" in argv)
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        command = next((w for w in words if not w.startswith("-")), None)
        parser = _build_parser(command)
        args = parser.parse_args(argv)
        args.argv = list(argv) if argv is not None else sys.argv[1:]
        verbose = args.verbose
        if args.command == "translate":
            return _translate(args, stream)
        if args.command == "tables":
            return _tables(args)
        if args.command == "cache":
            return _cache(args)
        if args.command == "bench":
            return _bench(args, stream)
        if args.command == "compare":
            return int(__import__("cass_build.compare", fromlist=["run"]).run(args, stream))
        if args.command in ("asm", "dataset"):
            return int(__import__("cass_build.asm.cli", fromlist=["run"]).run(args, stream))
        if args.command == "doctor":
            from .doctor import run_doctor

            return run_doctor(sys.stdout)
        parser.print_help(stream)
        return EXIT_USAGE
    except CassError as exc:
        if verbose:
            import traceback

            traceback.print_exc(file=stream)
        _report(exc, stream)
        return EXIT_USAGE
    except SystemExit as exc:  # --help and --version exit through argparse
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or EXIT_OK
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("cass: interrupted", file=stream)
        return 130
