"""Moved to ``cass_build.runcheck.compare``: this path stays for old imports."""

import sys

from .runcheck import compare as _moved

sys.modules[__name__] = _moved
