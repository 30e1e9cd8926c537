"""``cass asm`` and ``cass dataset asm``: the subcommands, added to ``cass`` by ``add_parser``."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path
from typing import TextIO

from ..errors import ToolchainError, UsageError
from .targets import (
    AMD_ARCHS,
    DEFAULT_AMD,
    DEFAULT_NVIDIA,
    NVIDIA_ARCHS,
    AmdArch,
    NvidiaArch,
    parse_amd,
    parse_nvidia,
)

__all__ = ["add_parser", "run_asm", "run_dataset"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _target_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--sm",
        action="append",
        default=[],
        metavar="SM",
        help="NVIDIA target, repeatable or comma-separated (default sm_90; 'none' for none); "
        "the first is the reference the AMD occupancy is compared with",
    )
    p.add_argument(
        "--offload-arch",
        action="append",
        default=[],
        metavar="GFX",
        help="AMD target, repeatable or comma-separated: "
        + ", ".join(AMD_ARCHS)
        + " or 'all' (default "
        + " ".join(DEFAULT_AMD)
        + "; 'none' for none)",
    )
    p.add_argument(
        "--amd-backend",
        choices=("auto", "clang", "llvm"),
        default="auto",
        help="clang: hipcc -S; llvm: clang's bitcode lowered by llvmlite's LLVM 22; auto: "
        "clang where it knows the target and has its device library (docs/asm.md)",
    )
    p.add_argument("--block", type=int, default=256, help="threads per block for occupancy (256)")
    p.add_argument(
        "--std",
        default="c++17",
        metavar="STD",
        help="C++ dialect for both compilers (default c++17, nvcc 13's own)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="targets compiled at once (default: the CPU count)",
    )


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``asm`` and ``dataset`` (with ``dataset asm``) to the ``cass`` subcommands."""
    asm = sub.add_parser(
        "asm",
        help="NVIDIA SASS and AMD ISA of every kernel, with resources and occupancy",
        allow_abbrev=False,
        epilog="exit status: 0 every target produced; 1 a target failed to compile; 2 usage "
        "errors, an unknown target, or a missing tool for a target asked for. docs/asm.md",
    )
    asm.add_argument("source", type=Path, metavar="FILE.cu")
    _target_options(asm)
    asm.add_argument(
        "--kernel",
        action="append",
        default=[],
        metavar="TEXT",
        help="only kernels whose (mangled or readable) name contains TEXT",
    )
    asm.add_argument(
        "--dynamic-shared",
        type=int,
        default=0,
        metavar="BYTES",
        help="dynamic shared memory (LDS) per block, for occupancy",
    )
    asm.add_argument(
        "--flag-ratio",
        type=float,
        default=0.5,
        metavar="R",
        help="flag AMD occupancy below R times the NVIDIA reference (0.5)",
    )
    show = asm.add_mutually_exclusive_group()
    show.add_argument("--report-only", action="store_true", help="the resource table only")
    show.add_argument(
        "--side-by-side", action="store_true", help="listings in columns, one per target"
    )
    asm.add_argument("--classes", action="store_true", help="instruction counts per class")
    asm.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="the report with listings as JSON (stdout without FILE)",
    )
    asm.add_argument("--html", type=Path, metavar="FILE", help="a self-contained HTML page")
    asm.add_argument("-o", "--out-dir", type=Path, help="write the HIP and each listing there")
    asm.add_argument(
        "-I", dest="include_dirs", action="append", default=[], type=Path, metavar="DIR"
    )
    asm.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")

    asm.set_defaults(run=run_asm)
    ds = sub.add_parser("dataset", help="build datasets from a corpus", allow_abbrev=False)
    ds.set_defaults(run=run_dataset)
    kinds = ds.add_subparsers(dest="dataset_kind", parser_class=type(ds))
    da = kinds.add_parser(
        "asm",
        help="aligned CUDA, HIP, SASS and AMD ISA records per kernel, as JSONL",
        allow_abbrev=False,
        epilog="record format: docs/asm.md",
    )
    da.add_argument("inputs", nargs="+", type=Path, metavar="FILE.cu|DIR")
    da.add_argument("-o", "--output", type=Path, required=True, help="the JSONL file")
    da.add_argument("--limit", type=int, help="only the first N files")
    da.add_argument(
        "--summary",
        type=Path,
        metavar="FILE.md",
        help="also write a Markdown summary per target (docs/asm.md)",
    )
    da.add_argument("-q", "--quiet", action="store_true", help="no per-file progress")
    _target_options(da)


def _split(values: list[str]) -> list[str]:
    return [v for value in values for v in re.split(r"[,;\s]+", value.strip()) if v]


def _targets(args: argparse.Namespace) -> tuple[list[NvidiaArch], list[AmdArch], set[str]]:
    """The targets asked for, and which of them were named (a missing tool for a named
    target is an error; for a default one, a note)."""
    sms = _split(args.sm)
    gfxs = _split(args.offload_arch)
    if sms == ["none"]:
        nvidia: list[NvidiaArch] = []
    elif sms == ["all"]:
        nvidia = list(NVIDIA_ARCHS.values())
    else:
        nvidia = [parse_nvidia(s) for s in sms or DEFAULT_NVIDIA]
    if gfxs == ["none"]:
        amd: list[AmdArch] = []
    elif gfxs == ["all"]:
        amd = list(AMD_ARCHS.values())
    else:
        amd = [parse_amd(g) for g in gfxs or DEFAULT_AMD]
    named = {a.name for a in nvidia} if sms else set()
    named |= {a.name for a in amd} if gfxs else set()
    if not nvidia and not amd:
        msg = "cass asm: no target left ('none' for both --sm and --offload-arch)"
        raise UsageError(msg, hint="name at least one target")
    if args.block < 1 or args.block > 1024:
        msg = f"cass asm: --block {args.block}: a block holds 1 to 1024 threads"
        raise UsageError(msg)
    return list(dict.fromkeys(nvidia)), list(dict.fromkeys(amd)), named


