"""``cass bench``: score translators on a directory of self-checking programs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TextIO

from ._common import EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
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
        "--warp",
        choices=("cuda", "native"),
        default=None,
        help="translate in this warp mode (default: $CASS_WARP, else cuda; docs/warps.md)",
    )
    be.add_argument(
        "--build-only",
        action="store_true",
        help="build each program and its translation with nvcc through the HIP-on-CUDA layer "
        "in every --wave mode, and run nothing (no GPU needed)",
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

    be.set_defaults(run=run)


def run(args: argparse.Namespace, err: TextIO) -> int:
    import shlex

    from ..pipeline.toolchain import parse_archs
    from ..runcheck.bench import BenchConfig, run_bench
    from ..runcheck.wave64 import parse_waves

    archs = tuple(a for v in args.offload_arch for a in parse_archs(v))
    strategies = args.strategy or ["rules"]
    from ..pipeline.strategies import parse_chain

    for strategy in strategies:
        parse_chain(strategy)
    name = args.name or args.directory.resolve().name
    resources = None
    if args.resources is not None:
        from ..runcheck.bench import parse_resource_targets

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

    config = BenchConfig(
        strategies=strategies,
        archs=archs,
        runs=args.runs,
        jobs=args.jobs,
        out=args.out,
        name=name,
        gpu=not args.no_gpu,
        command=shlex.join(["cass", *args.argv]),
        keep=args.keep,
        translations=args.translations,
        compile_report=args.compile_report,
        parallel_runs=args.parallel_runs,
        run_reports=args.run_report,
        waves=parse_waves(args.wave),
        resources=resources,
        warp=args.warp,
        build_only=args.build_only,
    )
    doc = run_bench(args.directory, config, progress=show)
    for strategy, t in doc["totals"].items():
        print(
            f"cass bench: {strategy}: {t['programs']} programs, compiled "
            f"{t['compiled']}/{t['compile_tried']}, executed {t['executed']}/{t['run_tried']}",
            file=err,
        )
    print(f"cass bench: report in {args.out / (name + '.md')}", file=err)
    return EXIT_OK
