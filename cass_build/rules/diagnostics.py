"""Diagnostics as a compiler prints them: ``file:line:col: warning: message [cass-id]``."""

from __future__ import annotations

from typing import Literal, NamedTuple

__all__ = ["Diagnostic", "Severity"]

Severity = Literal["note", "warning", "error"]
SEVERITIES: tuple[Severity, ...] = ("note", "warning", "error")


class Diagnostic(NamedTuple):
    """One finding about a source, positioned at a 1-based line and byte column.

    A named tuple: a file can carry thousands, and tuples are cheap to build.
    """

    path: str
    line: int
    column: int
    severity: Severity
    rule: str
    """Stable id, e.g. ``cass-inline-ptx``; each is documented in docs/diagnostics.md."""
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message} [{self.rule}]"

    def promoted(self) -> Diagnostic:
        """This diagnostic as an error (``--werror``)."""
        if self.severity != "warning":
            return self
        return Diagnostic(self.path, self.line, self.column, "error", self.rule, self.message)
