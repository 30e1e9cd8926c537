"""Properties of the core over arbitrary input: byte preservation and idempotence."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cass_build import _core
from cass_build.rules import core_table

# CI runs a fixed set of examples so a submission's result does not depend on luck;
# local runs keep exploring new ones.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

EMPTY = _core.Table([], [])


@pytest.fixture(scope="module", autouse=True)
def _full_table() -> None:
    """Built before any example runs: a cold build (an empty cache) takes longer than
    Hypothesis gives one example."""
    core_table()


HIP = 702

# Fragments that stress the lexer and the rewriter together.
FRAGMENTS = [
    "cudaMalloc",
    "cudaMemcpy(",
    "__shfl_down_sync(0xffffffff, v, 16)",
    "__syncwarp()",
    "#include <cuda_runtime.h>\n",
    "#include <cuda.h>\n",
    '#include "k.cu"\n',
    "#if ",
    "#ifdef __CUDA_ARCH__\n",
    "#endif\n",
    "defined(__CUDACC__)",
    "CUDART_VERSION",
    "k<<<",
    ">>>",
    ">>",
    "<",
    ">",
    "(",
    ")",
    "{",
    "}",
    ",",
    ";",
    " ",
    "\n",
    "\\\n",
    "//",
    "/*",
    "*/",
    '"',
    "'",
    'R"x(',
    ')x"',
    'u8"',
    "L'",
    "0x1.8p3",
    "1'000",
    "threadIdx.x & 31",
    "__ballot_sync(",
    "unsigned m = ",
    "cub::",
    "asm(",
    "warpSize",
    "texture<",
    "é",
    "\r\n",
    "cudaMemPrefetchAsync(p, n, {cudaMemLocationTypeDevice, 0}, 0, s)",
    "cudaStream_t",
    "HIP_SYMBOL(",
    "cudaMemcpyToSymbol(c, &x, 4)",
    "cudaFuncSetAttribute(k, a, 1)",
    "\t",
]

cuda_like = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
any_bytes = st.binary(max_size=300)


def run(data: bytes, table: object, ggl: bool = False) -> bytes:
    options = _core.Options(hip_version=HIP, ggl=ggl, cuda_arch=700, cuda_version=12080)
    text, _diags, _stats, _lines = _core.translate(data, table, options)
    return bytes(text)


@given(any_bytes)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_empty_table_preserves_any_bytes(data: bytes) -> None:
    assert run(data, EMPTY) == data


@given(cuda_like)
@settings(max_examples=400)
def test_empty_table_preserves_cuda_like_text(text: str) -> None:
    data = text.encode()
    assert run(data, EMPTY) == data


BLANK_GAP = re.compile(rb"(?:[ \t\r\f\v]|\\\r?\n)*")


@given(any_bytes)
@settings(max_examples=300)
def test_tokens_and_blank_gaps_cover_every_byte(data: bytes) -> None:
    # A UTF-8 byte order mark at the very start is skipped like a blank.
    at = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    for begin, end, _kind, _flags in _core.tokens(data):
        assert begin >= at and end > begin
        assert BLANK_GAP.fullmatch(data[at:begin]), data[at:begin]
        at = end
    assert BLANK_GAP.fullmatch(data[at:])


@given(cuda_like, st.booleans())
@settings(max_examples=400)
def test_translation_is_idempotent(text: str, ggl: bool) -> None:
    table = core_table()
    once = run(text.encode(), table, ggl)
    assert run(once, table, ggl) == once


@given(cuda_like)
@settings(max_examples=200)
def test_line_count_is_kept(text: str) -> None:
    data = text.encode()
    assert run(data, core_table()).count(b"\n") == data.count(b"\n")


@given(any_bytes)
# No deadline: the first example may build the full table (thousands of rows) in a fresh cache.
@settings(max_examples=200, deadline=None)
def test_full_table_keeps_every_line_of_any_bytes(data: bytes) -> None:
    """Whatever the bytes, the full table translates them (no crash) and no edit adds or
    removes a line, so compiler errors on the output point at the input's lines."""
    out = run(data, core_table())
    assert out.count(b"\n") == data.count(b"\n")


def test_core_rows_build_entries_field_by_field() -> None:
    """core_table builds Entry objects positionally from the cached rows: each row's
    values land in the fields _ENTRY_FIELDS names, and Options keeps what it is given."""
    from cass_build.rules import _ENTRY_FIELDS, _core_input

    rows, _families = _core_input()
    for row in (rows[0], rows[-1], next(r for r in rows if r[10] or r[11])):
        entry = _core.Entry(*row)
        assert tuple(getattr(entry, name) for name in _ENTRY_FIELDS) == tuple(row)
        assert _core.Entry(**dict(zip(_ENTRY_FIELDS, row, strict=True))).cuda == row[0]
    options = _core.Options(hip_version=600, ggl=True, cuda_version=11080, hazard_fixes=False)
    assert (options.hip_version, options.ggl, options.cuda_version) == (600, True, 11080)
    assert (options.rename_cu_includes, options.cuda_arch, options.hazard_fixes) == (
        False,
        700,
        False,
    )
