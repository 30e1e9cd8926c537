"""The public translation API: ``translate`` and ``translate_file``, with the rule tables.

``Translation`` is the one result type: ``cass_build.pipeline.translate_file`` returns
its subclass ``Result``, the same translation with how it was verified.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from ._files import check_ascii, check_source, read_source
from .errors import InputError
from .rules.diagnostics import Diagnostic, rule
from .rules.stats import Stats
from .settings import Settings

__all__ = ["Translation", "translate", "translate_file"]


@dataclass(frozen=True)
class Translation:
    """HIP text translated from one CUDA source, with what was found on the way."""

    data: bytes
    """The HIP source as UTF-8 bytes, ready to write."""
    diagnostics: tuple[Diagnostic, ...]
    stats: Stats
    path: str = "<string>"
    strategy: str = "rules"

    @functools.cached_property
    def text(self) -> str:
        """The HIP source (decoded on first use: writers take ``data`` as it is)."""
        return self.data.decode("utf-8", errors="surrogateescape")

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(d.severity == "warning" for d in self.diagnostics)


# What bytes.isspace() counts as blank; str.isspace() also counts \x1c-\x1f.
_NOT_BLANK_IN_BYTES = ("\x1c", "\x1d", "\x1e", "\x1f")


def _blank(source: bytes | str) -> bool:
    """Whether the source is empty or only blanks, as bytes see it (an ASCII str is
    its bytes; ``isspace`` stops at the first character that is not one)."""
    if isinstance(source, bytes):
        return not source or source.isspace()
    return not source or (source.isspace() and not any(c in source for c in _NOT_BLANK_IN_BYTES))


def _finish(source: bytes | str, path: str, settings: Settings) -> Translation:
    """The rule translation of UTF-8 bytes, or of a str of ASCII characters (read by
    the core where it lies, no encoded copy): the output is made once, in the bytes
    object returned, with the --warp cuda header put in front there."""
    from .rules import translate_bytes

    result = translate_bytes(source, path, settings, warp_header=True)
    diagnostics = tuple(result.diagnostics)
    if _blank(source):
        diagnostics = (rule("empty-input").at(path, 1, 1), *diagnostics)
    return Translation(data=result.data, diagnostics=diagnostics, stats=result.stats, path=path)


def translate(
    source: str, *, path: str | None = None, options: Settings | None = None
) -> Translation:
    """Translate CUDA source text to HIP with the rule tables."""
    settings = options or Settings.from_env()
    name = path or "<string>"
    if source.isascii():  # a flag of the str: no scan
        check_ascii(source, name, settings.max_bytes)
        return _finish(source, name, settings)
    try:
        # Text that encodes strictly is UTF-8 by construction: only its size and NUL
        # bytes need checking, not a decode of the whole of it again (the cost that grew
        # fastest with the input's size).
        data = source.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        check_source(data, name, settings.max_bytes, decoded=True)
        return _finish(data, name, settings)
    try:
        data = source.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as exc:  # a lone surrogate that no byte decodes to
        start = source.rfind("\n", 0, exc.start) + 1
        line = source.count("\n", 0, exc.start) + 1
        column = len(source[start : exc.start].encode("utf-8", "surrogateescape")) + 1
        code = ord(source[exc.start])
        msg = f"{name}:{line}:{column}: not UTF-8 text (lone surrogate U+{code:04X})"
        raise InputError(msg, hint="pass text decoded from UTF-8") from None
    check_source(data, name, settings.max_bytes)
    return _finish(data, name, settings)


def translate_file(path: str | Path, *, options: Settings | None = None) -> Translation:
    """Read and translate one CUDA source file; the file itself is never modified."""
    settings = options or Settings.from_env()
    p = Path(path)
    data, _ = read_source(p, settings.max_bytes)
    return _finish(data, str(path), settings)
