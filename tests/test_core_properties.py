"""Issue 16's invariants over generated CUDA-token soups, at the Python API.

`cass_build.translate` must be a pure function of (source, settings), on any thread and
after any earlier translation; keep the line count; and give its own output back
unchanged. The core's edits must leave every byte outside them (tests/core_invariants.py).
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cass_build
from cass_build.settings import Settings
from tests.core_invariants import OPTIONS, CoreOptions, check_invariants
from tests.soup import NAMES, PIECES, soup

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

soups = st.lists(st.sampled_from(PIECES + NAMES), max_size=60).map(" ".join)
api_settings = st.builds(
    Settings,
    hip_version=st.sampled_from([(5, 2), (6, 0), (7, 0), (7, 2)]),
    launch_syntax=st.sampled_from(["chevrons", "ggl"]),
    rename_cu_includes=st.booleans(),
    warp=st.sampled_from(["cuda", "native"]),
)

# What --warp cuda puts before a translation that calls <cass/warp.h>: the include and a
# #line 1, so every line of the source keeps its number.
_WARP_PROLOGUE = re.compile(r"\A#include <cass/(warp|cooperative_groups)\.h>\n#line 1\n")


def _text(source: str, options: Settings) -> str:
    return cass_build.translate(source, path="soup.cu", options=options).text


@given(soups, api_settings)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
def test_translate_is_pure_total_and_idempotent(source: str, options: Settings) -> None:
    first = _text(source, options)
    body = _WARP_PROLOGUE.sub("", first, count=1)
    assert body.count("\n") == source.count("\n")
    assert (body != first) == (options.warp == "cuda" and "__cass_" in body)
    # Earlier calls (another soup) and other threads change nothing.
    _text(soup(len(source)).decode(), options)
    with ThreadPoolExecutor(max_workers=3) as pool:
        assert set(pool.map(lambda _: _text(source, options), range(3))) == {first}
    assert _text(first, options) == first


@given(soups, st.sampled_from(OPTIONS))
@settings(max_examples=300, deadline=None)
def test_core_edits_keep_every_other_byte(source: str, options: CoreOptions) -> None:
    check_invariants(source.encode(), options)


def test_seeded_soups_keep_the_invariants() -> None:
    # The generator's first 200 soups: 34 of 300 crashed the core before issue 16.
    for seed in range(200):
        data = soup(seed)
        for options in OPTIONS[::3]:
            check_invariants(data, options)
