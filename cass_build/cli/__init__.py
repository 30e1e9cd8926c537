"""The ``cass`` command line: one module per subcommand, each adding its own parser.

Exit codes: 0 clean; 1 a translation left errors (unsupported APIs, inline PTX;
with ``--werror`` any warning); 2 usage or I/O errors, reported in one line.
"""

from __future__ import annotations

from .translate import main

__all__ = ["main"]
