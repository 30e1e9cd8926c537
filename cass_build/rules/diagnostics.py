"""Diagnostics as a compiler prints them: ``file:line:col: warning: message [cass-id]``.

The ids, their usual severity and their fixed messages live in one table,
``cass_build/data/diagnostics/ids.toml``, which the C++ core reads through a generated
header (``cass_build.rules.diag_table``). Python emitters name an id by the part
after ``cass-`` (``rule("empty-input")``), as the core does; the table is read on
first use, so build steps that report nothing of their own never parse it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal, NamedTuple

from ..errors import TableError

__all__ = ["Diagnostic", "Kind", "Severity", "Side", "rule", "rule_id", "rule_ids", "table"]

Severity = Literal["note", "warning", "error"]
SEVERITIES: tuple[Severity, ...] = ("note", "warning", "error")
Side = Literal["core", "python"]
SIDES: tuple[Side, ...] = ("core", "python")
PREFIX = "cass-"
_KEYS = {"severity", "side", "summary", "message"}


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


class Kind(NamedTuple):
    """One row of the diagnostic table."""

    id: str
    """The full id, ``cass-empty-input``."""
    severity: Severity
    """The usual severity; some ids are also reported as a note or a warning."""
    side: Side
    summary: str
    message: str
    """The text of every report of this id, or ``""`` where the emitter builds it."""

    @property
    def name(self) -> str:
        """The id without ``cass-``, as the core spells it."""
        return self.id.removeprefix(PREFIX)

    def at(
        self,
        path: str,
        line: int,
        column: int,
        message: str = "",
        severity: Severity | None = None,
    ) -> Diagnostic:
        """A report of this kind; the message and severity default to the table's."""
        text = message or self.message
        if not text:
            msg = f"{self.id} has no fixed message in {table_path()}; pass one"
            raise ValueError(msg)
        return Diagnostic(path, line, column, severity or self.severity, self.id, text)


def table_path() -> Path:
    return Path(__file__).parent.with_name("data") / "diagnostics" / "ids.toml"


def _kind(key: str, raw: object, where: Path) -> Kind:
    if not isinstance(raw, dict) or not key.startswith(PREFIX):
        msg = f"{where}: [{key}] must be a table named cass-ID"
        raise TableError(msg)
    if unknown := set(raw) - _KEYS:
        msg = f"{where}: [{key}] has unknown key(s) {sorted(unknown)}"
        raise TableError(msg)
    severity, side = raw.get("severity"), raw.get("side")
    summary, message = raw.get("summary", ""), raw.get("message", "")
    if severity not in SEVERITIES or side not in SIDES:
        msg = f"{where}: [{key}] needs severity in {SEVERITIES} and side in {SIDES}"
        raise TableError(msg)
    if not isinstance(summary, str) or not summary or not isinstance(message, str):
        msg = f"{where}: [{key}] needs a one-line summary; a message must be a string"
        raise TableError(msg)
    return Kind(key, severity, side, summary, message)


@functools.cache
def table() -> dict[str, Kind]:
    """Every diagnostic id CASS emits, by full id, in the table's (and the docs') order."""
    import tomllib  # on first use only: most build steps never report from Python

    path = table_path()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        msg = f"{path}: cannot read the diagnostic table: {exc}"
        raise TableError(msg) from None
    return {key: _kind(key, raw, path) for key, raw in doc.items()}


def rule(name: str) -> Kind:
    """The table's row for ``cass-NAME``; an id missing from the table is a bug here."""
    try:
        return table()[PREFIX + name]
    except KeyError:
        msg = f"{table_path()}: no diagnostic {PREFIX + name}; add it to the table"
        raise TableError(msg) from None


def rule_id(name: str) -> str:
    """``cass-NAME``, checked against the table."""
    return rule(name).id


def rule_ids(*names: str) -> frozenset[str]:
    """The full ids of several table rows."""
    return frozenset(rule_id(n) for n in names)
