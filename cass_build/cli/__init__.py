"""The ``cass`` command line: one module per subcommand, each adding its own parser
(``add_parser``) with its handler (``run``), as scikit-build-core's ``__main__`` does.

Exit codes: 0 clean; 1 a translation left errors (unsupported APIs, inline PTX;
with ``--werror`` any warning) or failed verification; 2 usage or I/O errors, or a
missing or failing tool, reported in one line.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from .._version import __version__
from ..errors import CassError
from ._common import EXIT_OK, EXIT_USAGE, Parser, glue_flag_values

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

__all__ = ["main"]

#: The subcommands' modules, in ``--help`` order (``asm`` adds ``asm`` and ``dataset``).
SUBCOMMANDS = (
    "cass_build.cli.translate",
    "cass_build.cli.cache",
    "cass_build.cli.doctor",
    "cass_build.runcheck.compare",
    "cass_build.cli.bench",
    "cass_build.cli.tables",
    "cass_build.cli.env",
    "cass_build.asm.cli",
    "cass_build.cli.nvcc",
)


def _build_parser(command: str | None = None, *, version_only: bool = False) -> Parser:
    """All subcommands, or only ``translate`` when that is the one run: a build starts
    ``cass translate`` once per file, and the others import more than it needs. None
    for ``version_only`` (``cass --version`` alone): argparse prints the version as it
    meets the option, before it looks at a subcommand, and the subcommands' modules
    are most of that command's time."""
    parser = Parser(prog="cass", description="Translate CUDA sources to HIP.", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"cass {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    names = () if version_only else SUBCOMMANDS[:1] if command == "translate" else SUBCOMMANDS
    for name in names:
        importlib.import_module(name).add_parser(sub)
    return parser


def _report(exc: CassError, err: TextIO) -> None:
    print(f"cass: error: {exc}", file=err)
    if exc.hint:
        print(f"cass: hint: {exc.hint}", file=err)


def main(argv: Sequence[str] | None = None, *, err: TextIO | None = None) -> int:
    """Run ``cass``; returns the exit code instead of exiting."""
    stream = err or sys.stderr
    verbose = argv is not None and ("-v" in argv or "--verbose" in argv)
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        if words[:1] == ["nvcc"]:
            # nvcc's flags (-v, -o, -c) are not argparse's: the driver reads them itself,
            # and a build runs it per file, so nothing else of the CLI is loaded.
            from ..nvcc import main as nvcc_main

            return nvcc_main(words[1:])
        words = glue_flag_values(words)
        command = next((w for w in words if not w.startswith("-")), None)
        parser = _build_parser(command, version_only=words == ["--version"])
        args = parser.parse_args(words)
        args.argv = list(argv) if argv is not None else sys.argv[1:]
        verbose = args.verbose
        if (run := getattr(args, "run", None)) is not None:
            return int(run(args, stream))
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
