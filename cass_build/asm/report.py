"""The per-kernel resource report: NVIDIA and each AMD target side by side.

Kernels are matched across vendors by mangled name (CUDA and HIP both use the Itanium
ABI, and the translation renames no kernel). For each kernel and target the report
holds the compiler's figures and an occupancy estimate at one block size; a kernel is
*flagged* on an AMD target whose effective occupancy is below ``ratio`` times that of
the reference NVIDIA target (the first one asked for), with the reasons. Renderers: a
terminal table, JSON, and a self-contained HTML page with an SVG chart.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._proc import run
from .._version import __version__
from .build import Build
from .occupancy import Occupancy, amd_occupancy, nvidia_occupancy, sgpr_waves, vgpr_waves
from .resources import CLASSES, AmdResources, NvidiaResources, TargetAsm
from .targets import AMD_ARCHS, NVIDIA_ARCHS

__all__ = [
    "Flag",
    "KernelRow",
    "Report",
    "analyse",
    "canonical_signature",
    "demangle",
    "render_html",
    "render_text",
]


@dataclass
class Flag:
    """A kernel whose occupancy on an AMD target falls far below NVIDIA's."""

    kernel: str
    target: str
    reference: str
    amd: float
    nvidia: float
    reasons: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "target": self.target,
            "reference": self.reference,
            "amd_effective": round(self.amd, 4),
            "nvidia_effective": round(self.nvidia, 4),
            "reasons": self.reasons,
        }


@dataclass
class KernelRow:
    name: str
    """The mangled name: NVIDIA's where the kernel has one."""
    demangled: str
    block: int
    per_target: dict[str, tuple[NvidiaResources | AmdResources, Occupancy]] = field(
        default_factory=dict
    )
    flags: list[Flag] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)
    """Target → the kernel's mangled name there (HIP's vector types mangle differently)."""


@dataclass
class Report:
    source: str
    block: int
    dynamic_shared: int
    ratio: float
    targets: list[TargetAsm]
    errors: dict[str, str]
    kernels: list[KernelRow]

    @property
    def flags(self) -> list[Flag]:
        return [f for k in self.kernels for f in k.flags]

    def as_dict(self, *, listings: bool = True) -> dict[str, Any]:
        by_target = {t.target: t for t in self.targets}
        return {
            "cass_version": __version__,
            "source": self.source,
            "block": self.block,
            "dynamic_shared": self.dynamic_shared,
            "flag_ratio": self.ratio,
            "targets": [
                {k: v for k, v in t.as_dict().items() if k != "kernels"} for t in self.targets
            ],
            "errors": self.errors,
            "kernels": [
                {
                    "name": k.name,
                    "names": k.names,
                    "demangled": k.demangled,
                    "block": k.block,
                    "targets": {
                        t: {
                            "resources": res.as_dict(),
                            "occupancy": occ.as_dict(),
                            **(
                                {"listing": by_target[t].kernels[k.names[t]].text}
                                if listings
                                else {}
                            ),
                        }
                        for t, (res, occ) in k.per_target.items()
                    },
                    "flags": [f.as_dict() for f in k.flags],
                }
                for k in self.kernels
            ],
            "flags": [f.as_dict() for f in self.flags],
        }

    def to_json(self, *, listings: bool = True) -> str:
        return json.dumps(self.as_dict(listings=listings), indent=2) + "\n"


def demangle(names: Sequence[str]) -> dict[str, str]:
    """Readable names through c++filt (or llvm-cxxfilt) where installed, else as given."""
    tool = shutil.which("c++filt") or shutil.which("llvm-cxxfilt")
    if not names or tool is None:
        return {n: n for n in names}
    done = run([tool], input=("\n".join(names) + "\n").encode(), timeout=30)
    out = done.stdout.splitlines() if not done.stopped else []
    return dict(zip(names, out, strict=False)) if len(out) == len(names) else {n: n for n in names}


_VECTOR = re.compile(
    r"HIP_vector_type<(signed char|unsigned char|char|unsigned short|short|unsigned int|int|"
    r"unsigned long long|long long|unsigned long|long|float|double), (\d)u?>"
)
_SCALAR = {
    "signed char": "char", "unsigned char": "uchar", "unsigned short": "ushort",
    "unsigned int": "uint", "unsigned long long": "ulonglong", "long long": "longlong",
    "unsigned long": "ulong",
}  # fmt: skip


