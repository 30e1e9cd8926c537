"""The synthesizer's idiom families of issue 21 and the identifier vocabulary."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cass_build.pipeline.toolchain import find_hip
from cass_build.train.dataset import _translate, compile_batches, data_settings
from cass_build.train.synth import _WEIGHTS, FAMILIES, synthesize
from cass_build.train.synth_idioms import IDIOM_FAMILIES
from tests.build_helpers import assert_nvcc_compiles

NEW = sorted(IDIOM_FAMILIES)
SEEDS = range(300, 306)
_KERNEL = re.compile(r"__global__ void (\w+)\(")


def test_idiom_families_are_registered_with_a_fair_share() -> None:
    total = sum(_WEIGHTS.values())
    for name in NEW:
        assert FAMILIES[name][1], "each idiom family has warp-size idioms"
        assert 0.04 <= _WEIGHTS[name] / total <= 0.065, name
    assert {"map", "warp_rows", "ballot_compact"} <= set(FAMILIES)  # nothing removed


def test_each_idiom_reaches_its_agnostic_form() -> None:
    for seed in SEEDS:
        p = synthesize(seed, "warp_items")
        assert "cudaDevAttrWarpSize" in p.agnostic or "prop.warpSize" in p.agnostic
        assert "cass-host-warp-count" in p.hazards

        p = synthesize(seed, "ballot_leader")
        assert "__ffs(" in p.naive or "__clz(" in p.naive
        assert "__ffsll(" in p.agnostic or "__clzll(" in p.agnostic
        assert "1ull <<" in p.agnostic and "1u <<" not in p.agnostic

        p = synthesize(seed, "match_peers")
        assert "__match_any_sync" in p.naive
        assert "__match_any_sync" not in p.agnostic  # HIP 5.2 has no match intrinsic
        assert "__ffsll(" in p.agnostic

        p = synthesize(seed, "ptx_lane")
        assert "%%laneid" in p.naive
        assert "asm" not in p.agnostic and "__lane_id" not in p.agnostic
        assert "% warpSize" in p.agnostic


def test_names_vary_and_are_the_same_in_both_forms() -> None:
    kernels: set[str] = set()
    for seed in range(120):
        p = synthesize(seed)
        mine = _KERNEL.findall(p.naive)
        assert mine == _KERNEL.findall(p.agnostic), p.name
        kernels.update(mine)
    # Prefixes, suffixes, abbreviations and snake case give many spellings.
    assert len(kernels) >= 80
    assert any(k.endswith(("Kernel", "_kernel")) for k in kernels)
    assert any("_" in k for k in kernels) and any(re.search(r"[a-z][A-Z]", k) for k in kernels)


def _hipcc_or_skip() -> None:
    if find_hip() is None:
        pytest.skip("hipcc not found (apt install hipcc libamdhip64-dev rocm-device-libs)")


@pytest.mark.slow
def test_idiom_targets_compile_for_gfx90a() -> None:
    _hipcc_or_skip()
    toolchain = find_hip()
    assert toolchain is not None
    programs: list[tuple[str, bytes]] = []
    for family in NEW:
        for seed in range(400, 404):
            hip, diags = _translate(synthesize(seed, family).agnostic.encode(), data_settings())
            assert not [d for d in diags if " error:" in str(d)], (family, seed)
            programs.append((f"cass_p{len(programs)}", hip))
    failed, _ = compile_batches(programs, toolchain, batch=len(programs), jobs=1)
    assert failed == {}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_idiom_sources_compile_with_nvcc(tmp_path: Path) -> None:
    programs: list[tuple[str, bytes]] = []
    for family in NEW:
        for seed in range(400, 403):
            p = synthesize(seed, family)
            programs.append((f"cass_p{len(programs)}", p.naive.encode()))
            programs.append((f"cass_p{len(programs)}", p.agnostic.encode()))
    assert_nvcc_compiles(programs, tmp_path)


def test_older_families_take_their_names_from_names() -> None:
    # warp_rows spelled `rows`, `cols` and `A` literally before; both forms still agree.
    spelled: set[str] = set()
    for seed in range(40):
        p = synthesize(seed, "warp_rows")
        head = re.search(
            r"__global__ void \w+\(const int\* (\w+), .*int (\w+), int (\w+)\)", p.naive
        )
        assert head is not None, p.name
        assert head.group(0) in p.agnostic
        spelled.add(head.group(1))
    assert len(spelled) >= 4


def test_ptx_lane_helper_is_never_named_like_its_variable() -> None:
    for seed in range(600):
        p = synthesize(seed, "ptx_lane")
        m = re.search(r"(\w+) (\w+) = (\w+)\(\);", p.agnostic)
        assert m is not None and m.group(2) != m.group(3), p.name


def test_a_renamed_copy_is_the_same_program_under_other_names() -> None:
    from cass_build.train.dataset import synth_files

    other = 0
    for seed in range(40):
        a = synthesize(seed)
        b = synthesize(seed, a.family, rename=1)
        assert b.name == a.name + "_r1" and b.hazards == a.hazards
        assert b.naive.count("\n__global__") == a.naive.count("\n__global__")
        assert b.naive.count("VERDICT: PASS") == 1
        other += _KERNEL.findall(a.naive) != _KERNEL.findall(b.naive)
    assert other >= 30
    files = synth_files(60, 3)
    copies = [f for f in files if f.file_id.endswith("_r1")]
    assert 3 <= len(copies) <= 25 and all(f.labels for f in copies)


@pytest.mark.slow
def test_renamed_targets_compile_for_gfx90a() -> None:
    _hipcc_or_skip()
    toolchain = find_hip()
    assert toolchain is not None
    programs: list[tuple[str, bytes]] = []
    for family in sorted(FAMILIES):
        if FAMILIES[family][1]:
            p = synthesize(500, family, rename=1)
            hip, _ = _translate(p.agnostic.encode(), data_settings())
            programs.append((f"cass_p{len(programs)}", hip))
    failed, _ = compile_batches(programs, toolchain, batch=len(programs), jobs=1)
    assert failed == {}
