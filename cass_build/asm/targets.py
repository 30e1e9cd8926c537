"""The GPU targets ``cass asm`` knows: NVIDIA ``sm_XX`` and AMD ``gfxNNN``, with their limits.

Every number an occupancy estimate uses lives here, in one table per vendor, so a
reader can check it against its source (docs/asm.md lists them):

- NVIDIA: the CUDA C++ Programming Guide, "Features and Technical Specifications",
  table "Technical Specifications per Compute Capability" (resident warps, resident
  blocks, registers and shared memory per SM, shared memory per block), and
  ``cuda_occupancy.h`` for the allocation units (256 registers per warp, 128 bytes of
  shared memory, 1 KiB of shared memory reserved per block from sm_80 on).
- AMD: LLVM's ``AMDGPUBaseInfo.cpp`` (``getMaxWavesPerEU``, ``getTotalNumVGPRs``,
  ``getVGPRAllocGranule``, ``getEUsPerCU``, ``getMaxWorkGroupsPerCU``,
  ``getOccupancyWithNumSGPRs``), the ``FeatureLocalMemorySize*`` of each processor in
  ``AMDGPU.td``, and the ISA manuals for the LDS allocation granularity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import UsageError

__all__ = [
    "AMD_ARCHS",
    "DEFAULT_AMD",
    "DEFAULT_NVIDIA",
    "NVIDIA_ARCHS",
    "AmdArch",
    "NvidiaArch",
    "parse_amd",
    "parse_nvidia",
]


@dataclass(frozen=True)
class NvidiaArch:
    """One NVIDIA compute capability and the per-SM limits occupancy depends on."""

    name: str
    """``sm_90``."""
    label: str
    max_warps: int
    """Resident warps per SM."""
    max_blocks: int
    """Resident blocks per SM."""
    smem_per_sm: int
    """Shared memory per SM at the largest carveout, bytes."""
    smem_per_block: int
    """The most shared memory one block may use (with the opt-in attribute), bytes."""
    smem_reserved: int
    """Shared memory the system reserves per resident block (1 KiB from sm_80 on)."""
    regs_per_sm: int = 65536
    reg_unit: int = 256
    """Registers are allocated per warp in units of this many."""
    smem_unit: int = 128
    subpartitions: int = 4
    """SM sub-partitions: a warp's registers come from one quarter of the file."""
    warp_size: int = 32

    @property
    def cc(self) -> int:
        return int(self.name[3:])


@dataclass(frozen=True)
class AmdArch:
    """One AMD GPU target and the limits its occupancy depends on (per SIMD and per CU)."""

    name: str
    """``gfx942``."""
    label: str
    wave: int
    """Wavefront size HIP compiles for by default: 64 on CDNA, 32 on RDNA."""
    simds: int
    """SIMDs (LLVM: EUs) sharing one workgroup's resources: 4 per CU on CDNA, 4 per WGP on
    RDNA (HIP compiles RDNA in WGP mode)."""
    max_waves: int
    """Waves per SIMD."""
    vgprs: int
    """VGPRs per SIMD lane that waves share (CDNA: the unified VGPR+AGPR file)."""
    vgpr_granule: int
    lds_per_cu: int
    """LDS per CU (per WGP on RDNA) that resident workgroups share, bytes."""
    lds_per_group: int
    """The most LDS one workgroup may allocate, bytes."""
    max_groups: int
    """Workgroups per CU (WGP) of more than one wave: the barrier limit."""
    isa_version: int
    """``__oclc_ISA_version``: major*1000 + minor*100 + stepping."""
    clang_major: int
    """The first clang release that knows this target."""
    proxy: str
    """The target an older clang compiles the device code for before LLVM 22 lowers it: same
    family, same wave size, same predefined macros apart from the name."""
    macros: tuple[tuple[str, str], ...] = ()
    """Predefined macros an older clang gets wrong for the proxy: (name, value)."""
    sgpr_limited: bool = False
    """GFX9 parts: SGPR count can lower occupancy (LLVM getOccupancyWithNumSGPRs)."""
    agprs: bool = False
    lds_granule: int = 512
    """LDS is allocated in blocks of 128 dwords (LDS_SIZE field of COMPUTE_PGM_RSRC2)."""

    @property
    def family(self) -> str:
        return self.label.split(" ", 1)[0]

    @property
    def lib_suffix(self) -> str:
        """The ``oclc_isa_version_<suffix>.bc`` name of this target."""
        return self.name[3:]


