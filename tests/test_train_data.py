"""The model's data: synthesizer, splits, contamination check, licences, verification."""

from __future__ import annotations

import gzip
import itertools
import json
import shutil
from pathlib import Path

import pytest

from cass_build import translate
from cass_build.model.units import split_units
from cass_build.pipeline.toolchain import find_hip
from cass_build.runcheck.bench import discover
from cass_build.train.dataset import (
    build,
    compile_batches,
    contamination,
    reference_units,
    split_of,
)
from cass_build.train.sdist import classify_licence, licence_of
from cass_build.train.synth import FAMILIES, synthesize
from tests.build_helpers import assert_nvcc_compiles

ROOT = Path(__file__).resolve().parents[1]
HAZARD_FAMILIES = [name for name, (_, hazard) in FAMILIES.items() if hazard]


def _decls(text: str) -> list[bytes]:
    data = text.encode("latin-1")
    return [data[s.start : s.end] for s in split_units(data) if s.kind == "decl"]


def test_synthesizer_is_deterministic_per_seed() -> None:
    for seed in range(40):
        a, b = synthesize(seed), synthesize(seed)
        assert (a.name, a.naive, a.agnostic, a.hazards) == (b.name, b.naive, b.agnostic, b.hazards)
    texts = {synthesize(seed).naive for seed in range(40)}
    assert len(texts) == 40


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_both_forms_align_unit_for_unit(family: str) -> None:
    for seed in range(6):
        p = synthesize(seed, family)
        naive, agnostic = _decls(p.naive), _decls(p.agnostic)
        assert len(naive) == len(agnostic) >= 2
        assert p.naive.count("VERDICT: PASS") == 1
        if family in HAZARD_FAMILIES:
            assert p.hazards, "a naive form must carry a warp-size idiom"
            assert naive != agnostic
            assert "warpSize" in p.agnostic
            assert "& 31" not in p.agnostic and "__popc(" not in p.agnostic
        else:
            assert p.naive == p.agnostic and not p.hazards


def test_family_forced_or_drawn_gives_the_same_program_style() -> None:
    # Forcing a family must not shift the rest of the draws, or reruns would not match.
    drawn = synthesize(7)
    forced = synthesize(7, drawn.family)
    assert forced.naive == drawn.naive


def test_splits_are_by_file_and_seeded() -> None:
    ids = [f"synth_{i:06d}" for i in range(4000)]
    splits = [split_of(i, 0) for i in ids]
    assert splits == [split_of(i, 0) for i in ids]
    share = {s: splits.count(s) / len(ids) for s in ("train", "valid", "test")}
    assert 0.87 < share["train"] < 0.93
    assert 0.03 < share["valid"] < 0.07 and 0.03 < share["test"] < 0.07
    assert splits != [split_of(i, 1) for i in ids]


def test_dedup_catches_a_planted_bench_unit() -> None:
    ref = reference_units(ROOT)
    data = (ROOT / "bench/programs/histogram_warp_aggregated/main.cu").read_bytes()
    kernels = [
        data[s.start : s.end].decode("latin-1")
        for s in split_units(data)
        if s.kind == "decl" and b"__global__" in data[s.start : s.end]
    ]
    planted = kernels[0]
    hit = contamination({"id": "x", "cuda": planted, "hip": "int x;"}, ref)
    assert hit is not None and hit["kind"] == "exact"
    assert hit["match"].startswith("bench/programs/histogram_warp_aggregated/main.cu")
    # Reformatted, one statement dropped: no longer equal, still a near duplicate.
    lines = planted.splitlines()
    edited = "\n".join(" ".join(ln.split()) for ln in lines[:-3] + lines[-2:])
    assert edited.split() != planted.split()
    hit = contamination({"id": "x", "cuda": "int x;", "hip": edited}, ref)
    assert hit is not None and hit["kind"] == "near" and hit["field"] == "hip"
    assert hit["jaccard"] >= 0.8
    # A wave64 test fixture is excluded too.
    fixture = (ROOT / "tests/fixtures/wave64/ballot32.cu").read_bytes()
    unit = next(
        fixture[s.start : s.end].decode("latin-1")
        for s in split_units(fixture)
        if s.kind == "decl" and b"__global__" in fixture[s.start : s.end]
    )
    assert contamination({"id": "x", "cuda": unit, "hip": ""}, ref) is not None
    # Synthesized kernels are not flagged.
    for seed in range(10):
        p = synthesize(seed)
        for d in _decls(p.naive):
            if b"__global__" in d:
                text = d.decode("latin-1")
                assert contamination({"id": "s", "cuda": text, "hip": text}, ref) is None


