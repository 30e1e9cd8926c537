"""``cass cache info|clear|dir``: the translation cache."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._common import EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    ca = sub.add_parser("cache", help="inspect or clear the translation cache", allow_abbrev=False)
    ca.add_argument("action", choices=("info", "clear", "dir"))
    ca.set_defaults(run=run)


def run(args: argparse.Namespace, err: TextIO) -> int:
    from ..pipeline.cache import Cache

    cache = Cache()
    if args.action == "dir":
        print(cache.root)
    elif args.action == "info":
        info = cache.info()
        print(f"{info.path}: {info.entries} entries, {info.bytes / 2**20:.1f} MiB")
    else:
        print(f"cass: removed {cache.clear()} entries from {cache.root}")
    return EXIT_OK