_NV = [
    NvidiaArch("sm_75", "Turing", 32, 16, 65536, 65536, 0),
    NvidiaArch("sm_80", "Ampere A100", 64, 32, 167936, 166912, 1024),
    NvidiaArch("sm_86", "Ampere GA10x", 48, 16, 102400, 101376, 1024),
    NvidiaArch("sm_87", "Ampere Orin", 48, 16, 167936, 166912, 1024),
    NvidiaArch("sm_89", "Ada", 48, 24, 102400, 101376, 1024),
    NvidiaArch("sm_90", "Hopper H100", 64, 32, 233472, 232448, 1024),
    NvidiaArch("sm_100", "Blackwell B200", 64, 32, 233472, 232448, 1024),
    NvidiaArch("sm_103", "Blackwell B300", 64, 32, 233472, 232448, 1024),
    NvidiaArch("sm_120", "Blackwell RTX 50", 48, 32, 102400, 101376, 1024),
    NvidiaArch("sm_121", "Blackwell GB10", 48, 32, 102400, 101376, 1024),
]
NVIDIA_ARCHS: dict[str, NvidiaArch] = {a.name: a for a in _NV}

#: An empty value undefines the macro.
_GFX12 = (("__GFX11__", ""), ("__GFX12__", "1"))
_AMD = [
    AmdArch(
        "gfx90a", "CDNA2 MI200", 64, 4, 8, 512, 8, 65536, 65536, 16, 9010, 13, "gfx90a",
        sgpr_limited=True, agprs=True,
    ),
    AmdArch(
        "gfx942", "CDNA3 MI300", 64, 4, 8, 512, 8, 65536, 65536, 16, 9402, 17, "gfx940",
        sgpr_limited=True, agprs=True,
    ),
    AmdArch(
        "gfx950", "CDNA4 MI350", 64, 4, 8, 512, 8, 163840, 163840, 16, 9500, 20, "gfx940",
        sgpr_limited=True, agprs=True,
    ),
    AmdArch("gfx1030", "RDNA2 RX6800", 32, 4, 16, 1024, 16, 131072, 65536, 32, 10300, 12,
            "gfx1030"),
    AmdArch("gfx1100", "RDNA3 RX7900", 32, 4, 16, 1536, 24, 131072, 65536, 32, 11000, 15,
            "gfx1100"),
    AmdArch("gfx1200", "RDNA4 RX9060", 32, 4, 16, 1536, 24, 131072, 65536, 32, 12000, 18,
            "gfx1100", _GFX12),
    AmdArch("gfx1201", "RDNA4 RX9070", 32, 4, 16, 1536, 24, 131072, 65536, 32, 12001, 18,
            "gfx1100", _GFX12),
]  # fmt: skip
AMD_ARCHS: dict[str, AmdArch] = {a.name: a for a in _AMD}

#: What ``cass asm`` produces when no target is named: Hopper against one CDNA3 part
#: (MI300), the previous CDNA, and three RDNA generations.
DEFAULT_NVIDIA = ("sm_90",)
DEFAULT_AMD = ("gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201")

_SM = re.compile(r"^(?:sm_?|compute_?)?(\d{2,3})[af]?$")


def parse_nvidia(text: str) -> NvidiaArch:
    """``sm_90``, ``sm90`` or ``90``; a one-line UsageError for anything else."""
    m = _SM.match(text.strip().lower())
    arch = NVIDIA_ARCHS.get(f"sm_{m.group(1)}") if m else None
    if arch is None:
        known = ", ".join(NVIDIA_ARCHS)
        msg = f"cass asm: {text!r} is not an NVIDIA target cass asm can produce ({known})"
        raise UsageError(msg, hint="pass --sm with one of those, e.g. --sm 90")
    return arch


def parse_amd(text: str) -> AmdArch:
    """``gfx942`` (a target-ID feature suffix such as ``:xnack-`` is not supported here)."""
    arch = AMD_ARCHS.get(text.strip().lower())
    if arch is None:
        known = ", ".join(AMD_ARCHS)
        msg = f"cass asm: {text!r} is not an AMD target cass asm can produce ({known})"
        raise UsageError(msg, hint="pass --offload-arch with one of those, e.g. gfx942")
    return arch
