"""``cass translate``: CUDA sources (files or a tree) to HIP, through the pipeline."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .._version import __version__
from ..errors import CassError, UsageError, VerificationError
from ._common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, format_error

TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from collections.abc import Set as AbstractSet
    from typing import Any, TextIO

    from ..pipeline import PipelineOptions, Result
    from ..rules.stats import Stats
    from ..settings import Settings
    from .tree_batch import Item

    _Writer = Callable[[Path, bytes, AbstractSet[Path]], object]

__all__ = ["add_parser", "run"]

TREE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".cxx", ".hh", ".inl", ".c")


def add_parser(sub: Any) -> None:
    """``cass translate``: its options, grouped as ``--help`` shows them."""
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
    tr.add_argument(
        "--warp",
        choices=("cuda", "native"),
        default=None,
        help="cuda (default): CUDA's 32-lane warps, exact on 64-lane AMD wavefronts; "
        "native: plain HIP warp operations (docs/warps.md); $CASS_WARP",
    )
    tr.add_argument(
        "--roc",
        dest="libraries",
        action="store_const",
        const="roc",
        default=None,
        help="map cuBLAS, cuSPARSE and cuRAND to rocBLAS, rocSPARSE and rocRAND directly "
        "(HIPIFY's --roc); names without a ROC row keep their hip* mapping",
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

    tr.set_defaults(run=run)


def _settings(args: argparse.Namespace, tree: bool) -> Settings:
    from ..settings import Settings, parse_version

    given: dict[str, object] = {"rename_cu_includes": tree}
    if args.hip_version:
        try:
            given["hip_version"] = parse_version(args.hip_version)
        except ValueError as exc:
            msg = f"--hip-version: {exc}"
            raise UsageError(msg) from None
    for name in ("launch_syntax", "warp", "libraries", "cuda_arch", "cuda_version", "max_bytes"):
        if getattr(args, name) is not None:
            given[name] = getattr(args, name)
    return Settings.resolve(given)  # an option wins over its CASS_* variable


def _tree_root(args: argparse.Namespace) -> Path | None:
    """The directory input, checked (alone, with an --out-dir outside it), or None."""
    inputs: list[Path] = args.inputs
    dirs = [p for p in inputs if p.is_dir()]
    if not dirs:
        return None
    if len(inputs) != 1 or args.out_dir is None:
        msg = f"{dirs[0]}: is a directory; a directory input must be alone, with --out-dir"
        raise UsageError(msg, hint="cass translate SRC_DIR --out-dir DST_DIR")
    src = dirs[0].resolve()
    dst = args.out_dir.resolve()
    if dst == src or src in dst.parents:
        msg = f"--out-dir {args.out_dir} must be outside {dirs[0]}"
        raise UsageError(msg)
    return dirs[0]


def _tree_files(args: argparse.Namespace, root: Path) -> tuple[list[str], list[str], list[bool]]:
    """A tree's sources, spelled as the user spelled ``root`` (so diagnostics read like a
    compiler's), ``str(args.out_dir / rel)`` of each one's output, as strings (a tree has
    thousands, and a Path each costs more than the rest of listing it), and whether each
    is a plain file (no symlink). The entries that could not be listed go to
    ``args.tree_problems``."""
    from .tree_batch import out_prefix

    prefix = out_prefix(root)
    out = out_prefix(args.out_dir)
    if sys.getfilesystemencoding() == "utf-8":  # names as the core reads them
        from .. import _core

        # The usual tree (directories and plain files, nothing unreadable), listed in C++;
        # any other, None: listed here, which says what it met.
        listed = _core.list_tree(str(root), prefix, out, TREE_SUFFIXES)
        if listed is not None:
            args.tree_problems = []
            return listed[0], listed[1], [True] * len(listed[0])
    from .walk import tree_names

    rels, args.tree_problems, links = tree_names(root, TREE_SUFFIXES)
    sources, targets = [], []
    for rel in rels:
        sources.append(prefix + rel)
        name = rel[rel.rfind("/") + 1 :]
        if name.endswith(".cu") and len(name) > 3:  # Path.suffix == ".cu"
            rel = rel[:-3] + ".hip"
        targets.append(out + rel)
    return sources, targets, [rel not in links for rel in rels]


def _plan(args: argparse.Namespace) -> tuple[list[tuple[Path, Path | None]], bool]:
    """Pairs (input, output or None for stdout), and whether a tree is mirrored."""
    inputs: list[Path] = args.inputs
    root = _tree_root(args)
    if root is not None:
        sources, args.tree_targets, _ = _tree_files(args, root)
        return [(Path(s), Path(t)) for s, t in zip(sources, args.tree_targets, strict=True)], True
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
    from ..settings import options_from_env

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
        "flags": _split_flags(args.hip_flags),
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
        from ..pipeline.toolchain import parse_archs  # here: the toolchain only when named

        changes["archs"] = tuple(a for v in args.offload_arch for a in parse_archs(v))
    return options_from_env(**changes)


def _split_flags(groups: list[str]) -> tuple[str, ...]:
    """Each ``--hip-flags`` value split as a shell would (shlex only when there are any)."""
    if not groups:
        return ()
    import shlex

    return tuple(f for group in groups for f in shlex.split(group))


def run(args: argparse.Namespace, err: TextIO) -> int:
    """``cass translate``: every input, in parallel; outputs and messages in input order."""
    _check_outputs(args)  # before any work: not after a whole tree was compiled
    args.tree_problems = []
    root = _tree_root(args)
    pairs = None if root is not None else _plan(args)[0]  # the inputs' usage errors first
    tree = root is not None
    settings = _settings(args, tree)
    settings.resolved_hip_version()
    if (args.depfile or args.object) and (args.output is None or str(args.output) == "-"):
        msg = "--depfile and --object need -o FILE"
        raise UsageError(msg)
    tree_roots = (args.inputs[0], args.out_dir) if tree else None
    options = _pipeline_options(args, settings, tree_roots)
    from ..pipeline.strategies import parse_chain

    parse_chain(options.strategy)  # a bad --strategy is a usage error before any work
    if options.verify in ("syntax", "compile") and not options.allow_unverified:
        from ..errors import ToolchainError
        from ..pipeline.toolchain import find_hip, install_hint

        if find_hip() is None:  # once, not once per file
            msg = f"--verify {options.verify}: no HIP toolchain found (hipcc)"
            raise ToolchainError(msg, hint=install_hint())
    from .tree_batch import lean

    if root is not None and lean(options, tree):  # the core reads, translates, writes it all
        return _run_batch(args, options, root, err)
    if pairs is None:
        pairs = _plan(args)[0]
    from ..pipeline import real_path, rules_first, translate_file, write_if_changed

    # Verification off with the rules first: the per-file work is Python, so it goes to
    # processes (see parallel.py).
    fast = options.verify == "none" and not options.want_object and rules_first(options)

    # A .cu file that another input #includes is no unit of its own (it may use names its
    # includer declares first): it is checked through its includer, as a header is.
    included = frozenset[Path]()
    if options.verify != "none":
        included = _included_sources(pairs, settings.max_bytes)
    through_includer = options.replace(verify="none")

    def one(pair: tuple[Path, Path | None]) -> Result | CassError:
        try:
            if included and real_path(pair[0]) in included:
                return translate_file(pair[0], through_includer)
            return translate_file(pair[0], options)
        except CassError as exc:  # reported in order below; other files go on
            return exc

    # Files are translated in parallel (see parallel.py); outputs are written, and
    # diagnostics printed, in input order as results arrive.
    jobs = max(1, min(args.jobs, len(pairs)))
    tally = _Tally(args, len(pairs), err)
    from .parallel import ordered_map

    inputs = frozenset(real_path(p) for p, _ in pairs)
    if fast and jobs > 1:
        from ..rules import core_table

        core_table(roc=settings.libraries == "roc")  # built once, before the workers fork
    results = ordered_map(one, pairs, jobs, processes=fast)
    for (source, target), result in zip(pairs, results, strict=True):
        tally.add(source, target, result, inputs, write_if_changed)
    return tally.finish(options, inputs, included)


def _run_batch(args: argparse.Namespace, options: PipelineOptions, root: Path, err: TextIO) -> int:
    """A tree with verification off, in one call of the core (see tree_batch.py): the
    per-file pipeline only for the files the core leaves to it, in their place."""
    from .._files import write_if_changed
    from .tree_batch import NOT_WRITTEN, STALE, Batch, table_ahead

    table_ready = table_ahead(options)  # built while the tree is listed
    try:
        sources, targets, plain = _tree_files(args, root)
    finally:  # never left running as the interpreter exits
        table_ready()
    tally = _Tally(args, len(sources), err)
    batch = Batch(
        sources,
        targets,
        options,
        max(1, min(args.jobs, len(sources))),
        out_dir=args.out_dir,
        plain=plain,
        werror=args.werror,
        quiet=args.quiet,
        stats=args.stats is not None,
    )
    inputs = batch.inputs
    if _all_plain(sources, batch.items, tally):
        return _complete(tally.finish(options, inputs, frozenset()))
    shown: list[str] = []  # the core's messages, printed in one write up to the next other
    for source, target, item in zip(sources, targets, batch.items, strict=True):
        if item is None:
            tally.write("".join(shown))
            shown.clear()
            from ..pipeline import translate_file

            path = Path(source)
            try:
                result: Result | CassError = translate_file(path, options)
            except CassError as exc:  # reported in order; the other files go on
                result = exc
            tally.add(path, Path(target), result, inputs, write_if_changed)
            continue
        text, errors, warnings, entry, stats, status, data = item
        tally.progress.advance(source)
        tally.errors += errors
        tally.warnings += warnings
        tally.reports.append(entry)
        if stats is not None:
            tally.stats(source, *stats)
        if text is not None:
            shown.append(text)
        if status & (NOT_WRITTEN | STALE):
            tally.write("".join(shown))
            shown.clear()
            try:
                if status == NOT_WRITTEN:
                    assert data is not None
                    write_if_changed(Path(target), data, inputs)
                _remove_stale(target, inputs)
            except CassError as exc:  # e.g. it would overwrite an input; the others go on
                tally.failures += 1
                tally.write(format_error(exc))
                continue
        tally.written += 1
    tally.write("".join(shown))
    return _complete(tally.finish(options, inputs, frozenset()))


def _complete(code: int) -> int:
    """A tree's batch is done: the core wrote its outputs (each renamed into place, or
    linked once whole), Python the rest and the report (``write_atomic``)."""
    from ._common import mark_complete

    mark_complete()
    return code


def _all_plain(sources: list[str], items: list[Item | None], tally: _Tally) -> bool:
    """A tree whose every file the core did and wrote (the usual case), tallied at once:
    the columns of its items summed and joined in C, not looped over file by file.
    False (nothing tallied) when any file needs more: the loop in ``_run_batch``."""
    from .tree_batch import UNCHANGED, WRITTEN

    if not items or None in items or tally.progress.bar is not None:
        return False
    shown, errors, warnings, entries, stats, status, _ = zip(*items, strict=True)
    if not set(status) <= {WRITTEN, UNCHANGED}:
        return False
    tally.errors += sum(errors)
    tally.warnings += sum(warnings)
    tally.reports.extend(entries)
    if stats[0] is not None:
        for source, counts in zip(sources, stats, strict=True):
            tally.stats(source, *counts)
    tally.write("".join(filter(None, shown)))
    tally.written += len(items)
    return True


class _Tally:
    """A run's messages, in input order, and its counts; ``finish`` writes the stats, the
    JSON report and the summary line, and gives the exit status."""

    def __init__(self, args: argparse.Namespace, total: int, err: TextIO) -> None:
        self.args = args
        self.err = err
        self.errors = self.warnings = self.failures = self.written = self.unverified = 0
        self.done: list[tuple[str, Stats]] = []
        self.reports: list[dict[str, object] | str] = []
        """Each file's report entry: a str is one the core wrote as json.dumps would."""
        self.progress = _Progress(total, err)
        for problem in args.tree_problems:  # entries of the tree that could not be read
            self.failures += 1
            self.progress.write(f"cass: error: {problem}\n")

    def write(self, text: str) -> None:
        self.progress.write(text)

    def stats(self, path: str, counts: list[tuple[int, int, int]], lines: int, size: int) -> None:
        from ..rules import family_counts
        from ..rules.stats import Stats

        self.done.append((path, Stats(family_counts(counts), lines, size)))

    def add(
        self,
        source: Path,
        target: Path | None,
        result: Result | CassError,
        inputs: AbstractSet[Path],
        write: _Writer,
    ) -> None:
        """One file's result (or error): its messages, its outputs, its report entry."""
        args = self.args
        self.progress.advance(str(source))
        if isinstance(result, CassError):
            self.failures += 1
            if isinstance(result, VerificationError):
                self.unverified += 1
                result = _keep_unverified(result, target, inputs)
            self.reports.append(_failure_report(str(source), result))
            self.progress.write(format_error(result))
            return
        self.done.append((result.path, result.stats))
        self.reports.append(result.report())
        shown = []
        for found in result.diagnostics:
            d = found.promoted() if args.werror else found
            self.errors += d.severity == "error"
            self.warnings += d.severity == "warning"
            if not args.quiet or d.severity == "error":
                shown.append(f"{d}\n")
        self.progress.write("".join(shown))  # one write per file, not per diagnostic
        try:
            if target is None:
                sys.stdout.buffer.write(result.data)
                sys.stdout.flush()
            else:
                _write_outputs(result, target, inputs, write)
                from ..pipeline import write_depfile, write_if_changed

                if args.object is not None and result.object_data is not None:
                    # Unchanged bytes keep their timestamp: nothing links again.
                    write_if_changed(args.object, result.object_data, inputs)
                if args.depfile is not None:
                    write_depfile(args.depfile, target, result.depends)
            self.written += 1
        except CassError as exc:  # e.g. it would overwrite an input; the others go on
            self.failures += 1
            self.progress.write(format_error(exc))

    def finish(
        self, options: PipelineOptions, inputs: AbstractSet[Path], included: frozenset[Path]
    ) -> int:
        from .._files import write_atomic

        args, err = self.args, self.err
        self.progress.close()
        if args.stats:
            from ..rules.stats import format_stats

            report = format_stats(self.done, args.stats)
            if args.stats_file:
                write_atomic(args.stats_file, report.encode(), inputs=inputs)
            else:
                err.write(report)
        _write_report(args, options, self.reports, inputs)
        if not args.quiet:
            levels = ""
            if options.verify != "none":
                levels = _levels_summary([r for r in self.reports if isinstance(r, dict)], included)
            # Every failed file printed one error line: counted, so that the summary agrees
            # with the exit status.
            print(
                f"cass: {self.written} file(s) translated{levels}: "
                f"{self.errors + self.failures} error(s), {self.warnings} warning(s)",
                file=err,
            )
        if self.failures > self.unverified:
            return EXIT_USAGE
        return EXIT_FINDINGS if self.errors or self.unverified else EXIT_OK


