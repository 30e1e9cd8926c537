"""cmake_parse_arguments(PARSE_ARGV ...) in the cass_ functions, under the real cmake -P.

tests/cmake/test_parse_args.cmake checks in CMake itself that an empty argument
keeps its place and an argument holding a ';' stays one source; here it runs, and
a misspelled keyword is shown to stop with its exact one-line message.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.build_helpers import CMAKE, CMAKE_325, ROOT, run

SCRIPT = ROOT / "tests" / "cmake" / "test_parse_args.cmake"
FUNCTIONS = ROOT / "cmake" / "CASSFunctions.cmake"
CMAKES = [c for c in dict.fromkeys([CMAKE, CMAKE_325]) if c]
pytestmark = pytest.mark.skipif(not CMAKES, reason="cmake is not installed (apt-get install cmake)")


def _script(cmake: str, *defs: str) -> subprocess.CompletedProcess[str]:
    return run([cmake, f"-DCASS_FUNCTIONS={FUNCTIONS}", *defs, "-P", str(SCRIPT)], ROOT)


@pytest.mark.parametrize("cmake", CMAKES)
def test_empty_and_semicolon_arguments_survive(cmake: str) -> None:
    proc = _script(cmake)
    assert proc.returncode == 0, proc.stderr
    assert "-- parse-args: ok" in proc.stdout
    assert "Warning" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("cmake", CMAKES)
def test_unknown_keyword_is_one_fatal_line(cmake: str) -> None:
    proc = _script(cmake, "-DCASE=unknown_keyword")
    assert proc.returncode != 0
    header, rest = proc.stderr.split(":\n", 1)
    assert header.startswith("CMake Error at ") and "CASSFunctions.cmake" in header
    body = rest.split("Call Stack")[0]
    # CMake wraps long messages; undone, it is exactly the one line.
    assert " ".join(body.split()) == (
        "cass_add_library: unknown keyword 'ARCHITECTUERS' (did you mean ARCHITECTURES?)"
    ), proc.stderr
