"""Moved to ``cass_build.runcheck.wave64``: this path stays for old imports
and ``python -m cass_build.wave64``."""

import sys

from .runcheck import wave64 as _moved

if __name__ == "__main__":
    sys.exit(_moved.main())
sys.modules[__name__] = _moved