def _check_outputs(args: argparse.Namespace) -> None:
    from .output_paths import check_output_dir, check_output_file

    if args.output is not None and str(args.output) != "-":
        check_output_file("-o", args.output)
    if args.out_dir is not None:
        check_output_dir("--out-dir", args.out_dir)
    for option in ("report", "stats_file", "depfile", "object"):
        if (path := getattr(args, option)) is not None:
            check_output_file("--" + option.replace("_", "-"), path)


def _failure_report(source: str, exc: CassError) -> dict[str, object]:
    """A failed file's entry in the JSON report: the error, and every attempt made."""
    from ..errors import ToolFailedError

    entry: dict[str, object] = {"file": source, "failed": str(exc)}
    if isinstance(exc, VerificationError):
        entry["cached"] = exc.cached
        entry["attempts"] = list(exc.attempts)
    elif isinstance(exc, ToolFailedError):
        entry["tool"] = exc.tool
        entry["command"] = exc.command
    return entry


def unverified_path(target: Path) -> Path:
    """Where a translation that failed its check is kept: ``k.hip`` -> ``k.unverified.hip``."""
    return target.with_name(f"{target.stem}.unverified{target.suffix}")


def _keep_unverified(
    exc: VerificationError, target: Path | None, inputs: AbstractSet[Path]
) -> VerificationError:
    """Write the best candidate beside ``target`` for a person to work on, and name it
    in the error. The build still fails: nothing is written at ``target`` itself."""
    from ..pipeline import write_if_changed
    from ..pipeline.failures import mirror_hint

    if target is None or exc.candidate is None:
        return exc
    kept = unverified_path(target)
    try:
        write_if_changed(kept, exc.candidate, inputs)
    except CassError:
        return exc
    note = f"the best candidate, unverified, is in {kept}"
    hint = exc.hint
    if exc.untranslated is not None and (out_root := exc.untranslated.out_root(target)):
        hint = f"{mirror_hint(exc.untranslated, out_root)}; or pass --allow-unverified"
    return VerificationError(
        str(exc),
        hint=hint,
        details=(note, *exc.details),
        attempts=exc.attempts,
        cached=exc.cached,
        diagnosis=exc.diagnosis,
        candidate=exc.candidate,
        untranslated=exc.untranslated,
    )


