"""The wave64 mode of the HIP-on-CUDA layer: the nvcc flags that select it.

Built with ``-DCASS_WAVE=64``, the layer runs translated HIP with AMD's 64-lane wavefronts
emulated on pairs of NVIDIA warps (``data/hip_on_cuda/wave64.h``; docs/hip_on_cuda.md says
what is emulated and what is not), so code that is right only for 32-lane warps fails on
an NVIDIA GPU as it would on a CDNA GPU.

The mode renames CUDA's warp intrinsics with macros. The HIP headers of the layer keep
them away from the CUDA headers they include; CUDA library headers that a translation
includes under their own names (Thrust, libcu++: CASS leaves those as they are) are
instead read before the layer, with ``-include``, which :func:`nvcc_flags` adds.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from .errors import UsageError

__all__ = ["WAVES", "nvcc_flags", "parse_waves"]

#: The wave sizes the layer offers: NVIDIA's warps, AMD's wavefronts (emulated).
WAVES = (32, 64)

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)


def parse_waves(text: str) -> tuple[int, ...]:
    """``"32,64"`` -> ``(32, 64)``; a size other than 32 or 64 is a usage error."""
    waves: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if part not in ("32", "64"):
            msg = f"--wave: {text!r}: each wave size must be 32 or 64"
            raise UsageError(msg, hint="--wave 32, --wave 64 or --wave 32,64")
        if int(part) not in waves:
            waves.append(int(part))
    return tuple(sorted(waves))


def _cuda_include_dirs(nvcc: Path | None) -> list[Path]:
    """CUDA's own include directories (its headers and CCCL's), wherever the toolkit is."""
    tops: list[Path] = []
    for found in (nvcc, Path(p) if (p := shutil.which("nvcc")) else None):
        if found is not None:
            tops.append(found.resolve().parent.parent)  # nvcc may be a link or a wrapper
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if home := os.environ.get(var):
            tops.append(Path(home))
    tops.append(Path("/usr/local/cuda"))
    dirs: list[Path] = []
    for top in tops:
        for include in (top / "include", *sorted(top.glob("targets/*/include"))):
            if (include / "cuda_runtime.h").is_file():
                dirs += [d for d in (include, include / "cccl") if d.is_dir() and d not in dirs]
    return dirs


def _angle_includes(
    path: Path, include_dirs: Sequence[Path], seen: set[Path] | None = None
) -> Iterator[str]:
    """The ``<...>`` includes of ``path`` and of the local headers it reaches, in the order
    a compiler meets them."""
    seen = set() if seen is None else seen
    path = path.resolve()
    if path in seen:
        return
    seen.add(path)
    try:
        text = path.read_bytes()
    except OSError:
        return
    for bracket, raw in _INCLUDE.findall(text):
        name = raw.decode("utf-8", "replace").strip()
        if bracket == b"<":
            yield name
            continue
        for base in (path.parent, *include_dirs):
            if (Path(base) / name).is_file():
                yield from _angle_includes(Path(base) / name, include_dirs, seen)
                break


def nvcc_flags(
    wave: int,
    source: Path,
    include_dirs: Sequence[Path] = (),
    nvcc: Path | None = None,
) -> list[str]:
    """nvcc flags that build ``source`` (translated HIP) in the layer's ``wave`` mode.

    32 needs none. 64 defines ``CASS_WAVE=64``, caps registers at 64 per thread (the
    emulation's gatherings, inlined at every wave operation, took a 1024-thread kernel to
    66 registers on an H200 run: 1024 x 66 exceeds the 65,536 registers of a block, so the
    launch failed with "too many resources requested for launch"; 64 fits any block size,
    at worst with spills) and pre-includes the headers of CUDA's own include directories
    that ``source`` and its local headers include by name.
    """
    if wave not in WAVES:
        msg = f"{source}: wave size {wave}: the HIP-on-CUDA layer offers 32 and 64"
        raise UsageError(msg, hint="pass wave=32 or wave=64")
    if wave == 32:
        return []
    flags = ["-DCASS_WAVE=64", "-maxrregcount=64"]
    cuda_dirs = _cuda_include_dirs(nvcc)
    done: set[str] = set()
    for header in _angle_includes(Path(source), include_dirs):
        if header not in done and any((d / header).is_file() for d in cuda_dirs):
            done.add(header)
            flags += ["-include", header]
    return flags
