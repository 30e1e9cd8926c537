"""The rule core's invariants (docs/fuzzing.md), checked on one input from Python:
the same checks the fuzz target (cpp/fuzz/core_fuzz.cpp) makes in C++."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from cass_build import _core
from cass_build.rules import core_table

__all__ = ["OPTIONS", "CoreOptions", "check_invariants"]

COMMENT = 1  # cass::TokenKind::Comment


@dataclass(frozen=True)
class CoreOptions:
    hip_version: int = 702
    ggl: bool = False
    rename_cu_includes: bool = False

    def run(self, data: bytes) -> tuple[bytes, list[tuple[int, ...]]]:
        options = _core.Options(
            hip_version=self.hip_version,
            ggl=self.ggl,
            rename_cu_includes=self.rename_cu_includes,
            cuda_arch=700,
            cuda_version=12080,
        )
        text, edits = _core.translate_edits(data, core_table(), options)
        return bytes(text), [tuple(e) for e in edits]


# Every HIP release the tables distinguish, both launch syntaxes.
OPTIONS = tuple(
    CoreOptions(hip, ggl, rename)
    for hip in (502, 600, 700, 702)
    for ggl, rename in ((False, False), (True, True))
)


def check_invariants(data: bytes, options: CoreOptions) -> bytes:
    """Check every invariant on `data`; returns the translation."""
    text, edits = options.run(data)
    boundaries = {0, len(data)}
    comments = []
    for begin, end, kind, _flags in _core.tokens(data):
        boundaries.update((begin, end))
        if kind == COMMENT:
            comments.append((begin, end))
    at = out = 0
    for begin, end, out_begin, out_end in edits:
        assert at <= begin <= end <= len(data), ("edits in order, in the input", edits)
        assert out_begin - out == begin - at, "bytes between edits are kept"
        assert data[at:begin] == text[out : out + begin - at], "bytes between edits are kept"
        assert begin in boundaries and end in boundaries, ("edit inside a token", begin, end)
        removed, added = data[begin:end], text[out_begin:out_end]
        assert removed.count(b"\n") == added.count(b"\n"), ("an edit changed lines", removed)
        for c_begin, c_end in comments:
            if begin <= c_begin and c_end <= end:
                assert data[c_begin:c_end] in added, ("an edit lost a comment", removed)
        at, out = end, out_end
    assert data[at:] == text[out:], "the bytes after the last edit are kept"
    assert text.count(b"\n") == data.count(b"\n"), "the output has the input's lines"
    # A pure function: again, and on other threads, the same bytes.
    assert options.run(data)[0] == text, "a second translation differs"
    with ThreadPoolExecutor(max_workers=2) as pool:
        for other in pool.map(lambda _: options.run(data)[0], range(2)):
            assert other == text, "a translation on another thread differs"
    assert options.run(text)[0] == text, "translating the output again changes it"
    return text
