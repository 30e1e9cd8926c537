"""``cass tables``: the mapping tables as Markdown or CSV, or docs/tables pages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from ..errors import UsageError
from ._common import EXIT_OK

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    tb = sub.add_parser("tables", help="print the mapping tables", allow_abbrev=False)
    tb.add_argument("--format", choices=("markdown", "csv"), default="markdown")
    tb.add_argument("--family", action="append", help="only these families")
    tb.add_argument("--out-dir", type=Path, help="write one Markdown page per family there")
    tb.set_defaults(run=run)


def run(args: argparse.Namespace, err: TextIO) -> int:
    from ..rules.tables import load_tables
    from ..rules.tables_doc import render_tables

    known = sorted(f.name for f in load_tables())
    for name in args.family or ():
        if name not in known:
            msg = f"--family {name}: no such family"
            raise UsageError(msg, hint=f"families: {', '.join(known)}")
    if args.out_dir is None:
        sys.stdout.write(render_tables(args.format, args.family))
        return EXIT_OK
    from .._files import write_atomic
    from ..rules.tables_doc import render_pages

    for name, text in render_pages().items():
        write_atomic(args.out_dir / name, text.encode("utf-8"))
    return EXIT_OK
