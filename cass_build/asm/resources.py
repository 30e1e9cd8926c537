"""Per-kernel resource figures and instruction counts, one shape for both vendors.

Instruction classes are shared so a SASS listing and an AMDGPU listing can be compared
line for line in the report. They are static counts (each instruction in the listing
once, whatever the loops do), sorted by what the instruction does:

==============  ===================================  ===========================================
class           NVIDIA SASS                          AMDGPU
==============  ===================================  ===========================================
fp32            FADD FMUL FFMA FSETP FMNMX ...       v_*_f32 (a v_dual_* pair by its first half)
fp64            DADD DMUL DFMA DSETP ...             v_*_f64
fp16            HADD2 HFMA2 HMUL2 ...                v_*_f16, v_*_bf16, v_pk_*_f16
transcendental  MUFU                                 v_exp/log/rcp/rsq/sqrt/sin/cos_*
convert         F2F F2I I2F I2I F2FP FRND            v_cvt_*
int             IMAD IADD3 LOP3 SHF ISETP LEA ...    other v_* arithmetic and logic
matrix          HMMA IMMA DMMA *GMMA ...             v_mfma_*, v_wmma_*, v_smfmac_*, v_swmmac_*
scalar          uniform datapath U* (UIADD3 ...)     s_* arithmetic and logic
move            MOV S2R CS2R S2UR R2UR               v_mov_*, s_mov_*
mem_global      LDG STG LD ST ATOM(G) RED ...        global_*, flat_*
mem_shared      LDS STS ATOMS LDSM STSM              ds_* (not the permutes)
mem_local       LDL STL (local memory, spills)       scratch_*, buffer_* (private segment)
mem_const       LDC ULDC                             s_load_*, s_buffer_load_* (scalar memory)
cross_lane      SHFL VOTE MATCH REDUX                v_readlane/writelane/readfirstlane,
                                                     ds_(b)permute, ds_swizzle, v_permlane*, DPP
sync            BAR MEMBAR DEPBAR WARPSYNC ...       s_barrier, s_waitcnt, s_wait_*, cache
                                                     invalidates
control         BRA EXIT CALL RET BSSY BSYNC ...     s_branch, s_cbranch_*, s_endpgm, s_*pc
other           NOP and anything unknown             s_nop, s_setprio, s_delay_alu, ...
==============  ===================================  ===========================================
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "CLASSES",
    "AmdResources",
    "KernelAsm",
    "NvidiaResources",
    "TargetAsm",
    "amdgpu_class",
    "count_classes",
    "ptx_class",
    "ptx_mnemonic",
    "sass_class",
    "sass_mnemonic",
]

CLASSES = (
    "fp32",
    "fp64",
    "fp16",
    "transcendental",
    "convert",
    "int",
    "matrix",
    "scalar",
    "move",
    "mem_global",
    "mem_shared",
    "mem_local",
    "mem_const",
    "cross_lane",
    "sync",
    "control",
    "other",
)


@dataclass
class NvidiaResources:
    """What ptxas reported for one entry function (``-Xptxas -v``)."""

    registers: int = 0
    shared: int = 0
    """Static shared memory, bytes (the 1 KiB the system reserves per block not included)."""
    stack: int = 0
    """Stack frame, bytes: local arrays and spills live here."""
    spill_stores: int = 0
    spill_loads: int = 0
    barriers: int = 0
    constant: int = 0
    instructions: dict[str, int] = field(default_factory=dict)
    total: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AmdResources:
    """What the AMDGPU backend reported for one kernel (code object metadata)."""

    vgprs: int = 0
    """VGPRs of one wave; on CDNA the unified VGPR+AGPR count that occupancy depends on."""
    sgprs: int = 0
    agprs: int = 0
    lds: int = 0
    """Static LDS (``group_segment_fixed_size``), bytes."""
    scratch: int = 0
    """Private segment per work-item (``private_segment_fixed_size``), bytes."""
    vgpr_spills: int = 0
    sgpr_spills: int = 0
    wave: int = 64
    max_flat_workgroup_size: int = 1024
    dynamic_stack: bool = False
    compiler_occupancy: int | None = None
    """Waves per SIMD the compiler itself reported (``; Occupancy:``), where it did."""
    inline_asm: int = 0
    """Instructions from inline assembly: copied into the listing as written, not compiled
    (inline PTX left in a translation shows up here, and would not assemble)."""
    instructions: dict[str, int] = field(default_factory=dict)
    total: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class KernelAsm:
    """One kernel's listing on one target, and its resource figures."""

    name: str
    """The mangled name: the key that matches a kernel across vendors."""
    text: str
    resources: NvidiaResources | AmdResources


