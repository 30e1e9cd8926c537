"""A row's ``legacy_note``: what its older-HIP stand-in does differently, reported as a
``cass-hip-version`` warning where the stand-in is emitted, and only there.

The rows under test are runtime.toml's device limits, which HIP 5.2 lacks (HIP 5.3 has
``hipDeviceSetLimit`` and ``hipLimitStackSize``); the tables' schema check is run on a
table file of our own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cass_build import Settings, translate
from cass_build.errors import TableError
from cass_build.rules.tables import load_family

SOURCE = """#include <cuda_runtime.h>
int limits(size_t* v) {
  cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20);
  return cudaDeviceGetLimit(v, cudaLimitStackSize);
}
"""


def hip_version_reports(version: tuple[int, int]) -> list[tuple[str, str, int]]:
    result = translate(SOURCE, path="limits.cu", options=Settings(hip_version=version))
    return [
        (d.severity, d.message, d.line) for d in result.diagnostics if d.rule == "cass-hip-version"
    ]


def test_the_stand_ins_are_reported_once_per_file_as_warnings() -> None:
    reports = hip_version_reports((5, 2))
    assert [(severity, line) for severity, _, line in reports] == [("warning", 3), ("warning", 3)]
    set_limit, stack = (message for _, message, _ in reports)
    assert set_limit.startswith("'cudaDeviceSetLimit' for HIP 5.2: no HIP before 5.3 sets")
    assert "hipErrorUnsupportedLimit" in set_limit
    assert stack.startswith("'cudaLimitStackSize' for HIP 5.2: HIP before 5.3 has no stack-size")


def test_newer_hip_gets_hips_names_and_no_report() -> None:
    assert hip_version_reports((5, 3)) == []
    text = translate(SOURCE, options=Settings(hip_version=(5, 3))).text
    assert "hipDeviceSetLimit(hipLimitStackSize, 4096)" in text
    assert "__cass_rt_" not in text


def test_a_legacy_note_needs_a_legacy_form(tmp_path: Path) -> None:
    table = tmp_path / "mine.toml"
    table.write_text(
        '[family]\nname = "mine"\ntitle = "Mine"\nhip_headers = ["hip/hip_runtime.h"]\n'
        '[[section]]\nname = "S"\nkind = "function"\nrows = [\n'
        '  { cuda = "cudaThing", hip = "hipThing", since = "6.0", legacy_note = "slower" },\n'
        "]\n"
    )
    with pytest.raises(TableError, match="cudaThing: 'legacy_note' needs 'legacy' and 'since'"):
        load_family(table)


def test_the_packed_table_in_the_cache_keeps_the_notes(tmp_path: Path) -> None:
    # The first process builds the core's table and stores it packed; the second loads
    # that blob. Both must report the notes, or a cached build step would lose them.
    import os
    import subprocess
    import sys

    script = (
        "from cass_build import Settings, translate\n"
        f"r = translate({SOURCE!r}, path='limits.cu', options=Settings(hip_version=(5, 2)))\n"
        "print(sorted(d.message for d in r.diagnostics if d.rule == 'cass-hip-version'))\n"
    )
    env = {**os.environ, "CASS_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert list((tmp_path / "cache").glob("core-table-*.bin"))
    assert runs[0].stdout == runs[1].stdout
    assert "hipErrorUnsupportedLimit" in runs[1].stdout
