"""Telling a tool's own failure from an error in the code it was given.

A compiler or translator that rejects code says where: ``file:line:col: error: ...``.
One that exits non-zero without any such line (missing, killed, a bad flag, a broken
install) failed on its own account, and the source must not be blamed for it: the
pipeline reports that as :class:`~cass_build.errors.ToolFailedError` (exit 2).
"""

from __future__ import annotations

import re

from .._proc import NOT_RUN

__all__ = ["LOCATED_ERROR", "NOT_RUN", "tool_failure"]

LOCATED_ERROR = re.compile(
    r"^(?P<where>[^:\n]+:\d+:\d+): (?P<kind>error|fatal error): (?P<text>.*)$"
)


def tool_failure(code: int, output: str) -> str:
    """Why a tool that exited with ``code`` failed on its own account, or "" when its
    output holds an error at a line (then the code it was given is to blame)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    if any(LOCATED_ERROR.match(ln) for ln in lines):
        return ""
    first = lines[0] if lines else "no output"
    if code == NOT_RUN:
        return f"could not run: {first}"
    if code < 0:
        return f"was killed by signal {-code}: {first}"
    return f"exited with status {code}: {first}"
