"""cass asm without compiling: occupancy arithmetic, instruction classes, target errors.

The compiling tests are in test_asm_build.py. Here every expected number is worked out
by hand in a comment from the limits documented in docs/asm.md, so a wrong table entry
or a wrong formula fails here before it shows up in a report.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build.asm.occupancy import amd_occupancy, nvidia_occupancy, sgpr_waves, vgpr_waves
from cass_build.asm.report import canonical_signature
from cass_build.asm.resources import amdgpu_class, ptx_class, sass_class
from cass_build.asm.targets import AMD_ARCHS, NVIDIA_ARCHS, parse_amd, parse_nvidia
from cass_build.cli import main
from cass_build.errors import UsageError

SIMPLE_CU = "__global__ void twice(float *p) { p[threadIdx.x] *= 2.0f; }\n"


def test_nvidia_occupancy_shared_limited() -> None:
    # sm_90, 48 KiB static shared, 14 registers, 256 threads: each block takes
    # 49152 + 1024 reserved = 50176 B; 233472 // 50176 = 4 blocks = 32 of 64 warps.
    occ = nvidia_occupancy(NVIDIA_ARCHS["sm_90"], registers=14, shared=49152, block=256)
    assert (occ.groups, occ.active, occ.limiter, occ.resident) == (4, 32.0, "shared", 32)
    assert occ.fraction == 0.5


def test_nvidia_occupancy_register_limited() -> None:
    # 128 registers: 128 * 32 = 4096 per warp; a sub-partition's 16384 hold 4 warps,
    # 16 per SM; 8-warp blocks -> 2 blocks, 16 of 64 warps.
    occ = nvidia_occupancy(NVIDIA_ARCHS["sm_90"], registers=128, shared=0, block=256)
    assert (occ.groups, occ.active, occ.limiter) == (2, 16.0, "registers")
    # 33 registers round up to 1280 per warp: 16384 // 1280 = 12 warps a sub-partition,
    # 48 per SM, 6 blocks of 8 warps on an sm_86 (48 warps at most anyway).
    occ = nvidia_occupancy(NVIDIA_ARCHS["sm_86"], registers=33, shared=0, block=256)
    assert (occ.groups, occ.active) == (6, 48.0)
    assert occ.fraction == 1.0


def test_nvidia_occupancy_too_much_shared() -> None:
    occ = nvidia_occupancy(NVIDIA_ARCHS["sm_75"], registers=16, shared=65537, block=128)
    assert (occ.groups, occ.limiter) == (0, "shared")


def test_amd_vgpr_waves_follow_llvm() -> None:
    # LLVM getNumWavesPerEUWithNumVGPRs: total // align(vgprs, granule), at most max waves.
    assert vgpr_waves(AMD_ARCHS["gfx90a"], 110) == 4  # 512 // 112
    assert vgpr_waves(AMD_ARCHS["gfx1030"], 106) == 9  # 1024 // 112
    assert vgpr_waves(AMD_ARCHS["gfx1100"], 145) == 9  # 1536 // 168 (7 granules of 24)
    assert vgpr_waves(AMD_ARCHS["gfx1201"], 24) == 16  # 1536 // 24 = 64, capped at 16
    assert vgpr_waves(AMD_ARCHS["gfx942"], 3) == 8  # below one granule: max waves


def test_amd_sgpr_waves_only_on_gfx9() -> None:
    assert sgpr_waves(AMD_ARCHS["gfx90a"], 101) == 7
    assert sgpr_waves(AMD_ARCHS["gfx90a"], 100) == 8
    assert sgpr_waves(AMD_ARCHS["gfx1100"], 106) == 16


def test_amd_occupancy_lds_limited_on_cdna() -> None:
    # gfx942: 48 KiB LDS of 64 KiB per CU -> 1 workgroup of 4 waves on 4 SIMDs: 1 of 8.
    occ = amd_occupancy(AMD_ARCHS["gfx942"], vgprs=8, sgprs=16, lds=49152, block=256)
    assert (occ.groups, occ.active, occ.limiter, occ.resident) == (1, 1.0, "lds", 4)
    # gfx950 has 160 KiB: 3 workgroups, 12 waves over 4 SIMDs.
    occ = amd_occupancy(AMD_ARCHS["gfx950"], vgprs=8, sgprs=16, lds=49152, block=256)
    assert (occ.groups, occ.active) == (3, 3.0)
    # RDNA in WGP mode: 128 KiB per WGP, 2 workgroups of 8 wave32s over 4 SIMDs.
    occ = amd_occupancy(AMD_ARCHS["gfx1100"], vgprs=8, sgprs=16, lds=49152, block=256)
    assert (occ.groups, occ.active, occ.resident) == (2, 4.0, 16)


def test_amd_occupancy_workgroup_granularity() -> None:
    # gfx1030, 106 VGPRs: 9 waves a SIMD, 36 a WGP, 8-wave workgroups -> 4 -> 8 a SIMD.
    occ = amd_occupancy(AMD_ARCHS["gfx1030"], vgprs=106, sgprs=10, lds=0, block=256)
    assert (occ.groups, occ.active, occ.limiter) == (4, 8.0, "vgpr")


def test_amd_occupancy_wave64_lane_use() -> None:
    # A 32-thread block fills half of a wave64, all of a warp.
    amd = amd_occupancy(AMD_ARCHS["gfx90a"], vgprs=8, sgprs=16, lds=0, block=32)
    nv = nvidia_occupancy(NVIDIA_ARCHS["sm_90"], registers=8, shared=0, block=32)
    assert amd.lane_use == 0.5 and nv.lane_use == 1.0
    assert amd.effective == amd.fraction / 2


def test_amd_lds_over_the_workgroup_limit_cannot_launch() -> None:
    occ = amd_occupancy(AMD_ARCHS["gfx1201"], vgprs=8, sgprs=16, lds=65537, block=64)
    assert (occ.groups, occ.limiter, occ.active) == (0, "lds", 0.0)


@pytest.mark.parametrize(
    ("mnemonic", "cls"),
    [
        ("IMAD.WIDE.U32", "int"),
        ("FFMA", "fp32"),
        ("DFMA", "fp64"),
        ("HMMA.16816.F32", "matrix"),
        ("LDG.E.128", "mem_global"),
        ("LDS.U.128", "mem_shared"),
        ("STL", "mem_local"),
        ("SHFL.BFLY", "cross_lane"),
        ("BAR.SYNC.DEFER_BLOCKING", "sync"),
        ("MUFU.RSQ", "transcendental"),
        ("UIADD3", "scalar"),
    ],
)
def test_sass_classes(mnemonic: str, cls: str) -> None:
    assert sass_class(mnemonic) == cls


@pytest.mark.parametrize(
    ("mnemonic", "operands", "cls"),
    [
        ("v_fmac_f32_e32", "v1, v2, v3", "fp32"),
        ("v_dual_fmac_f32", "v0, v1, v2 :: v_dual_mov_b32 v3, 0", "fp32"),
        ("v_dual_mov_b32", "v2, 0 :: v_dual_add_nc_u32 v1, s33, v0", "move"),
        ("v_fma_f64", "v[0:1], v[2:3], v[4:5], v[6:7]", "fp64"),
        ("v_pk_fma_f16", "v0, v1, v2, v3", "fp16"),
        ("v_mfma_f32_32x32x8f16", "a[0:15], v[0:1], v[2:3], a[0:15]", "matrix"),
        ("v_wmma_f32_16x16x16_f16", "v[0:7], v[8:15], v[16:23], v[0:7]", "matrix"),
        ("global_load_dwordx4", "v[0:3], v[4:5], off", "mem_global"),
        ("ds_read_b32", "v0, v1", "mem_shared"),
        ("ds_bpermute_b32", "v0, v1, v2", "cross_lane"),
        ("v_add_f32_dpp", "v0, v1, v2 row_shr:1", "cross_lane"),
        ("v_mov_b32_dpp", "v0, v1 quad_perm:[1,0,3,2]", "cross_lane"),
        ("scratch_store_dword", "off, v0, s0", "mem_local"),
        ("s_load_dwordx2", "s[0:1], s[4:5], 0x0", "mem_const"),
        ("s_waitcnt", "lgkmcnt(0)", "sync"),
        ("s_cbranch_execz", ".LBB0_2", "control"),
        ("v_rsq_f32_e32", "v0, v1", "transcendental"),
        ("v_cvt_f32_u32_e32", "v0, v1", "convert"),
        ("s_lshl_b32", "s0, s1, 2", "scalar"),
        ("v_lshlrev_b32_e32", "v0, 2, v1", "int"),
    ],
)
def test_amdgpu_classes(mnemonic: str, operands: str, cls: str) -> None:
    assert amdgpu_class(mnemonic, operands) == cls


def test_ptx_classes() -> None:
    assert ptx_class("ld.global.nc.f32") == "mem_global"
    assert ptx_class("st.shared.u32") == "mem_shared"
    assert ptx_class("fma.rn.f32") == "fp32"
    assert ptx_class("ex2.approx.ftz.f32") == "transcendental"
    assert ptx_class("shfl.sync.bfly.b32") == "cross_lane"


def test_canonical_signature_spells_hip_vectors_as_cuda() -> None:
    hip = "k(HIP_vector_type<unsigned char, 4u> const*, HIP_vector_type<float, 3u>*, int)"
    assert canonical_signature(hip) == "k(uchar4 const*, float3*, int)"
    assert canonical_signature("k(HIP_vector_type<long long, 2u>)") == "k(longlong2)"


def test_canonical_signature_spells_renamed_hip_types_as_cuda() -> None:
    # c++filt's spellings of kernels from bench/programs (ROCm 5.2 headers).
    hip = "void attention<16>(hip_bfloat16 const*, int, hip_bfloat16*)"
    assert (
        canonical_signature(hip) == "void attention<16>(__nv_bfloat16 const*, int, __nv_bfloat16*)"
    )
    assert canonical_signature("k(__hip_bfloat162*, __hip_bfloat16)") == (
        "k(__nv_bfloat162*, __nv_bfloat16)"
    )
    assert canonical_signature("to_gray(__hip_surface*, __hip_texture*, int)") == (
        "to_gray(unsigned long long, unsigned long long, int)"
    )
    assert (
        canonical_signature("k(my__hip_texture*, hip_bfloat16x)")
        == "k(my__hip_texture*, hip_bfloat16x)"
    )


def test_target_names() -> None:
    assert parse_nvidia("90").name == parse_nvidia("sm_90").name == "sm_90"
    assert parse_amd("GFX942").name == "gfx942"
    with pytest.raises(UsageError, match="not an AMD target"):
        parse_amd("gfx9999")
    with pytest.raises(UsageError, match="not an NVIDIA target"):
        parse_nvidia("sm_42")


@pytest.mark.parametrize(
    "args",
    [["--offload-arch", "gfx9999"], ["--sm", "sm_42"], ["--sm", "none", "--offload-arch", "none"]],
)
def test_impossible_target_is_one_line(tmp_path: Path, args: list[str]) -> None:
    source = tmp_path / "k.cu"
    source.write_text(SIMPLE_CU)
    err = io.StringIO()
    assert main(["asm", str(source), *args], err=err) == 2
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("cass: error: cass asm: ")
    assert all(ln.startswith("cass: ") for ln in lines) and len(lines) <= 2
    assert "Traceback" not in err.getvalue()


def _cass(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cass_build", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=cwd,
        timeout=300,
        check=False,
    )


def test_missing_hip_toolchain_for_a_named_target(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text(SIMPLE_CU)
    done = _cass(
        ["asm", str(source), "--sm", "none", "--offload-arch", "gfx90a"],
        {"CASS_HIPCC": str(tmp_path / "no-hipcc"), "CASS_ROCM_PATH": str(tmp_path)},
        tmp_path,
    )
    assert done.returncode == 2, done.stderr
    errors = [ln for ln in done.stderr.splitlines() if "error" in ln]
    assert errors == [f"cass asm: error: {source}: cannot produce gfx90a: no HIP toolchain "
                      "found (hipcc)"]  # fmt: skip
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_clang_backend_for_a_target_clang_does_not_know(tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text(SIMPLE_CU)
    err = io.StringIO()
    code = main(
        ["asm", str(source), "--sm", "none", "--offload-arch", "gfx950", "--amd-backend", "clang"],
        err=err,
    )
    from cass_build.asm._tools import hip_clang_version
    from cass_build.pipeline.toolchain import find_hip

    toolchain = find_hip()
    assert toolchain is not None
    if hip_clang_version(toolchain)[0] >= 20:
        pytest.skip("this clang knows gfx950")
    assert code == 2
    first = err.getvalue().splitlines()[0]
    assert first.startswith(f"cass asm: error: {source}: cannot produce gfx950 with clang ")
    assert "it needs clang 20 or later" in first


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_without_llvmlite(tmp_path: Path) -> None:
    """A target that needs llvmlite: named, a one-line error; by default, a note."""
    source = tmp_path / "k.cu"
    source.write_text(SIMPLE_CU)
    # sys.modules[name] = None is how Python marks a module as not importable.
    code = (
        "import sys; sys.modules['llvmlite'] = None\n"
        "from cass_build.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    argv = [sys.executable, "-c", code, "asm", str(source), "--sm", "none"]
    done = subprocess.run(
        [*argv, "--offload-arch", "gfx942"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == (f"cass asm: error: {source}: cannot produce gfx942: it needs llvmlite, "
                        "which is not installed")  # fmt: skip
    assert lines[1].startswith("cass asm: hint: pip install 'cass-build[asm]'")


def test_dataset_of_a_missing_corpus_is_one_line(tmp_path: Path) -> None:
    err = io.StringIO()
    missing = tmp_path / "no-corpus"
    code = main(["dataset", "asm", str(missing), "-o", str(tmp_path / "x.jsonl")], err=err)
    assert code == 2
    assert err.getvalue().splitlines()[0] == f"cass: error: {missing}: no such file or directory"
    assert not (tmp_path / "x.jsonl").exists()


def test_dataset_needs_a_kind() -> None:
    err = io.StringIO()
    assert main(["dataset"], err=err) == 2
    assert err.getvalue().startswith("cass: error: cass dataset: name a dataset kind: asm\n")


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_a_source_that_is_not_a_file_is_one_line(tmp_path: Path, kind: str) -> None:
    source = tmp_path / "k.cu"
    if kind == "directory":
        source.mkdir()
    err = io.StringIO()
    assert main(["asm", str(source), "--sm", "none", "--offload-arch", "gfx90a"], err=err) == 2
    first, hint = err.getvalue().splitlines()
    what = "a directory" if kind == "directory" else "no such file"
    assert first == f"cass: error: {source}: {what}"
    assert hint.startswith("cass: hint: pass a CUDA source file")
