"""``python -m cass_build.nvcc ARGS``: the same as ``cass nvcc ARGS``."""

from __future__ import annotations

import sys

from . import main

if __name__ == "__main__":
    sys.exit(main())
