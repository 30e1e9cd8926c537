"""The habits that keep the code base workable: linters, types, format, a Python-free core."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CPP = sorted([*ROOT.glob("cpp/**/*.cpp"), *ROOT.glob("cpp/**/*.hpp"), *ROOT.glob("python/*.cpp")])


def _run(cmd: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def test_ruff_lint() -> None:
    proc = _run([sys.executable, "-m", "ruff", "check", "cass_build", "tests", "bench"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = _run([sys.executable, "-m", "ruff", "format", "--check", "cass_build", "tests", "bench"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict() -> None:
    proc = _run([sys.executable, "-m", "mypy"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="pip install clang-format")
def test_clang_format() -> None:
    proc = _run(["clang-format", "--dry-run", "--Werror", *map(str, CPP)])
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_core_never_includes_python() -> None:
    offenders = [p for p in ROOT.glob("cpp/**/*") if p.is_file() and "Python.h" in p.read_text()]
    assert not offenders


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("ninja") is None, reason="ninja is not installed")
def test_core_builds_and_passes_its_tests_without_python(tmp_path: Path) -> None:
    build = tmp_path / "build"
    configure = _run(
        ["cmake", "-S", "cpp", "-B", str(build), "-G", "Ninja", "-DCASS_BUILD_CORE_TESTS=ON"]
    )
    assert configure.returncode == 0, configure.stdout + configure.stderr
    compile_ = _run(["cmake", "--build", str(build)])
    assert compile_.returncode == 0, compile_.stdout + compile_.stderr
    assert "warning" not in compile_.stdout.lower()
    test = _run(["ctest", "--test-dir", str(build), "--output-on-failure"])
    assert test.returncode == 0, test.stdout