def _write_outputs(result: Result, target: Path, inputs: AbstractSet[Path], write: _Writer) -> None:
    write(target, result.data, inputs)
    _remove_stale(str(target), inputs)
    for header, data in result.headers.items():
        write(header, data, inputs)


def _remove_stale(target: str, inputs: AbstractSet[Path]) -> None:
    """Remove the candidate a failed check kept beside ``target`` (``unverified_path``):
    this run's translation passed. As a string: a tree checks thousands, and pathlib's
    with_name and exists cost more per file than the core's translation."""
    cut = target.rfind("/") + 1
    name = target[cut:]
    dot = name.rfind(".")
    stale = target[:cut] + (
        f"{name[:dot]}.unverified{name[dot:]}" if 0 < dot < len(name) - 1 else name + ".unverified"
    )
    if os.path.exists(stale) and Path(stale).resolve() not in inputs:  # noqa: PTH110 (as above)
        Path(stale).unlink()


def _included_sources(pairs: list[tuple[Path, Path | None]], max_bytes: int) -> frozenset[Path]:
    """The ``.cu`` inputs that another input includes (with the includer's own lookup)."""
    from .._files import read_source
    from ..pipeline import real_path
    from ..pipeline.includes import local_includes

    cu = {real_path(p) for p, _ in pairs if p.suffix == ".cu"}
    if len(cu) < 2:
        return frozenset()
    found: set[Path] = set()
    for path, _ in pairs:
        if path.suffix != ".cu":
            continue  # a header including a .cu is rarer than worth its scan
        try:
            data, _ = read_source(path, max_bytes)
        except CassError:
            continue  # reported when the file itself is translated
        found.update(h for h in local_includes(path, data) if h in cu)
    return frozenset(found)