def test_licences() -> None:
    mit = "Metadata-Version: 2.1\nName: p\nClassifier: License :: OSI Approved :: MIT License\n"
    assert licence_of(mit, {})[0] == "MIT"
    assert licence_of("License-Expression: Apache-2.0\n", {})[0] == "Apache-2.0"
    assert licence_of("Classifier: License :: OSI Approved :: BSD License\n", {})[0] == "BSD"
    gpl = "Classifier: License :: OSI Approved :: GNU General Public License v3 (GPLv3)\n"
    assert licence_of(gpl, {})[0] is None
    assert licence_of(mit + gpl, {})[0] is None  # any copyleft voice rejects the package
    assert licence_of("License-Expression: GPL-3.0-or-later\n", {})[0] is None
    assert licence_of("License: UNKNOWN\n", {})[0] is None
    gpl_file = {"LICENSE": "GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n"}
    assert licence_of("Name: p\n", gpl_file)[0] is None
    mit_file = {"LICENSE": "MIT License\n\nPermission is hereby granted, free of charge, ..."}
    assert licence_of("Name: p\n", mit_file)[0] == "MIT"
    assert classify_licence("Mozilla Public License 2.0") is None
    assert classify_licence("Proprietary") is None


def _hipcc_or_skip() -> None:
    if find_hip() is None:
        pytest.skip("hipcc not found (apt install hipcc libamdhip64-dev rocm-device-libs)")


@pytest.mark.slow
def test_both_forms_of_every_hazard_family_compile_for_gfx90a() -> None:
    _hipcc_or_skip()
    toolchain = find_hip()
    assert toolchain is not None
    programs: list[tuple[str, bytes]] = []
    for i, family in enumerate(HAZARD_FAMILIES):
        p = synthesize(100 + i, family)
        for form in ("naive", "agnostic"):
            hip = translate(getattr(p, form), path=f"{p.name}.cu").data
            programs.append((f"cass_p{len(programs)}", hip))
    failed, stats = compile_batches(programs, toolchain, batch=len(programs), jobs=1)
    assert failed == {}
    assert stats["compiles"] == 1


@pytest.mark.slow
def test_a_broken_program_is_found_in_its_batch() -> None:
    _hipcc_or_skip()
    toolchain = find_hip()
    assert toolchain is not None
    good = [translate(synthesize(s).agnostic, path="p.cu").data for s in range(5)]
    bad = good[2].replace(b"__global__", b"__global__ void broken() { undeclared; }\n__global__", 1)
    programs = [(f"cass_p{i}", d) for i, d in enumerate([*good[:2], bad, *good[3:]])]
    failed, stats = compile_batches(programs, toolchain, batch=5, jobs=1)
    assert set(failed) == {"cass_p2"}
    assert "undeclared" in failed["cass_p2"]
    assert stats["compiles"] == 2  # the batch, then the four that are left


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_both_forms_compile_with_nvcc(tmp_path: Path) -> None:
    programs = []
    for i, family in enumerate(sorted(FAMILIES)):
        p = synthesize(200 + i, family)
        programs.append((f"cass_p{2 * i}", p.naive.encode()))
        programs.append((f"cass_p{2 * i + 1}", p.agnostic.encode()))
    assert_nvcc_compiles(programs, tmp_path)