def _side_by_side(columns: list[tuple[str, str]], width: int) -> list[str]:
    col = max(20, (width - 3 * (len(columns) - 1)) // max(1, len(columns)))
    texts = [[title, "-" * min(col, len(title)), *body.splitlines()] for title, body in columns]
    rows = max(len(t) for t in texts)
    out = []
    for i in range(rows):
        cells = []
        for t in texts:
            cell = t[i] if i < len(t) else ""
            cells.append(cell[: col - 1] + "…" if len(cell) > col else cell.ljust(col))
        out.append(" | ".join(cells).rstrip())
    return out


def run_asm(args: argparse.Namespace, err: TextIO) -> int:
    """``cass asm FILE.cu``."""
    from .._files import write_atomic
    from .build import build_file
    from .report import analyse, render_html, render_text

    nvidia, amd, named = _targets(args)
    if not args.source.is_file():
        from ..errors import InputError

        what = "a directory" if args.source.is_dir() else "no such file"
        msg = f"{args.source}: {what}"
        hint = "cass dataset asm takes directories" if args.source.is_dir() else None
        raise InputError(msg, hint=f"pass a CUDA source file{'; ' + hint if hint else ''}")
    build = build_file(
        args.source, nvidia, amd, backend=args.amd_backend, include_dirs=args.include_dirs,
        defines=args.defines, std=args.std, jobs=args.jobs,
    )  # fmt: skip
    skipped = {
        t: exc
        for t, exc in build.failures.items()
        if isinstance(exc, ToolchainError) and t not in named
    }
    for target, exc in skipped.items():
        del build.failures[target]
        hint = f" ({exc.hint})" if exc.hint else ""
        print(f"cass asm: note: skipped {target}, not asked for by name: {exc}{hint}", file=err)
    report = analyse(build, block=args.block, dynamic_shared=args.dynamic_shared,
                     ratio=args.flag_ratio)  # fmt: skip
    if args.kernel:
        report.kernels = [
            k for k in report.kernels if any(s in k.name or s in k.demangled for s in args.kernel)
        ]
    for failure in build.failures.values():
        print(f"cass asm: error: {failure}", file=err)
        if failure.hint:
            print(f"cass asm: hint: {failure.hint}", file=err)
    if args.out_dir is not None:
        stem = args.source.stem
        write_atomic(args.out_dir / f"{stem}.hip", build.hip.encode())
        for produced in build.targets:
            ext = {"sass": "sass", "ptx": "ptx"}.get(produced.kind, "s")
            chunks = [f"// {produced.target} {produced.tool}\n"]
            chunks += [f"\n// kernel {k.name}\n{k.text}" for k in produced.kernels.values()]
            path = args.out_dir / f"{stem}.{produced.target}.{ext}"
            write_atomic(path, "".join(chunks).encode())
    if args.html is not None:
        write_atomic(args.html, render_html(report).encode())
        print(f"cass asm: HTML report in {args.html}", file=err)
    if args.json is not None:
        text = report.to_json()
        if args.json == "-":
            sys.stdout.write(text)
        else:
            write_atomic(Path(args.json), text.encode())
    else:
        out: list[str] = []
        by_target = {t.target: t for t in build.targets}
        for k in report.kernels if not args.report_only else ():
            title = k.demangled if k.demangled == k.name else f"{k.demangled}  [{k.name}]"
            out.append(f"=== kernel {title}")
            listed = [(t, by_target[t].kernels[k.names[t]].text) for t in k.per_target]
            if args.side_by_side:
                width = shutil.get_terminal_size((200, 40)).columns
                out += _side_by_side([(f"{t} ({by_target[t].kind})", x) for t, x in listed],
                                     width)  # fmt: skip
            else:
                for t, text in listed:
                    out.append(f"--- {t} ({by_target[t].kind})")
                    out.append(text.rstrip("\n"))
            out.append("")
        sys.stdout.write("\n".join(out) + ("\n" if out else ""))
        sys.stdout.write(render_text(report, classes=args.classes))
    if any(isinstance(e, ToolchainError) for e in build.failures.values()):
        return EXIT_USAGE
    return EXIT_FAILED if build.failures else EXIT_OK


def run_dataset(args: argparse.Namespace, err: TextIO) -> int:
    """``cass dataset asm INPUTS -o FILE.jsonl``."""
    if args.dataset_kind != "asm":
        msg = "cass dataset: name a dataset kind: asm"
        raise UsageError(msg, hint="see 'cass dataset --help'")
    from .dataset import write_dataset

    nvidia, amd, _ = _targets(args)
    summary = write_dataset(
        args.inputs, args.output, nvidia, amd, progress=None if args.quiet else err,
        limit=args.limit, backend=args.amd_backend, block=args.block, std=args.std,
        jobs=args.jobs,
    )  # fmt: skip
    print(
        f"cass dataset: {summary.records} record(s) from {summary.with_records} of "
        f"{summary.files} file(s), "
        f"{summary.complete} on every target, in {args.output}",
        file=err,
    )
    for target, count in sorted(summary.target_failures.items()):
        print(f"cass dataset: {target} failed for {count} file(s)", file=err)
    if args.summary is not None:
        import json

        from .._files import write_atomic
        from .dataset import summary_markdown

        with args.output.open(encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines]
        title = f"# cass dataset asm: {' '.join(str(i) for i in args.inputs)}\n\n"
        write_atomic(args.summary, (title + summary_markdown(records, summary)).encode())
    return EXIT_OK if summary.records or not summary.files else EXIT_FAILED