def _levels_summary(reports: list[dict[str, object]], included: frozenset[Path]) -> str:
    from ..pipeline import HEADER_SUFFIXES, real_path

    counts: dict[str, int] = {}
    for r in reports:
        path = Path(str(r["file"]))
        if path.suffix in HEADER_SUFFIXES:
            counts["headers"] = counts.get("headers", 0) + 1
        elif included and real_path(path) in included:
            counts["included"] = counts.get("included", 0) + 1
        elif "level" in r:
            key = f"{r['level']}" + (", cached" if r.get("cached") else "")
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return ""
    parts = []
    for key, n in sorted(counts.items()):
        if key == "headers":
            label = "header(s), checked with their sources"
        elif key == "included":
            label = "included source(s), checked with their includers"
        elif key.startswith("none"):
            label = key.replace("none", "unverified")
        else:
            label = f"verified to {key}"
        parts.append(f"{n} {label}")
    return " (" + ", ".join(parts) + ")"


def _write_report(
    args: argparse.Namespace,
    options: PipelineOptions,
    reports: list[dict[str, object] | str],
    inputs: AbstractSet[Path],
) -> None:
    import json

    from .._files import write_atomic

    path = args.report
    if path is None:
        from .._files import cache_dir

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
        start, end = f'{head[:-2]},\n  "files": [\n', "\n  ]\n}\n"
        entries = [r if isinstance(r, str) else json.dumps(r) for r in reports]
        write_atomic(path, _report_pieces(start, entries, end), inputs=inputs)
    except CassError:
        if args.report is not None:
            raise  # the one the user asked for must be written


def _report_pieces(start: str, entries: list[str], end: str, size: int = 256) -> Iterator[bytes]:
    """``(start + ",\n".join(entries) + end).encode()``, ``size`` entries a piece, made as
    the report is written: a tree's report is megabytes, and whole, then encoded, it
    took fresh pages twice over (a millisecond of a tree's run, here)."""
    if not entries:
        yield (start + end).encode()
        return
    for at in range(0, len(entries), size):
        piece = ",\n".join(entries[at : at + size])
        first = start if at == 0 else ",\n"
        last = end if at + size >= len(entries) else ""
        yield (first + piece + last).encode()


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
