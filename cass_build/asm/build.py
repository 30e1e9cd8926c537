"""One CUDA file to every target: translate it to HIP, then compile both sides.

The CUDA source goes to nvcc for each ``sm_XX``; its rules-only HIP translation
(``verify="none"``, ``strategy="rules"``: the assembly shows what the translation
itself becomes) goes to each gfx target. Targets are independent, so they compile in
parallel, and a target that fails does not stop the others: its one-line error is kept
in ``Build.errors``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .. import include_dir
from ..errors import CassError
from .amdgpu import amd_asm
from .resources import TargetAsm
from .sass import nvidia_asm
from .targets import AmdArch, NvidiaArch

__all__ = ["Build", "build_file", "translate_hip"]


@dataclass
class Build:
    """What one source became on every target that could be produced."""

    source: Path
    cuda: str
    hip: str
    targets: list[TargetAsm] = field(default_factory=list)
    """In the order asked: NVIDIA targets first, then AMD."""
    failures: dict[str, CassError] = field(default_factory=dict)
    """Target → why it could not be produced (a one-line message and a hint)."""

    @property
    def errors(self) -> dict[str, str]:
        return {target: str(exc) for target, exc in self.failures.items()}


def translate_hip(source: Path, mirror_to: Path) -> tuple[Path, str]:
    """The rules-only HIP translation of ``source`` written under ``mirror_to``, with the
    local headers it includes translated beside it."""
    from ..pipeline import PipelineOptions, translate_file
    from ..settings import Settings

    root = source.resolve().parent
    # The CASS_* settings apply (CASS_WARP=native shows what --warp native costs).
    options = PipelineOptions(
        verify="none", strategy="rules", mirror=((root, mirror_to),), settings=Settings.from_env()
    )
    result = translate_file(source, options)
    for path, data in result.headers.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    hip = mirror_to / (source.stem + ".hip")
    hip.write_bytes(result.data)
    return hip, result.text


def build_file(
    source: Path,
    nvidia: Sequence[NvidiaArch],
    amd: Sequence[AmdArch],
    *,
    backend: str = "auto",
    include_dirs: Sequence[Path] = (),
    defines: Sequence[str] = (),
    std: str = "c++17",
    jobs: int = 2,
) -> Build:
    """Compile ``source`` for every target; raises only for an unreadable or
    untranslatable source (a CassError), never for one target's failure.

    Both sides compile with ``-std=<std>`` (nvcc 13's default is C++17, Debian's hipcc's
    C++11), so a source means the same thing to both compilers."""
    source = Path(source)
    cuda = source.read_text(encoding="utf-8", errors="replace")
    with tempfile.TemporaryDirectory(prefix="cass-asm-") as name:
        work = Path(name)
        hip_dir = work / "hip"
        hip_dir.mkdir()
        hip_path, hip = translate_hip(source, hip_dir) if amd else (work / "unused.hip", "")
        includes = [*include_dirs, source.resolve().parent]
        flags = [f"-std={std}"] if std else []
        build = Build(source, cuda, hip)

        def one(arch: NvidiaArch | AmdArch) -> TargetAsm:
            if isinstance(arch, NvidiaArch):
                return nvidia_asm(
                    source.resolve(), arch, work, include_dirs=includes, defines=defines,
                    flags=flags, shown=source,
                )  # fmt: skip
            return amd_asm(
                hip_path, arch, work, backend=backend,
                include_dirs=[hip_dir, *includes, Path(include_dir())],
                defines=defines, flags=flags, shown=source,
            )  # fmt: skip

        archs: list[NvidiaArch | AmdArch] = [*nvidia, *amd]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(one, a) for a in archs]
            for arch, future in zip(archs, futures, strict=True):
                try:
                    build.targets.append(future.result())
                except CassError as exc:
                    build.failures[arch.name] = exc
    return build
