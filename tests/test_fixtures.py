"""Fixture programs: golden translations, and real hipcc builds for AMD targets.

Every fixture is translated and compared with its golden. Those whose HIP
libraries are installable here are compiled and linked with the real hipcc for
gfx90a and gfx1030; the rest are skipped with the reason in their header.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cass_build import Settings, include_dir, translate_file

from .fixture_programs import (
    ARCHS,
    GOLDEN,
    PROGRAMS,
    Fixture,
    golden_pair,
    hip_env,
    hipcc,
    load_fixtures,
)

FIXTURES = load_fixtures()
ids = [f.name for f in FIXTURES]


def test_there_are_enough_fixtures() -> None:
    assert len(FIXTURES) >= 80
    families = {fam for f in FIXTURES for fam in f.directives.get("FAMILIES", "").split()}
    assert {
        "runtime",
        "device",
        "math",
        "fp16",
        "cooperative_groups",
        "cublas",
        "curand",
        "cufft",
        "cusparse",
        "cusolver",
        "cub",
        "thrust",
    } <= families
    assert sum(bool(f.directives.get("HAZARDS")) for f in FIXTURES) >= 27


def test_goldens_show_every_hazard() -> None:
    """Each hazard CASS scans for fires on at least one real program."""
    seen = "".join(p.read_text(encoding="utf-8") for p in GOLDEN.glob("*.diag"))
    hazards = {
        "warp-mask", "warp-mask32", "warp-lane-arith", "warp-size-literal", "lane-mask-width",
        "ballot-width", "shfl-width", "shfl-offset", "inline-ptx", "texture-reference",
        "cuda-arch", "cuda-version", "unsupported-api", "hip-version", "behavior-differs",
    }  # fmt: skip
    assert {h for h in hazards if f"[cass-{h}]" not in seen} == set()


@pytest.mark.parametrize("fixture", FIXTURES, ids=ids)
def test_golden_translation(fixture: Fixture) -> None:
    for source in [fixture.path, *fixture.headers]:
        text, diags = golden_pair(source)
        suffix = ".hip" if source.suffix == ".cu" else ".cuh"
        golden = GOLDEN / f"{source.stem}{suffix}"
        assert golden.exists(), f"no golden for {source.name}: run python tests/update_goldens.py"
        assert text == golden.read_text(encoding="utf-8"), f"{source.name}: translation changed"
        expected = (GOLDEN / f"{source.name}.diag").read_text(encoding="utf-8")
        assert diags == expected, f"{source.name}: diagnostics changed"


@pytest.mark.parametrize("fixture", FIXTURES, ids=ids)
def test_errors_are_declared(fixture: Fixture) -> None:
    """A fixture CASS cannot translate for Debian's HIP says so in its header."""
    translation = translate_file(fixture.path, options=Settings(hip_version=(5, 2)))
    if any(d.severity == "error" for d in translation.diagnostics):
        assert fixture.directives.get("NO-AMD-COMPILE") or "hip-" in fixture.directives.get(
            "REQUIRES", ""
        ), [str(d) for d in translation.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("fixture", FIXTURES, ids=ids)
def test_translation_is_a_fixed_point(fixture: Fixture, tmp_path: Path) -> None:
    once = translate_file(fixture.path, options=Settings(hip_version=(5, 2))).text
    again = tmp_path / "again.hip"
    again.write_text(once, encoding="utf-8")
    assert translate_file(again, options=Settings(hip_version=(5, 2))).text == once


@pytest.mark.slow
@pytest.mark.skipif(hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize("fixture", FIXTURES, ids=ids)
def test_translation_compiles_for_amd(fixture: Fixture, tmp_path: Path) -> None:
    reason = fixture.missing_requirement()
    if reason:
        pytest.skip(reason)
    settings = Settings()  # the installed HIP's version
    for header in fixture.headers:
        (tmp_path / header.name).write_text(translate_file(header, options=settings).text)
    translation = translate_file(fixture.path, options=settings)
    errors = [str(d) for d in translation.diagnostics if d.severity == "error"]
    assert not errors, "CASS reports errors for a fixture declared to compile here:\n" + "\n".join(
        errors
    )
    source = tmp_path / f"{fixture.name}.hip"
    source.write_text(translation.text, encoding="utf-8")
    cmd = [
        hipcc() or "hipcc",
        "-std=c++17",
        "-w",
        f"-I{include_dir()}",  # <cass/warp.h>: the default --warp cuda
        *(f"--offload-arch={a}" for a in ARCHS),
        str(source),
        "-o",
        str(tmp_path / fixture.name),
    ]
    cmd += fixture.directives.get("LINK", "").split()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=hip_env(), check=False)
    assert proc.returncode == 0, f"hipcc failed:\n{' '.join(cmd)}\n{proc.stderr[-4000:]}"
    assert (tmp_path / fixture.name).stat().st_size > 0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("fixture", FIXTURES, ids=ids)
def test_original_compiles_with_nvcc(fixture: Fixture, tmp_path: Path) -> None:
    """The fixtures are real CUDA: nvcc accepts them (device code only, no GPU needed)."""
    mode = fixture.directives.get("NVCC", "yes")
    if mode.startswith("no"):
        pytest.skip(f"not for nvcc: {mode}")
    cmd = [
        "nvcc",
        "-std=c++17",
        "-arch=sm_90",
        "-c",
        str(fixture.path),
        "-I",
        str(PROGRAMS),
        "-o",
        str(tmp_path / "x.o"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"nvcc failed:\n{proc.stderr[-3000:]}"
