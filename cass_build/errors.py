"""The CASS error tree: one base class, narrow subclasses, one-line messages.

Each error's ``str()`` is the single line shown to users; ``hint`` is printed on
its own line below it.
"""

from __future__ import annotations

__all__ = [
    "CassError",
    "InputError",
    "OutputError",
    "ProcessError",
    "TableError",
    "ToolchainError",
    "UsageError",
    "VerificationError",
]


class CassError(Exception):
    """Base of every error CASS raises on purpose."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class TableError(CassError):
    """A mapping table under ``cass_build/data`` is malformed."""


class InputError(CassError):
    """A source file cannot be read or is not CUDA text (binary, non-UTF-8, too big)."""


class OutputError(CassError):
    """An output cannot be written, or would overwrite an input."""


class UsageError(CassError):
    """The command line or options are inconsistent."""


class ToolchainError(CassError):
    """A tool CASS needs (hipcc, nvcc, a GPU) is missing; the hint says how to install it."""


class VerificationError(CassError):
    """No candidate translation passed verification.

    ``str()`` is the first compiler error, pointing at the original source;
    ``details`` holds the other messages and why each strategy failed.
    """

    def __init__(self, message: str, *, hint: str = "", details: tuple[str, ...] = ()) -> None:
        super().__init__(message, hint=hint)
        self.details = details


class ProcessError(CassError):
    """A tool CASS ran failed: ``str()`` names it, its exit code and its first error line.

    ``command``, ``returncode`` and ``output`` (stderr, then stdout) say the rest, as
    scikit-build-core's ``FailedProcessError`` does.
    """

    def __init__(
        self,
        message: str,
        *,
        command: tuple[str, ...],
        returncode: int,
        output: str,
        hint: str = "",
    ) -> None:
        super().__init__(message, hint=hint)
        self.command = command
        self.returncode = returncode
        self.output = output
