"""What every ``cass`` subcommand shares: exit codes, the parser class, error lines."""

from __future__ import annotations

import argparse

from ..errors import CassError, UsageError, VerificationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "EXIT_FINDINGS",
    "EXIT_OK",
    "EXIT_USAGE",
    "HelpFormatter",
    "Parser",
    "format_error",
    "glue_flag_values",
    "is_complete",
    "mark_complete",
]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

_complete = False


def mark_complete() -> None:
    """Says that the command has written and closed everything it writes (its outputs and
    its report renamed into place, its messages written): the ``cass`` program may end the
    process without the interpreter's teardown (``__main__.exit_at_once``)."""
    global _complete
    _complete = True


def is_complete() -> bool:
    """Whether ``mark_complete`` was called in this process."""
    return _complete


class HelpFormatter(argparse.HelpFormatter):
    """argparse's, with the terminal's width looked up when help is written: argparse
    makes a formatter for every ``add_argument`` (to check its metavar), and the look-up
    imports shutil (bz2, lzma), which ``cass translate`` needs nowhere else."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        self._given = (indent_increment, max_help_position, width)
        self._sizes: tuple[int, int] | None = None
        super().__init__(prog, indent_increment, max_help_position, width=0)  # see _size

    def _size(self) -> tuple[int, int]:
        """argparse's width and help position, on first use."""
        if self._sizes is None:
            indent, position, width = self._given
            if width is None:
                import shutil

                width = shutil.get_terminal_size().columns - 2
            self._sizes = (width, min(position, max(width - 20, indent * 2)))
        return self._sizes

    @property
    def _width(self) -> int:
        return self._size()[0]

    @_width.setter
    def _width(self, _: int) -> None:
        pass  # argparse's __init__ sets it; _size has the answer

    @property
    def _max_help_position(self) -> int:
        return self._size()[1]

    @_max_help_position.setter
    def _max_help_position(self, _: int) -> None:
        pass


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and a hint, like every other error; help formatted by
    :class:`HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

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
