"""What every ``cass`` subcommand shares: exit codes, the parser class, error lines."""

from __future__ import annotations

import argparse

from ..errors import CassError, UsageError, VerificationError

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "Parser", "format_error", "glue_flag_values"]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and a hint, like every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message, hint=f"see '{self.prog} --help'")


#: Options whose value is itself a compiler flag, such as ``--hip-flags -std=c++17``.
FLAG_VALUED = ("--hip-flags",)


def glue_flag_values(words: list[str]) -> list[str]:
    """``--hip-flags -O2`` as ``--hip-flags=-O2``: argparse takes a value that starts with
    '-' for an option of its own and rejects the pair, though nothing else could be meant."""
    glued: list[str] = []
    pending = False
    for word in words:
        if pending:
            glued[-1] += f"={word}"
            pending = False
        else:
            glued.append(word)
            pending = word in FLAG_VALUED
    return glued


def format_error(exc: CassError) -> str:
    if isinstance(exc, VerificationError):
        # CASS's own findings first: an unsupported API it flagged is usually the cause.
        lines = [*exc.diagnosis, str(exc), *(f"  note: {d}" for d in exc.details)]
    else:
        lines = [f"cass: error: {exc}"]
    if exc.hint:
        lines.append(f"cass: hint: {exc.hint}")
    return "\n".join(lines) + "\n"
