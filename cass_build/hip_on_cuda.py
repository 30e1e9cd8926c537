"""Moved to ``cass_build.runcheck.hip_on_cuda``: this path stays for old imports
and ``python -m cass_build.hip_on_cuda``."""

import sys

from .runcheck import hip_on_cuda as _moved

if __name__ == "__main__":
    sys.exit(_moved.main())
sys.modules[__name__] = _moved
