"""The wheel: its exact contents, and a clean install that runs `cass`."""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from cass_build.model import FILES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "warp_reduce" / "warp_reduce.cu"
CMAKE_FILES = {
    f"cass_build/share/cmake/CASS/{name}"
    for name in (
        "CASSConfig.cmake",
        "CASSConfigVersion.cmake",
        "CASSFunctions.cmake",
        "zero_edit.cmake",
    )
}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        str(ROOT),
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(out),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (found,) = out.glob("cass_build-*.whl")
    return found


def _clean_install(wheel: Path, tmp_path: Path) -> Path:
    """A fresh venv under ``tmp_path`` (no system site-packages) with only the wheel
    installed in it; returns the venv's directory."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    pip = [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", str(wheel)]
    proc = subprocess.run(pip, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return env_dir


@pytest.mark.slow
def test_wheel_holds_exactly_the_package(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {n for n in names if n.startswith("cass_build/")}
    tables = {p.name for p in (ROOT / "cass_build" / "data").glob("*.toml")}
    expected_py = {
        f"cass_build/{p.relative_to(ROOT / 'cass_build').as_posix()}"
        for p in (ROOT / "cass_build").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert expected_py <= package
    assert {f"cass_build/data/{t}" for t in tables} <= package
    assert any(n.startswith("cass_build/_core") and n.endswith(".so") for n in package)
    assert "cass_build/data/tables.marshal" in package  # the tables as the build parsed them
    packed = {n for n in package if n.startswith("cass_build/data/core-table-")}
    assert len(packed) == 2, packed  # and packed for the core, for each row encoding
    assert package >= CMAKE_FILES
    model_files = {f"cass_build/models/{n}" for n in (*FILES, "MODEL.md")}
    assert package >= model_files, "the shipped model must be in the wheel"
    headers = {
        f"cass_build/{p.relative_to(ROOT / 'cass_build').as_posix()}"
        for p in (ROOT / "cass_build" / "include").rglob("*")
        if p.is_file()
    }
    shipped = {f"cass_build/include/cass/{h}" for h in ("warp.h", "cooperative_groups.h")}
    assert shipped <= headers
    assert package >= headers, "the headers translations include must be in the wheel"
    unexpected = {
        n
        for n in package
        if n not in expected_py
        and n not in CMAKE_FILES
        and n not in model_files
        and n not in headers
        and not n.startswith(("cass_build/data/", "cass_build/_core", "cass_build/toolkit/"))
        and n != "cass_build/libexec/cass-nvcc-client"
    }
    assert not unexpected, unexpected
    toolkit = {
        f"cass_build/{p.relative_to(ROOT / 'cass_build').as_posix()}"
        for p in (ROOT / "cass_build" / "toolkit").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.name not in (".python", ".client")
    }
    assert toolkit <= package, sorted(toolkit - package)[:5]
    assert "cass_build/toolkit/bin/.python" not in package
    # bin/nvcc is run by path (CMake, make): the executable bit must survive the wheel.
    mode = zipfile.ZipFile(wheel).getinfo("cass_build/toolkit/bin/nvcc").external_attr >> 16
    assert mode & 0o111, oct(mode)
    # ... and so must the translation server's client, which bin/nvcc runs beside it.
    client = zipfile.ZipFile(wheel).getinfo("cass_build/libexec/cass-nvcc-client")
    assert (client.external_attr >> 16) & 0o111
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    entry_points = zipfile.ZipFile(wheel).read(entry).decode()
    assert "cass = cass_build.__main__:run" in entry_points
    # scikit-build-core reads this group and sets CASS_ROOT to the package directory.
    assert "[cmake.root]\nCASS = cass_build" in entry_points


@pytest.mark.slow
def test_clean_install_translates(wheel: Path, tmp_path: Path) -> None:
    env_dir = _clean_install(wheel, tmp_path)
    out = tmp_path / "warp_reduce.hip"
    run = subprocess.run(
        [str(env_dir / "bin" / "cass"), "translate", str(EXAMPLE), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "hipMalloc" in text and "__cass_shfl_down_sync" in text, text[:400]
    assert "[cass-warp-lane-arith]" in run.stderr, run.stderr


@pytest.mark.slow
def test_clean_install_runs_the_stand_in_nvcc_unactivated(wheel: Path, tmp_path: Path) -> None:
    """The wheel layout names the interpreter: bin/nvcc needs no activated venv and
    writes no record beside itself."""
    env_dir = _clean_install(wheel, tmp_path)
    python = str(env_dir / "bin" / "python")
    env_out = subprocess.run(
        [python, "-m", "cass_build", "env"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    cudacxx = next(w for w in env_out.split() if w.startswith("CUDACXX="))
    nvcc = Path(cudacxx.removeprefix("CUDACXX="))
    assert str(env_dir) in str(nvcc)
    # The call starts a translation server under HOME's cache: let it go soon after.
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CASS_NVCC_SERVER_IDLE": "5"}
    version = subprocess.run(
        [str(nvcc), "--version"],
        capture_output=True,
        text=True,
        env=bare,
        cwd=tmp_path,
        check=False,
    )
    assert version.returncode == 0, version.stderr
    assert "V12.8.0" in version.stdout
    assert not (nvcc.parent / ".python").exists()
    assert not (nvcc.parent / ".client").exists()  # the layout names the client too


@pytest.mark.slow
def test_clean_install_has_the_cmake_package(wheel: Path, tmp_path: Path) -> None:
    env_dir = _clean_install(wheel, tmp_path)
    python = str(env_dir / "bin" / "python")
    code = (
        "import importlib.resources as r, cass_build; "
        "print(cass_build.get_cmake_dir()); print(r.files(cass_build) / 'share/cmake/CASS')"
    )
    # cwd: away from the checkout, whose cass_build would shadow the installed one.
    out = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    from_api, from_entry_point = out.stdout.split()
    assert from_api == from_entry_point
    assert Path(from_api, "CASSConfig.cmake").is_file()
    assert str(env_dir) in from_api
    cmakedir = subprocess.run(
        [str(env_dir / "bin" / "cass"), "--cmakedir"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert cmakedir.stdout.strip() == from_api
