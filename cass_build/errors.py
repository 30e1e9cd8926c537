"""The CASS error tree: one base class, narrow subclasses, one-line messages.

Each error's ``str()`` is the single line shown to users; ``hint`` is printed on
its own line below it.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .pipeline.failures import UntranslatedHeader

__all__ = [
    "CassError",
    "InputError",
    "OutputError",
    "ProcessError",
    "TableError",
    "ToolFailedError",
    "ToolchainError",
    "UsageError",
    "VerificationError",
]


class CassError(Exception):
    """Base of every error CASS raises on purpose."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint

    def __reduce__(self) -> tuple[object, ...]:
        # The message alone is in ``args``: the hint and the subclasses' fields travel
        # in the state, so that an error from a worker process arrives whole.
        return (self.__class__, (str(self),), self.__dict__)


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


class ToolFailedError(CassError):
    """A tool CASS ran (hipcc, a translator, the model) failed for a reason that is not
    about the source: it is missing, was killed, or exited without an error at any line.

    ``str()`` names the tool, its command and its first error line.
    """

    def __init__(
        self, message: str, *, hint: str = "", tool: str = "", command: str = "", what: str = ""
    ) -> None:
        super().__init__(message, hint=hint)
        self.tool = tool
        self.command = command
        self.what = what
        """What went wrong, without the file and command: ``exited with status 1: ...``."""


class VerificationError(CassError):
    """No candidate translation passed verification.

    ``str()`` is the first compiler error, pointing at the original source;
    ``details`` holds the other messages and why each strategy failed, and
    ``attempts`` each strategy's turn as the JSON report lists it. ``diagnosis`` holds
    CASS's own errors about the kept candidate (shown before the compiler's: they
    often are the cause), ``candidate`` that candidate's text, for a person to work on.
    """

    def __init__(
        self,
        message: str,
        *,
        hint: str = "",
        details: tuple[str, ...] = (),
        attempts: tuple[dict[str, object], ...] = (),
        cached: bool = False,
        diagnosis: tuple[str, ...] = (),
        candidate: bytes | None = None,
        untranslated: UntranslatedHeader | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.details = details
        self.attempts = attempts
        self.cached = cached
        """The failure was read from the cache: the same inputs failed before."""
        self.diagnosis = diagnosis
        self.candidate = candidate
        self.untranslated = untranslated
        """The first error is in a local header nothing translated (the hint names
        ``--mirror``; the CLI, which knows the output path, fills in its OUT_ROOT)."""


class ProcessError(ToolFailedError):
    """A tool run with ``_proc.run(..., check=True)`` exited non-zero: ``str()`` names it,
    its exit code and its first error line; ``command`` (the argv), ``returncode`` and
    ``output`` (stderr, then stdout) say the rest, as scikit-build-core's
    ``FailedProcessError`` does.
    """

    def __init__(
        self,
        message: str,
        *,
        argv: tuple[str, ...],
        returncode: int,
        output: str,
        hint: str = "",
    ) -> None:
        import shlex

        super().__init__(message, hint=hint, tool=argv[0], command=shlex.join(argv), what=message)
        self.argv = argv
        self.returncode = returncode
        self.output = output
