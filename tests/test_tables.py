"""The mapping tables: schema, consistency, and HIP names proven against real headers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cass_build.rules.tables import load_tables, parse_version

from .hip_headers import compiler_builtins, declared_identifiers, header_available, hipcc

FAMILIES = load_tables()
REQUIRED = {
    "runtime",
    "driver",
    "device",
    "math",
    "fp16",
    "bf16",
    "complex",
    "cooperative_groups",
    "cub",
    "thrust",
    "cublas",
    "curand",
    "cufft",
    "cusparse",
    "cusolver",
    "nccl",
    "cudnn",
}
INSTALLED_HIP = (5, 2)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def test_every_family_has_a_table() -> None:
    assert {f.name for f in FAMILIES} >= REQUIRED


def test_families_are_not_trivial() -> None:
    sizes = {f.name: len(f.rows) for f in FAMILIES}
    assert sum(sizes.values()) > 2000, sizes
    for name in REQUIRED:
        assert sizes.get(name, 0) >= 5, f"{name} has only {sizes.get(name, 0)} rows"


def test_hip_names_never_reenter_the_table() -> None:
    """Translating output again must change nothing: no emitted name is a CUDA key."""
    keys = {r.cuda: r for f in FAMILIES for r in f.rows if r.kind != "include"}
    for family in FAMILIES:
        for row in family.rows:
            if row.kind == "include" or not row.hip:
                continue
            for word in _IDENT.findall(row.hip):
                other = keys.get(word)
                if other is not None and other.hip != other.cuda and other is not row:
                    pytest.fail(
                        f"{row.family}: {row.cuda} emits {word}, itself mapped to {other.hip}"
                    )


def test_include_targets_never_reenter_the_table() -> None:
    includes = {r.cuda: r for f in FAMILIES for r in f.rows if r.kind == "include"}
    for row in includes.values():
        other = includes.get(row.hip)
        assert other is None or other.hip == other.cuda, f"{row.cuda} -> {row.hip} -> {other}"


def _checkable(family_headers: tuple[str, ...]) -> bool:
    return bool(family_headers) and all(header_available(h) for h in family_headers)


@pytest.mark.skipif(hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize(
    "family", [f for f in FAMILIES if _checkable(f.hip_headers)], ids=lambda f: f.name
)
def test_supported_hip_names_are_declared(family, tmp_path: Path) -> None:
    """Every HIP name emitted for a supported row exists in the installed HIP headers,
    or is a builtin of its compiler (__hip_atomic_load): the row's name, its legacy
    name for older targets and its short-call name (alt), struct members and methods
    included."""
    declared = declared_identifiers(list(family.hip_headers), tmp_path)
    missing = []
    for row in family.rows:
        if row.status == "unsupported" or row.kind == "include":
            continue
        emitted = [row.hip, row.alt]
        if row.since is not None and row.since > INSTALLED_HIP:
            if not row.legacy:
                continue  # reported as cass-hip-version for this target, never emitted
            emitted = [row.legacy]
        missing += [
            f"{row.cuda} -> {w}" for e in emitted for w in _IDENT.findall(e) if w not in declared
        ]
    if missing:
        builtins = compiler_builtins({m.split(" -> ")[1] for m in missing}, tmp_path)
        missing = [m for m in missing if m.split(" -> ")[1] not in builtins]
    assert not missing, f"{len(missing)} HIP names not declared: {missing[:40]}"


@pytest.mark.parametrize(
    "family", [f for f in FAMILIES if _checkable(f.hip_headers)], ids=lambda f: f.name
)
def test_supported_include_targets_exist(family) -> None:
    missing = [
        r.hip
        for r in family.rows
        if r.kind == "include"
        and r.status != "unsupported"
        and (r.since is None or r.since <= INSTALLED_HIP)
        and r.hip.startswith(("hip/", "hipsparse", "hiprand", "rocprim", "rocrand"))
        and not header_available(r.hip)
    ]
    assert not missing


def test_parse_version() -> None:
    assert parse_version("6.2") == (6, 2)
    assert parse_version("5.2.21153") == (5, 2)
    with pytest.raises(ValueError, match=r"MAJOR\.MINOR"):
        parse_version("six")


@pytest.mark.skipif(hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
def test_header_guards_are_the_hip_headers_guards(tmp_path: Path) -> None:
    """CUDA's header guards map to guards the HIP headers define, so `#ifdef
    __CUDA_RUNTIME_H__` in a helper still reads "the runtime header is included"."""
    (family,) = [f for f in FAMILIES if f.name == "preprocessor"]
    guards = [r for r in family.rows if r.section == "Header guards" and r.hip != r.cuda]
    assert len(guards) >= 8
    headers = ["hip/hip_runtime.h", "hip/hip_fp16.h", "hip/hip_complex.h"]
    declared = declared_identifiers(headers, tmp_path)
    assert [r.hip for r in guards if r.hip not in declared] == []


def test_hip_macros_are_not_cuda_names() -> None:
    """The macros that mark a source's own HIP branch are kept as written."""
    (family,) = [f for f in FAMILIES if f.name == "preprocessor"]
    marks = [r for r in family.rows if r.rewrite == "hip-macro"]
    assert {"__HIPCC__", "__HIP_PLATFORM_AMD__", "USE_ROCM"} <= {r.cuda for r in marks}
    assert all(r.hip == r.cuda for r in marks)


@pytest.mark.skipif(hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
@pytest.mark.parametrize(
    "family", [f for f in FAMILIES if _checkable(f.roc_headers)], ids=lambda f: f.name
)
def test_roc_names_are_declared(family, tmp_path: Path) -> None:
    """Every name --roc emits (rocRAND, rocSPARSE) exists in the installed ROC headers."""
    declared = declared_identifiers(list(family.roc_headers), tmp_path)
    rows = [r for r in family.rows if r.roc and r.kind != "include"]
    assert len(rows) >= 20
    missing = [f"{r.cuda} -> {r.roc}" for r in rows if r.roc not in declared]
    assert not missing, f"{len(missing)} ROC names not declared: {missing[:40]}"
    includes = [r.roc for r in family.rows if r.roc and r.kind == "include"]
    assert [h for h in includes if not header_available(h)] == []


def test_roc_names_never_reenter_the_table() -> None:
    keys = {r.cuda for f in FAMILIES for r in f.rows if r.kind != "include"}
    assert [r.cuda for f in FAMILIES for r in f.rows if r.roc in keys] == []
    # HIPIFY's --roc families: cuBLAS, cuSPARSE, cuRAND have ROC rows
    with_roc = {f.name for f in FAMILIES if any(r.roc for r in f.rows)}
    assert {"cublas", "cusparse", "curand"} <= with_roc


@pytest.mark.skipif(hipcc() is None, reason="hipcc is not installed (apt-get install hipcc)")
def test_gated_names_are_missing_from_the_installed_hip(tmp_path: Path) -> None:
    """The version gates issue 20 found open: HIP 5.2 lacks these names, so their rows
    must be gated above 5.2 (cass-hip-version), never emitted for it."""
    rows = {r.cuda: r for f in FAMILIES for r in f.rows}
    names = {
        "cudaGetFuncBySymbol": "hipGetFuncBySymbol",
        "cudaGraphUpload": "hipGraphUpload",
        "cuGraphUpload": "hipGraphUpload",
        "thread_block_tile::meta_group_rank": "meta_group_rank",
        "thread_block_tile::meta_group_size": "meta_group_size",
    }
    declared = declared_identifiers(["hip/hip_runtime.h", "hip/hip_cooperative_groups.h"], tmp_path)
    for cuda, hip in names.items():
        row = rows[cuda]
        assert row.hip == hip
        assert hip not in declared, f"{hip} is in HIP 5.2 after all: drop the gate of {cuda}"
        assert row.since is not None and row.since > INSTALLED_HIP and not row.legacy, cuda