@dataclass
class TargetAsm:
    """Everything one target produced for one source file."""

    target: str
    """``sm_90`` or ``gfx942``."""
    vendor: str
    """nvidia or amd."""
    kind: str
    """What the listings are: sass, ptx (no SASS disassembler here) or amdgpu."""
    tool: str
    """The tools and versions that produced it, e.g. ``nvcc 13.0 + nvdisasm 13.5.37``."""
    command: str
    kernels: dict[str, KernelAsm] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def as_dict(self, *, listings: bool = True) -> dict[str, Any]:
        return {
            "target": self.target,
            "vendor": self.vendor,
            "kind": self.kind,
            "tool": self.tool,
            "command": self.command,
            "notes": list(self.notes),
            "kernels": {
                name: {
                    "resources": k.resources.as_dict(),
                    **({"listing": k.text} if listings else {}),
                }
                for name, k in self.kernels.items()
            },
        }


# --- NVIDIA SASS -------------------------------------------------------------------------

_SASS = {
    "fp32": "FADD FADD32I FMUL FMUL32I FFMA FFMA32I FMNMX FSETP FSET FSEL FCHK FSWZADD FMNMX3 "
    "FADD2 FMUL2 FFMA2",
    "fp64": "DADD DMUL DFMA DSETP DMNMX DSET",
    "fp16": "HADD2 HADD2_32I HMUL2 HMUL2_32I HFMA2 HFMA2_32I HSETP2 HSET2 HMNMX2",
    "transcendental": "MUFU",
    "convert": "F2F F2I I2F I2I F2FP I2FP F2IP FRND",
    "matrix": "HMMA IMMA DMMA BMMA HGMMA IGMMA QGMMA BGMMA OMMA QMMA UTCMMA UTCHMMA UTCQMMA "
    "UTCIMMA UTCOMMA",
    "move": "MOV MOV32I S2R CS2R S2UR R2UR",
    "mem_global": "LDG STG LD ST ATOM ATOMG RED LDGSTS LDGDEPBAR CCTL CCTLL SUST SULD SUATOM "
    "SURED TEX TLD TLD4 TXD TXQ UBLKCP UTMALDG UTMASTG UTMAPF",
    "mem_shared": "LDS STS ATOMS LDSM STSM",
    "mem_local": "LDL STL",
    "mem_const": "LDC ULDC",
    "cross_lane": "SHFL VOTE VOTEU MATCH REDUX CREDUX",
    "sync": "BAR MEMBAR DEPBAR ERRBAR WARPSYNC FENCE NANOSLEEP SYNCS ARRIVES UCGABAR_ARV "
    "UCGABAR_WAIT ELECT",
    "control": "BRA BRX BRXU JMP JMX JMXU CALL RET EXIT BSSY BSYNC BREAK BPT KILL YIELD RPCMOV "
    "ACQBULK ENDCOLLECTIVE WARPGROUP",
    "other": "NOP PMTRIG",
}
_SASS_CLASS = {op: cls for cls, ops in _SASS.items() for op in ops.split()}
_SASS_LINE = re.compile(
    r"^\s*(?:/\*[0-9a-f]+\*/)?\s*(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\s*(.*)$"
)


def sass_class(mnemonic: str) -> str:
    """The class of one SASS opcode (``IMAD.WIDE.U32`` → int)."""
    base = mnemonic.split(".", 1)[0]
    if cls := _SASS_CLASS.get(base):
        return cls
    if "MMA" in base:
        return "matrix"
    if base.startswith("U"):
        return "scalar"
    if base.startswith("F") and base[1:2] not in ("2", "R"):
        return "fp32"
    return "int"


# --- AMDGPU ------------------------------------------------------------------------------

_TRANSCENDENTAL = re.compile(r"^v_(exp|log|rcp|rsq|sqrt|sin|cos)(_legacy)?_")
_CROSS_LANE = re.compile(
    r"^(v_readlane|v_writelane|v_readfirstlane|v_permlane|ds_bpermute|ds_permute|ds_swizzle)"
)
_DPP = re.compile(
    r"\b(quad_perm|row_shl|row_shr|row_ror|row_mirror|row_half_mirror|"
    r"row_bcast|row_share|row_xmask|wave_shl|wave_shr|wave_rol|wave_ror|dpp8)"
)
_SYNC = re.compile(
    r"^(s_barrier|s_waitcnt|s_wait_|buffer_wbl2|buffer_inv|buffer_gl[01]_inv|buffer_wbinvl1|"
    r"s_dcache_|s_icache_|global_inv|global_wb|s_sleep|s_sethalt|s_wakeup)"
)
_CONTROL = re.compile(
    r"^(s_branch|s_cbranch|s_endpgm|s_setpc|s_swappc|s_getpc|s_call|s_trap|s_rfe)"
)
_OTHER = re.compile(
    r"^(s_nop|s_setprio|s_delay_alu|s_clause|s_inst_prefetch|s_set_inst_prefetch|"
    r"s_denorm_mode|s_round_mode|s_setreg|s_getreg|s_ttrace|s_version|s_code_end|"
    r"s_singleuse_vdst|s_sendmsg|s_alloc_vgpr|s_set_vgpr_msb)"
)


