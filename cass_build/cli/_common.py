"""What every ``cass`` subcommand shares: exit codes, the parser class, error lines."""

from __future__ import annotations

import argparse

from ..errors import CassError, UsageError, VerificationError

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "Parser", "format_error"]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and a hint, like every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, hint=f"see '{self.prog} --help'")


def format_error(exc: CassError) -> str:
    if isinstance(exc, VerificationError):
        lines = [str(exc), *(f"  note: {d}" for d in exc.details)]
    else:
        lines = [f"cass: error: {exc}"]
    if exc.hint:
        lines.append(f"cass: hint: {exc.hint}")
    return "\n".join(lines) + "\n"