#: HIP types that replace a CUDA type of another name: ROCm 5.2's bf16 types, and the
#: texture and surface objects (``unsigned long long`` handles in CUDA, pointers in HIP).
_RENAMED = re.compile(
    r"\b(?:__hip_bfloat162|__hip_bfloat16|hip_bfloat16)\b|\b__hip_(?:texture|surface) ?\*"
)
_CUDA_NAME = {
    "__hip_bfloat162": "__nv_bfloat162", "__hip_bfloat16": "__nv_bfloat16",
    "hip_bfloat16": "__nv_bfloat16",
}  # fmt: skip


def canonical_signature(demangled: str) -> str:
    """A demangled kernel signature with HIP's types written as CUDA's
    (``HIP_vector_type<unsigned char, 4u>`` → ``uchar4``, ``hip_bfloat16`` →
    ``__nv_bfloat16``, ``__hip_texture*`` → ``unsigned long long``)."""
    text = _VECTOR.sub(lambda m: _SCALAR.get(m.group(1), m.group(1)) + m.group(2), demangled)
    return _RENAMED.sub(lambda m: _CUDA_NAME.get(m.group(0), "unsigned long long"), text)


def _reasons(res: AmdResources, occ: Occupancy, ref: Occupancy, dynamic: int) -> list[str]:
    arch = AMD_ARCHS[occ.target]
    waves = -(-occ.block // arch.wave)
    lds = occ.limits.get("lds", 0)
    used = f"{res.lds + dynamic} B" + (f" ({dynamic} B dynamic)" if dynamic else "")
    found: list[str] = []
    if occ.limiter == "lds" and lds == 0:
        found.append(
            f"LDS limit: {used} exceeds the {arch.lds_per_group} B one workgroup may use on "
            f"{arch.name}: the kernel cannot launch"
        )
    elif occ.limiter == "lds":
        found.append(
            f"LDS limit: {used} per workgroup lets {lds} workgroup(s) share the "
            f"{arch.lds_per_cu // 1024} KiB of a {'CU' if arch.wave == 64 else 'WGP'}"
        )
    elif occ.limiter == "vgpr":
        found.append(
            f"VGPR pressure: {res.vgprs} VGPRs allow {vgpr_waves(arch, res.vgprs)} of "
            f"{arch.max_waves} waves per SIMD"
        )
    elif occ.limiter == "sgpr":
        found.append(
            f"SGPR pressure: {res.sgprs} SGPRs allow {sgpr_waves(arch, res.sgprs)} of "
            f"{arch.max_waves} waves per SIMD"
        )
    elif occ.limiter == "barriers":
        found.append(
            f"workgroup limit: at most {arch.max_groups} workgroups of {waves} waves per CU"
        )
    if arch.wave == 64 and occ.lane_use < ref.lane_use:
        found.append(
            f"wave64 versus wave32: a block of {occ.block} threads fills {occ.lane_use:.0%} of "
            f"its 64-lane waves on {arch.name} ({ref.lane_use:.0%} of its warps on {ref.target})"
        )
    if res.scratch:
        found.append(f"scratch: {res.scratch} B per work-item lives in memory")
    if not found:
        found.append(f"limited by {occ.limiter}")
    return found


def analyse(
    build: Build, *, block: int = 256, dynamic_shared: int = 0, ratio: float = 0.5
) -> Report:
    """Occupancy for every kernel on every target, and the flags."""
    names: list[str] = []
    for target in build.targets:
        names += [n for n in target.kernels if n not in names]
    readable = demangle(names)
    # Kernels match by mangled name, or failing that by signature with HIP's types spelled
    # as CUDA's: float4 is HIP_vector_type<float, 4u> in HIP, a different mangling.
    keys: dict[str, str] = {}
    first: dict[str, str] = {}
    for name in names:
        keys[name] = first.setdefault(canonical_signature(readable.get(name, name)), name)
    reference = next((t for t in build.targets if t.vendor == "nvidia"), None)
    rows: list[KernelRow] = []
    for key in dict.fromkeys(keys.values()):
        found_in = {t.target: n for t in build.targets for n in t.kernels if keys.get(n) == key}
        # __launch_bounds__ caps the block (a larger launch would fail); the AMD code object
        # records it as max_flat_workgroup_size, ptxas does not report it.
        bounds = [block]
        for t in build.targets:
            found = t.kernels.get(found_in.get(t.target, ""))
            if found is not None and isinstance(found.resources, AmdResources):
                bounds.append(found.resources.max_flat_workgroup_size)
        size = min(bounds)
        row = KernelRow(key, readable.get(key, key), size, names=found_in)
        for target in build.targets:
            kernel = target.kernels.get(found_in.get(target.target, ""))
            if kernel is None:
                continue
            res = kernel.resources
            if isinstance(res, NvidiaResources):
                occ = nvidia_occupancy(
                    NVIDIA_ARCHS[target.target], registers=res.registers,
                    shared=res.shared + dynamic_shared, block=size,
                )  # fmt: skip
            else:
                occ = amd_occupancy(
                    AMD_ARCHS[target.target], vgprs=res.vgprs, sgprs=res.sgprs,
                    lds=res.lds + dynamic_shared, block=size,
                )  # fmt: skip
            row.per_target[target.target] = (res, occ)
        ref = row.per_target.get(reference.target) if reference is not None else None
        if ref is not None and reference is not None:
            for target in build.targets:
                entry = row.per_target.get(target.target)
                if target.vendor != "amd" or entry is None:
                    continue
                res, occ = entry
                assert isinstance(res, AmdResources)
                if occ.effective < ratio * ref[1].effective:
                    row.flags.append(
                        Flag(key, target.target, reference.target, occ.effective,
                             ref[1].effective, _reasons(res, occ, ref[1], dynamic_shared))
                    )  # fmt: skip
        rows.append(row)
    return Report(str(build.source), block, dynamic_shared, ratio, build.targets,
                  dict(build.errors), rows)  # fmt: skip


# --- terminal ----------------------------------------------------------------------------


def _regs(res: NvidiaResources | AmdResources) -> str:
    if isinstance(res, NvidiaResources):
        return str(res.registers)
    agpr = f" a{res.agprs}" if res.agprs else ""
    return f"v{res.vgprs} s{res.sgprs}{agpr}"


def _spill(res: NvidiaResources | AmdResources) -> str:
    if isinstance(res, NvidiaResources):
        spill = res.spill_stores + res.spill_loads
        return f"{res.stack}" + (f" (spill {spill})" if spill else "")
    spill = res.vgpr_spills + res.sgpr_spills
    return f"{res.scratch}" + (f" (spill {spill})" if spill else "")


def _occ(occ: Occupancy) -> str:
    """``32/64 warps 50%`` (per SM); AMD: ``1/8 waves 12% (4/CU)``, per SIMD and per CU
    (WGP on RDNA, whose workgroups HIP places in WGP mode)."""
    text = f"{occ.active:g}/{occ.maximum} {occ.unit.split('/')[0]} {occ.effective:.0%}"
    arch = AMD_ARCHS.get(occ.target)
    if arch is None or not occ.unit.endswith("SIMD"):
        return text
    return f"{text} ({occ.resident}/{'CU' if arch.wave == 64 else 'WGP'})"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        out.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return out


def render_text(report: Report, *, classes: bool = False) -> str:
    """The report as plain text columns, one table per kernel."""
    lines = [
        f"{report.source}: {len(report.kernels)} kernel(s), block {report.block} threads"
        + (f", {report.dynamic_shared} B dynamic shared" if report.dynamic_shared else "")
    ]
    for target in report.targets:
        lines.append(f"  {target.target}: {target.kind}, {target.tool}")
        lines += [f"    note: {n}" for n in target.notes]
    for t in report.errors:
        lines.append(f"  {t}: not produced (the error is on stderr and in --json)")
    for k in report.kernels:
        lines.append("")
        title = k.demangled if k.demangled == k.name else f"{k.demangled}  [{k.name}]"
        lines.append(f"kernel {title}")
        head = ["target", "wave", "registers", "shared/LDS", "stack/scratch", "insns",
                "occupancy", "limited by"]  # fmt: skip
        if classes:
            head += list(CLASSES)
        table = [head]
        for t, (res, occ) in k.per_target.items():
            wave = "32" if isinstance(res, NvidiaResources) else str(res.wave)
            shared = res.shared if isinstance(res, NvidiaResources) else res.lds
            insns = str(res.total)
            if isinstance(res, AmdResources) and res.inline_asm:
                insns += f" (asm {res.inline_asm})"
            row = [t, wave, _regs(res), str(shared), _spill(res), insns, _occ(occ), occ.limiter]
            if classes:
                row += [str(res.instructions.get(c, 0)) for c in CLASSES]
            table.append(row)
        lines += ["  " + ln for ln in _table(table)]
        for f in k.flags:
            lines.append(
                f"  ! {f.target}: {f.amd:.0%} occupancy against {f.nvidia:.0%} on "
                f"{f.reference}: " + "; ".join(f.reasons)
            )
    flagged = len(report.flags)
    lines.append("")
    lines.append(f"{flagged} flag(s): AMD occupancy below {report.ratio:g}x the NVIDIA reference")
    return "\n".join(lines) + "\n"


# --- HTML --------------------------------------------------------------------------------

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.flag{color:#a40000}.listings{display:flex;gap:8px;overflow-x:auto}
.listings pre{font:12px/1.3 monospace;background:#f8f8f8;border:1px solid #ddd;padding:6px;
max-height:40em;overflow:auto;min-width:22em}.note{color:#666}code{font-size:12px}
h1 code,h2 code{font-size:inherit}td.l,th.l{text-align:left}
"""


def _svg(k: KernelRow) -> str:
    """Horizontal bars: effective occupancy per target, NVIDIA in green, AMD in red."""
    bar_h, gap, left, width = 18, 6, 90, 320
    items = list(k.per_target.items())
    height = len(items) * (bar_h + gap) + gap
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" '
             f'height="{height}" role="img" aria-label="occupancy per target">']  # fmt: skip
    for i, (t, (res, occ)) in enumerate(items):
        y = gap + i * (bar_h + gap)
        w = round(width * min(occ.effective, 1.0), 1)
        colour = "#4c9a2a" if isinstance(res, NvidiaResources) else "#c0392b"
        parts.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end" '
                     f'font-size="12">{html.escape(t)}</text>')  # fmt: skip
        parts.append(f'<rect x="{left}" y="{y}" width="{width}" height="{bar_h}" fill="#eee"/>')
        parts.append(f'<rect x="{left}" y="{y}" width="{w}" height="{bar_h}" fill="{colour}"/>')
        parts.append(f'<text x="{left + width + 6}" y="{y + 13}" font-size="12">'
                     f"{occ.effective:.0%}</text>")  # fmt: skip
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: Report) -> str:
    """One self-contained page: no scripts, no external assets."""
    e = html.escape
    by_target = {t.target: t for t in report.targets}
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>cass asm: {e(report.source)}</title><style>{_CSS}</style></head><body>",
        f"<h1>cass asm: <code>{e(report.source)}</code></h1>",
        f"<p>{len(report.kernels)} kernel(s); occupancy at {report.block} threads per block"
        + (f" and {report.dynamic_shared} B dynamic shared memory" if report.dynamic_shared else "")
        + f"; flagged below {report.ratio:g}x the NVIDIA reference.</p>",
        '<table><tr><th>target</th><th>listing</th><th class="l">tools</th></tr>',
    ]
    for t in report.targets:
        notes = "".join(f'<br><span class="note">{e(n)}</span>' for n in t.notes)
        out.append(f"<tr><td>{e(t.target)}</td><td>{e(t.kind)}</td>"
                   f'<td class="l">{e(t.tool)}{notes}</td></tr>')  # fmt: skip
    for failed, err in report.errors.items():
        out.append(f'<tr><td>{e(failed)}</td><td>error</td><td class="flag" '
                   f'style="text-align:left">{e(err)}</td></tr>')  # fmt: skip
    out.append("</table>")
    for k in report.kernels:
        out.append(f"<h2><code>{e(k.demangled)}</code></h2><p><code>{e(k.name)}</code></p>")
        out.append(_svg(k))
        out.append("<table><tr><th>target</th><th>wave</th><th>registers</th>"
                   "<th>shared/LDS B</th><th>stack/scratch B</th><th>instructions</th>"
                   "<th>occupancy</th><th>limited by</th></tr>")  # fmt: skip
        for name, (res, occ) in k.per_target.items():
            wave = "32" if isinstance(res, NvidiaResources) else str(res.wave)
            shared = res.shared if isinstance(res, NvidiaResources) else res.lds
            out.append(
                f"<tr><td>{e(name)}</td><td>{wave}</td><td>{e(_regs(res))}</td><td>{shared}</td>"
                f"<td>{e(_spill(res))}</td><td>{res.total}</td><td>{e(_occ(occ))}</td>"
                f"<td>{e(occ.limiter)}</td></tr>"
            )
        out.append("</table>")
        out.append("<table><tr><th>class</th>" + "".join(f"<th>{e(n)}</th>" for n in k.per_target)
                   + "</tr>")  # fmt: skip
        for c in CLASSES:
            counts = [res.instructions.get(c, 0) for res, _ in k.per_target.values()]
            if any(counts):
                out.append(f"<tr><td>{c}</td>" + "".join(f"<td>{n}</td>" for n in counts)
                           + "</tr>")  # fmt: skip
        out.append("</table>")
        for f in k.flags:
            out.append(
                f'<p class="flag">&#9888; {e(f.target)}: {f.amd:.0%} occupancy against '
                f"{f.nvidia:.0%} on {e(f.reference)}: {e('; '.join(f.reasons))}</p>"
            )
        out.append('<div class="listings">')
        for name in k.per_target:
            text = by_target[name].kernels[k.names[name]].text
            out.append(f"<div><b>{e(name)}</b><pre>{e(text)}</pre></div>")
        out.append("</div>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
