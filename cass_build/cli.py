"""The ``cass`` command line.

Exit codes: 0 clean; 1 a translation left errors (unsupported APIs, inline PTX;
with ``--werror`` any warning); 2 usage or I/O errors, reported in one line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ._version import __version__
from .errors import CassError, UsageError

if TYPE_CHECKING:
    from .api import Translation
    from .settings import Settings
    from .stats import Stats

__all__ = ["main"]

TREE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".cxx", ".hh", ".inl", ".c")
EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, hint=f"see '{self.prog} --help'")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cass", description="Translate CUDA sources to HIP.", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"cass {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    tr = sub.add_parser(
        "translate",
        help="translate CUDA sources to HIP",
        allow_abbrev=False,
        epilog="exit status: 0 clean; 1 errors remain in the output (with --werror, any "
        "warning); 2 usage or input errors. Diagnostics are documented in docs/diagnostics.md.",
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

    tb = sub.add_parser("tables", help="print the mapping tables", allow_abbrev=False)
    tb.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    tb.add_argument("--family", action="append", help="only these families")
    tb.add_argument("--out-dir", type=Path, help="write one Markdown page per family there")
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
        pairs = []
        # Paths as the user spelled them, so diagnostics read like a compiler's.
        for path in sorted(dirs[0].rglob("*")):
            if path.is_file() and path.suffix in TREE_SUFFIXES:
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


def _translate(args: argparse.Namespace, err: TextIO) -> int:
    from .api import translate_file
    from .sources import write_atomic
    from .stats import format_stats

    pairs, tree = _plan(args)
    settings = _settings(args, tree)
    settings.resolved_hip_version()
    inputs = frozenset(p.resolve() for p, _ in pairs)

    def one(pair: tuple[Path, Path | None]) -> Translation | CassError:
        try:
            return translate_file(pair[0], options=settings)
        except CassError as exc:  # reported in order below; other files go on
            return exc

    # The core releases the GIL, so threads translate files in parallel; outputs
    # are written in input order as their translations arrive.
    jobs = max(1, min(args.jobs, len(pairs)))
    errors = warnings = failures = written = 0
    done: list[tuple[str, Stats]] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for (_, target), result in zip(pairs, pool.map(one, pairs), strict=True):
            if isinstance(result, CassError):
                failures += 1
                _report(result, err)
                continue
            done.append((result.path, result.stats))
            shown = []
            for found in result.diagnostics:
                d = found.promoted() if args.werror else found
                errors += d.severity == "error"
                warnings += d.severity == "warning"
                if not args.quiet or d.severity == "error":
                    shown.append(f"{d}\n")
            err.write("".join(shown))  # one write per file, not per diagnostic
            if target is None:
                sys.stdout.buffer.write(result.data)
                sys.stdout.flush()
                written += 1
                continue
            try:
                write_atomic(target, result.data, inputs=inputs)
                written += 1
            except CassError as exc:  # e.g. it would overwrite an input; the others go on
                failures += 1
                _report(exc, err)
    if args.stats:
        report = format_stats(done, args.stats)
        if args.stats_file:
            write_atomic(args.stats_file, report.encode(), inputs=inputs)
        else:
            err.write(report)
    if not args.quiet:
        print(
            f"cass: {written} file(s) translated: {errors} error(s), {warnings} warning(s)",
            file=err,
        )
    if failures:
        return EXIT_USAGE
    return EXIT_FINDINGS if errors else EXIT_OK


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


def main(argv: Sequence[str] | None = None, *, err: TextIO | None = None) -> int:
    """Run ``cass``; returns the exit code instead of exiting."""
    stream = err or sys.stderr
    verbose = argv is not None and ("-v" in argv or "--verbose" in argv)
    try:
        parser = _build_parser()
        args = parser.parse_args(argv)
        verbose = args.verbose
        if args.command == "translate":
            return _translate(args, stream)
        if args.command == "tables":
            return _tables(args)
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
