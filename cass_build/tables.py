"""Moved to ``cass_build.rules.tables``: this path stays for old imports."""

import sys

from .rules import tables as _moved

sys.modules[__name__] = _moved
