"""``python -m cass_build.train data OUT_DIR --seed 0 [--synth N] [--sdist/--no-sdist]``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cass_build.train", allow_abbrev=False)
    sub = ap.add_subparsers(dest="command", required=True)
    data = sub.add_parser("data", help="build the training data", allow_abbrev=False)
    data.add_argument("out", type=Path, help="output directory (replaced atomically)")
    data.add_argument("--seed", type=int, default=0)
    data.add_argument("--synth", type=int, default=4000, help="synthesized programs")
    data.add_argument("--sdist", action=argparse.BooleanOptionalAction, default=True)
    data.add_argument(
        "--cache", type=Path, help="sdist download cache (default: OUT/../sdist_cache)"
    )
    data.add_argument("--jobs", type=int, default=2, help="parallel hipcc processes")
    data.add_argument("--batch", type=int, default=100, help="programs per compiled batch")
    data.add_argument(
        "--context",
        choices=("all", "held-out", "off"),
        default="held-out",
        help="whose sdist units failing alone are verified again with their context",
    )
    args = ap.parse_args(argv)

    from .dataset import build

    start = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - start:7.1f}s] {msg}", file=sys.stderr, flush=True)

    build(
        args.out,
        seed=args.seed,
        synth=args.synth,
        sdist=args.sdist,
        cache=args.cache,
        jobs=args.jobs,
        batch=args.batch,
        context=args.context,
        log=log,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