def amdgpu_class(mnemonic: str, operands: str = "") -> str:
    """The class of one AMDGPU instruction (``v_fmac_f32_e32`` → fp32)."""
    m = mnemonic
    if _SYNC.match(m):
        return "sync"
    if _CONTROL.match(m):
        return "control"
    if _OTHER.match(m):
        return "other"
    if _CROSS_LANE.match(m) or (m.startswith("v_") and _DPP.search(operands)) or "_dpp" in m:
        return "cross_lane"
    if m.startswith(("s_load", "s_buffer_load", "s_scratch_load", "s_prefetch")):
        return "mem_const"
    if m.startswith(("s_store", "s_buffer_store", "s_atomic")):
        return "mem_global"
    if m.startswith("ds_"):
        return "mem_shared"
    if m.startswith(("global_", "flat_")):
        return "mem_global"
    if m.startswith(("scratch_", "buffer_")):
        return "mem_local"
    if m.startswith(("v_mfma", "v_smfmac", "v_wmma", "v_swmmac")):
        return "matrix"
    if m.startswith(("v_mov", "s_mov", "s_cmov", "v_accvgpr_mov", "s_movk")):
        return "move"
    if m.startswith("s_"):
        return "scalar"
    if not m.startswith("v_"):
        return "other"
    if m.startswith("v_cvt") or "_cvt_" in m:
        return "convert"
    if _TRANSCENDENTAL.match(m):
        return "transcendental"
    if m.startswith("v_dual_"):
        # A VOPD pair (RDNA3+: "v_dual_mov_b32 ... :: v_dual_add_f32 ..."): its first half.
        return amdgpu_class("v_" + m.removeprefix("v_dual_"))
    if re.search(r"_f64(_|$)", m):
        return "fp64"
    if re.search(r"_(b?f16|f16x2)(_|$)", m):
        return "fp16"
    if re.search(r"_f32(_|$)", m):
        return "fp32"
    return "int"


def count_classes(mnemonics: list[tuple[str, str]], kind: str) -> dict[str, int]:
    """Counts per class, every class present (zero where none), for ``(mnemonic,
    operands)`` pairs of one listing of ``kind`` sass, ptx or amdgpu."""
    counter: Counter[str] = Counter()
    for mnemonic, operands in mnemonics:
        if kind == "sass":
            cls = sass_class(mnemonic)
        elif kind == "ptx":
            cls = ptx_class(mnemonic)
        else:
            cls = amdgpu_class(mnemonic, operands)
        counter[cls] += 1
    return {cls: counter.get(cls, 0) for cls in CLASSES}


def sass_mnemonic(line: str) -> tuple[str, str] | None:
    """``(opcode, operands)`` of one SASS listing line, or None for labels and directives."""
    m = _SASS_LINE.match(line)
    if m is None or line.lstrip().startswith((".", "//")):
        return None
    return m.group(1), m.group(2).rstrip(" ;")


# --- PTX, where no SASS disassembler is installed ------------------------------------------

_PTX_LINE = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\s*(.*?);?\s*$")
_PTX_BASE = {
    "mov": "move", "cvta": "move", "cvt": "convert", "shfl": "cross_lane", "vote": "cross_lane",
    "match": "cross_lane", "redux": "cross_lane", "activemask": "cross_lane",
    "bar": "sync", "barrier": "sync", "membar": "sync", "fence": "sync", "nanosleep": "sync",
    "bra": "control", "ret": "control", "exit": "control", "call": "control", "brx": "control",
    "mma": "matrix", "wmma": "matrix", "wgmma": "matrix", "ldmatrix": "mem_shared",
}  # fmt: skip
_PTX_SPACE = {
    "global": "mem_global", "shared": "mem_shared", "local": "mem_local", "const": "mem_const",
    "param": "mem_const",
}  # fmt: skip


def ptx_class(mnemonic: str) -> str:
    """The class of one PTX instruction (``fma.rn.f32`` → fp32, ``ld.global.u32`` →
    mem_global)."""
    base, *mods = mnemonic.split(".")
    if cls := _PTX_BASE.get(base):
        return cls
    if base in ("ld", "st", "atom", "red", "prefetch", "cp"):
        return next((_PTX_SPACE[m] for m in mods if m in _PTX_SPACE), "mem_global")
    if base in ("ex2", "lg2", "sin", "cos", "rsqrt", "tanh") or (
        base in ("rcp", "sqrt") and "approx" in mods
    ):
        return "transcendental"
    if any(m in ("f16", "f16x2", "bf16", "bf16x2") for m in mods):
        return "fp16"
    if "f64" in mods:
        return "fp64"
    if "f32" in mods:
        return "fp32"
    return "int"


def ptx_mnemonic(line: str) -> tuple[str, str] | None:
    """``(opcode, operands)`` of one PTX instruction line, or None for the rest."""
    text = line.strip()
    if not text or text.startswith((".", "//", "$", "{", "}", ")", "(")) or text.endswith(":"):
        return None
    m = _PTX_LINE.match(text)
    return (m.group(1), m.group(2)) if m else None
