"""Occupancy estimates: resident warps per SM (NVIDIA), resident waves per SIMD (AMD).

Both models count whole thread blocks (workgroups): a block is resident or not, so each
resource allows some number of blocks per SM (CU), the smallest number wins, and that
resource is the *limiter*. The per-target limits are in ``targets.py``; docs/asm.md
gives the formulas with their sources. These are estimates from static resource
figures: dynamic shared memory and the block size come from the caller, and neither
vendor's scheduler is modelled beyond its allocation rules.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from .targets import AmdArch, NvidiaArch

__all__ = ["Occupancy", "amd_occupancy", "nvidia_occupancy", "sgpr_waves", "vgpr_waves"]

_UNLIMITED = 1 << 30


@dataclass(frozen=True)
class Occupancy:
    """How many blocks (workgroups), warps (waves) one SM (CU) holds, and why no more."""

    target: str
    block: int
    """Threads per block the estimate assumes."""
    unit: str
    """``warps/SM`` or ``waves/SIMD``."""
    active: float
    """Resident warps per SM, or waves per SIMD (fractional when a CU's waves do not
    spread evenly over its SIMDs)."""
    maximum: int
    groups: int
    """Resident blocks per SM, or workgroups per CU (WGP on RDNA)."""
    limiter: str
    """The resource that allows the fewest blocks: warps, blocks, registers, shared,
    waves, vgpr, sgpr, lds or barriers."""
    limits: dict[str, int] = field(default_factory=dict)
    """Blocks per SM (CU) each resource allows on its own."""
    lane_use: float = 1.0
    """Threads per block over the lanes of its warps (waves): below 1 when the block
    size is not a multiple of the warp (wave) size."""
    resident: int = 0
    """Resident warps per SM, or waves per CU (per WGP on RDNA): ``groups`` times the
    warps (waves) of one block."""

    @property
    def fraction(self) -> float:
        """Resident warps (waves) over the most the hardware holds."""
        return self.active / self.maximum if self.maximum else 0.0

    @property
    def effective(self) -> float:
        """``fraction`` counting only lanes that hold a thread: what wave64 costs a
        32-thread block."""
        return self.fraction * self.lane_use

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["limits"] = {k: (None if v >= _UNLIMITED else v) for k, v in self.limits.items()}
        out["fraction"] = round(self.fraction, 4)
        out["effective"] = round(self.effective, 4)
        return out


def _pick(limits: dict[str, int]) -> tuple[int, str]:
    # The first resource in insertion order wins a tie, so the order reads as priority:
    # a block limit that equals the warp limit is reported as the warp limit.
    best = min(limits.values())
    return best, next(k for k, v in limits.items() if v == best)


def nvidia_occupancy(arch: NvidiaArch, *, registers: int, shared: int, block: int) -> Occupancy:
    """Resident warps per SM for a kernel using ``registers`` per thread and ``shared``
    bytes (static plus dynamic) per block, launched with ``block`` threads."""
    warps = math.ceil(block / arch.warp_size)
    limits: dict[str, int] = {
        "warps": arch.max_warps // warps,
        "blocks": arch.max_blocks,
    }
    if registers > 0:
        per_warp = math.ceil(registers * arch.warp_size / arch.reg_unit) * arch.reg_unit
        # A warp's registers come from one sub-partition's quarter of the file.
        per_part = (arch.regs_per_sm // arch.subpartitions) // per_warp
        limits["registers"] = (per_part * arch.subpartitions) // warps
    if shared > arch.smem_per_block:
        limits["shared"] = 0
    else:
        per_block = math.ceil((shared + arch.smem_reserved) / arch.smem_unit) * arch.smem_unit
        limits["shared"] = arch.smem_per_sm // per_block if per_block else _UNLIMITED
    groups, limiter = _pick(limits)
    return Occupancy(
        target=arch.name,
        block=block,
        unit="warps/SM",
        active=float(groups * warps),
        maximum=arch.max_warps,
        groups=groups,
        limiter=limiter,
        limits=limits,
        lane_use=block / (warps * arch.warp_size),
        resident=groups * warps,
    )


def vgpr_waves(arch: AmdArch, vgprs: int) -> int:
    """Waves per SIMD the VGPR file allows (LLVM getNumWavesPerEUWithNumVGPRs)."""
    if vgprs < arch.vgpr_granule:
        return arch.max_waves
    rounded = math.ceil(vgprs / arch.vgpr_granule) * arch.vgpr_granule
    return min(max(arch.vgprs // rounded, 1), arch.max_waves)


def sgpr_waves(arch: AmdArch, sgprs: int) -> int:
    """Waves per SIMD the SGPR file allows (LLVM getOccupancyWithNumSGPRs); GFX10 and
    later give every wave its own SGPRs, so only GFX9 parts are limited."""
    if not arch.sgpr_limited:
        return arch.max_waves
    for bound, waves in ((80, 10), (88, 9), (100, 8)):
        if sgprs <= bound:
            return min(waves, arch.max_waves)
    return min(7, arch.max_waves)


def amd_occupancy(arch: AmdArch, *, vgprs: int, sgprs: int, lds: int, block: int) -> Occupancy:
    """Resident waves per SIMD for a kernel using ``vgprs`` (the unified VGPR+AGPR count
    on CDNA), ``sgprs`` and ``lds`` bytes (static plus dynamic) per workgroup, launched
    with ``block`` threads."""
    waves = math.ceil(block / arch.wave)
    slots = arch.max_waves * arch.simds
    limits: dict[str, int] = {"waves": slots // waves}
    limits["vgpr"] = vgpr_waves(arch, vgprs) * arch.simds // waves
    limits["sgpr"] = sgpr_waves(arch, sgprs) * arch.simds // waves
    # Single-wave workgroups need no barrier, so only larger ones count against it.
    limits["barriers"] = arch.max_groups if waves > 1 else _UNLIMITED
    if lds > arch.lds_per_group:
        limits["lds"] = 0
    elif lds > 0:
        limits["lds"] = arch.lds_per_cu // (math.ceil(lds / arch.lds_granule) * arch.lds_granule)
    else:
        limits["lds"] = _UNLIMITED
    groups, limiter = _pick(limits)
    return Occupancy(
        target=arch.name,
        block=block,
        unit="waves/SIMD",
        active=groups * waves / arch.simds,
        maximum=arch.max_waves,
        groups=groups,
        limiter=limiter,
        limits=limits,
        lane_use=block / (waves * arch.wave),
        resident=groups * waves,
    )
