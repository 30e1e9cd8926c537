"""``python -m cass_build``: the same as the ``cass`` command."""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """``--cmakedir`` prints the CMake package directory, ``--includedir`` the directory of
    the headers translations include; anything else goes to the CLI."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--cmakedir"]:
        # Build systems call this on every configure: answer without loading the CLI.
        from . import get_cmake_dir

        try:
            print(get_cmake_dir())
        except ImportError as exc:
            print(f"cass: error: {exc}", file=sys.stderr)
            return 2
        return 0
    if args == ["--includedir"]:
        from . import include_dir

        print(include_dir())
        return 0
    from .cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