@pytest.mark.slow
def test_small_build(tmp_path: Path) -> None:
    _hipcc_or_skip()
    out = tmp_path / "data"
    manifest = build(out, seed=3, synth=60, sdist=False, jobs=2, batch=30, log=lambda s: None)
    assert (out / "READY").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["data"]  # no temporary folder left
    files: dict[str, set[str]] = {}
    hazards = 0
    total = 0
    for split in ("train", "valid", "test"):
        with gzip.open(out / f"{split}.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                files.setdefault(r["file"], set()).add(split)
                assert set(r) == {
                    "id",
                    "source",
                    "package",
                    "origin",
                    "file",
                    "cuda",
                    "hip",
                    "hazards",
                    "naive",
                }
                assert r["package"] == "synth" and r["origin"] in ("synth", "naivify")
                # Targets are native-mode translations: no <cass/warp.h> logical warps.
                assert "__cass_" not in r["hip"], r["id"]
                assert r["origin"] != "naivify" or r["naive"]
                # Units are source bytes read as latin-1: every character is one byte.
                assert max(map(ord, r["cuda"] + r["hip"]), default=0) < 256
                assert len(r["cuda"]) <= 4096 and len(r["hip"]) <= 4096
                assert not r["naive"] or r["hazards"], "a naive unit names its hazard"
                hazards += bool(r["hazards"])
                total += 1
    assert all(len(s) == 1 for s in files.values()), "a file in two splits"
    assert total == sum(manifest["units"].values()) and hazards == manifest["hazard_units"]
    assert manifest["counts"]["synth"]["files_fetched"] == 60
    assert manifest["warp"] == "native"
    assert manifest["counts"]["synth"]["kept_train_naivify"] > 0
    programs = discover(out / "test_programs") if manifest["test_programs"] else []
    assert len(programs) == manifest["test_programs"]
    for prog in programs:
        assert files[prog.directory.name] == {"test"}
    dedup = json.loads((out / "dedup.json").read_text())
    assert dedup["reference_units"] > 1000


def test_naive_variants_are_flagged_by_the_rules() -> None:
    from cass_build.train.dataset import data_settings, naive_variants

    unit = (
        b"__device__ float warpSum(float v) {\n"
        b"  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
        b"  return v;\n}\n"
    )
    made = naive_variants(unit, "f#0", 2, data_settings())
    assert made and all(b"warpSize" not in v for v in made)
    assert len(set(made)) == len(made)
    plain = b"__device__ float twice(float v) { return 2 * v; }\n"
    assert naive_variants(plain, "f#1", 2, data_settings()) == []


def test_the_default_warp_mode_would_give_logical_warp_targets() -> None:
    # Why data_settings() exists: cuda mode (the default) keeps 32-lane warps exact
    # through <cass/warp.h>, so its translations are full of __cass_* calls.
    from cass_build.rules import translate_bytes
    from cass_build.settings import Settings
    from cass_build.train.dataset import data_settings

    p = synthesize(5, "warp_rows")
    assert b"__cass_" in translate_bytes(p.agnostic.encode(), "p.cu", Settings()).data
    assert b"__cass_" not in translate_bytes(p.agnostic.encode(), "p.cu", data_settings()).data


@pytest.mark.slow
def test_sdist_units_are_verified_on_their_own(tmp_path: Path) -> None:
    _hipcc_or_skip()
    toolchain = find_hip()
    assert toolchain is not None
    from cass_build.train.dataset import _units_alone

    records = [
        {
            "hip": "template <typename T>\n"
            "__global__ void k(T* p, int n) { if (threadIdx.x < n) p[threadIdx.x] = 0; }\n"
        },
        {"hip": "__global__ void k2(at::Half* p) { p[0] = 0; }\n"},  # needs PyTorch
        {"hip": "__device__ float sq(float x) { return x * x; }\n"},
    ]
    assert _units_alone([0, 1, 2], records, toolchain, batch=10, jobs=1, log=lambda s: None) == {
        0,
        2,
    }


def test_style_layer_adds_real_code_surface_to_both_forms() -> None:
    seen = {"banner": 0, "loop_macro": 0, "inline_macro": 0, "unroll": 0, "extra": 0}
    for seed in range(200):
        p = synthesize(seed)
        for text in (p.naive, p.agnostic):
            lines = [ln.strip() for ln in text.splitlines()]
            # clang rejects a repeated loop pragma: the layer adds none where one is.
            assert not any(
                a.startswith("#pragma unroll") and b.startswith("#pragma unroll")
                for a, b in itertools.pairwise(lines)
            ), p.name
        seen["banner"] += p.naive.startswith(("// SPDX", "/**\n * @file", "// ===", "/*\n"))
        seen["loop_macro"] += "CUDA_KERNEL_LOOP(" in p.naive
        seen["inline_macro"] += "#define DEVICE_INLINE" in p.naive
        seen["unroll"] += "#pragma unroll" in p.naive
        seen["extra"] += any(
            n in p.naive for n in ("fillValues", "scaleInPlace", "countSetFlags", "laneRank")
        )
        if "countSetFlags" in p.naive:
            assert "countSetFlags" in p.agnostic and "__popcll(m)" in p.agnostic
            assert "__popc(m)" in p.naive
    assert all(n > 0 for n in seen.values()), seen
