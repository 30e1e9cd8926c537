"""The assembly level: NVIDIA SASS and AMD ISA of every kernel, resources and occupancy.

``cass asm FILE.cu`` and ``cass dataset asm`` (``cli.py``) sit on three layers:

- ``build.py``: translate to HIP, compile every target (``sass.py`` for NVIDIA,
  ``amdgpu.py`` for AMD, ``_lower.py`` for the targets LLVM 22 lowers);
- ``resources.py`` and ``occupancy.py``: the figures and the estimates, with the
  per-target limits in ``targets.py``;
- ``report.py`` and ``dataset.py``: what users read.

Importing this package loads none of them, nor llvmlite.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["resources_for"]


def resources_for(
    hip_path: str | Path,
    archs: tuple[str, ...] | list[str],
    *,
    cuda_path: str | Path | None = None,
    sm: str = "sm_90",
    block: int = 256,
    flag_ratio: float = 0.5,
) -> dict[str, Any]:
    """Per-kernel resources and occupancy of an already translated HIP file, for
    ``cass bench``'s resource column.

    Returns ``{"targets": {arch: {kernel: {vgprs, sgprs, agprs, lds, scratch, spills,
    occupancy, limiter}}}, "errors": {arch: message}, "flags": [...], "worst": ...}``.
    With ``cuda_path`` the CUDA original is also compiled for ``sm``; each kernel whose AMD
    occupancy is below ``flag_ratio`` times NVIDIA's is flagged, with the reasons, and
    ``worst`` is the lowest AMD/NVIDIA ratio of effective occupancy over every kernel and
    AMD target: ``{ratio, kernel, demangled, target, amd, nvidia, reasons, flagged}``, or
    None without an NVIDIA figure to compare with. Never raises for a target that fails:
    its one-line message is in ``errors``.
    """
    import tempfile

    from ..errors import CassError
    from .amdgpu import amd_asm
    from .build import Build
    from .report import _reasons, analyse
    from .resources import AmdResources
    from .sass import nvidia_asm
    from .targets import parse_amd, parse_nvidia

    hip = Path(hip_path)
    build = Build(Path(cuda_path or hip), "", hip.read_text(errors="replace"))
    with tempfile.TemporaryDirectory(prefix="cass-asm-") as name:
        work = Path(name)
        if cuda_path is not None:
            try:
                nv = parse_nvidia(sm)
                cuda = Path(cuda_path).resolve()
                build.targets.append(
                    nvidia_asm(cuda, nv, work, include_dirs=[cuda.parent], flags=["-std=c++17"])
                )
            except CassError as exc:
                build.failures[sm] = exc
        for arch in archs:
            try:
                gfx = parse_amd(arch)
                build.targets.append(
                    amd_asm(
                        hip.resolve(),
                        gfx,
                        work,
                        include_dirs=[hip.resolve().parent],
                        flags=["-std=c++17"],
                    )
                )
            except CassError as exc:
                build.failures[arch] = exc
    report = analyse(build, block=block, ratio=flag_ratio)
    out: dict[str, Any] = {"targets": {}, "errors": build.errors, "flags": [], "worst": None}
    worst: dict[str, Any] | None = None
    reference = next((t.target for t in build.targets if t.vendor == "nvidia"), "")
    for row in report.kernels:
        for target, (res, occ) in row.per_target.items():
            figures = res.as_dict()
            figures.pop("instructions", None)
            figures["occupancy"] = round(occ.effective, 4)
            figures["limiter"] = occ.limiter
            figures["block"] = occ.block
            out["targets"].setdefault(target, {})[row.name] = figures
        ref = row.per_target.get(reference)
        if ref is None or ref[1].effective <= 0:
            continue  # no NVIDIA figure, or a kernel that cannot launch there either
        for target, (res, occ) in row.per_target.items():
            if not isinstance(res, AmdResources):
                continue
            ratio = occ.effective / ref[1].effective
            if worst is not None and ratio >= worst["ratio"]:
                continue
            flag = next((f for f in row.flags if f.target == target), None)
            worst = {
                "ratio": ratio,
                "kernel": row.name,
                "demangled": row.demangled,
                "target": target,
                "amd": round(occ.effective, 4),
                "nvidia": round(ref[1].effective, 4),
                # Unflagged kernels get the limiter in the same words a flag would use.
                "reasons": flag.reasons if flag else _reasons(res, occ, ref[1], 0),
                "flagged": flag is not None,
            }
    if worst is not None:
        worst["ratio"] = round(worst["ratio"], 4)
    out["worst"] = worst
    out["flags"] = [f.as_dict() for f in report.flags]
    return out
