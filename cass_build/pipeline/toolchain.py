"""Finding the HIP toolchain: a real ROCm under ``/opt/rocm`` or Debian's ``/usr`` layout.

Nothing here runs a compiler: discovery reads files and ``PATH`` only, so it is
cheap enough for every build step. ``cass doctor`` prints what it finds.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..settings import environment

__all__ = [
    "HipToolchain",
    "NvccToolchain",
    "arch_from_env",
    "cuda_roots",
    "default_archs",
    "find_clang",
    "find_hip",
    "find_nvcc",
    "find_program",
    "install_hint",
    "program_candidates",
    "supported_archs",
    "target_archs",
]

#: The architectures verified when nothing asks for others: one CDNA, one RDNA.
PREFERRED_ARCHS = ("gfx90a", "gfx1030")

#: Variables naming target architectures, strongest first (CASS_ARCHS is read as
#: ``settings.Environment.archs``).
ARCH_VARIABLES = ("CASS_ARCHS", "CMAKE_HIP_ARCHITECTURES", "PYTORCH_ROCM_ARCH")

_APT_PACKAGES = "hipcc libamdhip64-dev rocm-device-libs"
_VERSION_LINE = re.compile(rb"#define\s+HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)")
_ARCH = re.compile(r"^gfx[0-9a-f]{3,4}(:[a-z+-:]+)?$")


@dataclass(frozen=True)
class HipToolchain:
    """A HIP compiler driver and the ROCm tree it belongs to."""

    hipcc: Path
    rocm_path: Path
    """``/opt/rocm`` (or ``$ROCM_PATH``) for a real ROCm, ``/usr`` for Debian's packages."""
    layout: Literal["rocm", "debian"]
    version: tuple[int, int, int]
    device_lib_dir: Path | None
    driver: Literal["hipcc", "clang"] = "hipcc"
    """``clang``: ``hipcc`` is a clang driver (amdclang++, clang++) of a ROCm that has
    retired hipcc; it is run with :meth:`compile_flags` and ``-x hip`` itself."""

    @property
    def version_text(self) -> str:
        return ".".join(map(str, self.version))

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment hipcc runs in: without HIP_PLATFORM=amd it silently picks nvcc."""
        env = dict(os.environ if base is None else base)
        env["HIP_PLATFORM"] = "amd"
        env.setdefault("ROCM_PATH", str(self.rocm_path))
        return env

    def compile_flags(self) -> list[str]:
        """Flags clang needs to find this HIP tree (hipcc finds it by itself)."""
        flags = [f"--rocm-path={self.rocm_path}"]
        if self.driver == "clang" and self.device_lib_dir is not None:
            flags.append(f"--rocm-device-lib-path={self.device_lib_dir}")
        return flags

    def fingerprint(self) -> str:
        """Changes when the compiler or its headers change: part of every cache key."""
        parts = [str(self.hipcc), self.version_text]
        for path in (self.hipcc, self.rocm_path / "include" / "hip" / "hip_version.h"):
            try:
                st = path.stat()
                parts.append(f"{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append("-")
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class NvccToolchain:
    nvcc: Path
    version: str


def _rocm_roots() -> tuple[Path, ...]:
    roots = []
    explicit = environment().rocm_path
    for value in (explicit, os.environ.get("ROCM_PATH"), os.environ.get("HIP_PATH")):
        if value:
            roots.append(Path(value))
    roots += [Path("/opt/rocm"), *sorted(Path("/opt").glob("rocm-*"), reverse=True), Path("/usr")]
    return tuple(roots)


def _read_version(root: Path) -> tuple[int, int, int] | None:
    try:
        found = dict(_VERSION_LINE.findall((root / "include/hip/hip_version.h").read_bytes()))
    except OSError:
        return None
    if b"MAJOR" not in found or b"MINOR" not in found:
        return None
    return (int(found[b"MAJOR"]), int(found[b"MINOR"]), int(found.get(b"PATCH", b"0")))


def _device_libs(root: Path) -> Path | None:
    candidates = [
        root / "amdgcn" / "bitcode",
        root / "lib" / "llvm" / "lib" / "clang",
        *sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/lib/amdgcn/bitcode"), reverse=True),
        Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"),
    ]
    for path in candidates:
        if (path / "ockl.bc").is_file() or (path / "ockl.amdgcn.bc").is_file():
            return path
    return None


@functools.cache
def find_hip() -> HipToolchain | None:
    """The HIP toolchain: ``$CASS_HIPCC``, a ROCm tree, or ``hipcc`` on ``PATH``; where
    hipcc is retired (newer ROCm), the tree's ``amdclang++``, or Debian's ``clang++``."""
    explicit = environment().hipcc
    if explicit and _is_clang(Path(explicit)):
        return _clang_toolchain(Path(explicit))
    for hipcc, given in program_candidates("hipcc", explicit=explicit, roots=_rocm_roots()):
        # .../bin/hipcc -> ..., following a symlink into a ROCm tree.
        root = given if given is not None else hipcc.resolve().parent.parent
        version = _read_version(root) or _read_version(Path("/usr"))
        if version is None:
            continue
        layout: Literal["rocm", "debian"] = "debian" if root == Path("/usr") else "rocm"
        return HipToolchain(hipcc, root, layout, version, _device_libs(root))
    return None if explicit else find_clang(_rocm_roots())


def _is_clang(path: Path) -> bool:
    return "clang" in path.name


def _clang_toolchain(clang: Path) -> HipToolchain | None:
    """A clang driver as the HIP compiler: ``<root>/llvm/bin/amdclang++`` or
    ``<root>/bin/amdclang++`` of a ROCm tree, or ``/usr/lib/llvm-N/bin/clang++`` (Debian)."""
    if not _executable(clang):
        return None
    parent = clang.parent.parent  # not resolved: amdclang++ is a link into llvm/
    root = parent.parent if parent.name == "llvm" else parent
    if _read_version(root) is None and _read_version(Path("/usr")) is not None:
        root = Path("/usr")  # Debian: clang under /usr/lib/llvm-N, HIP under /usr
    version = _read_version(root)
    if version is None:
        return None
    layout: Literal["rocm", "debian"] = "debian" if root == Path("/usr") else "rocm"
    return HipToolchain(clang, root, layout, version, _device_libs(root), driver="clang")


def find_clang(roots: Sequence[Path]) -> HipToolchain | None:
    """The HIP-capable clang of the first ROCm tree that has one (no hipcc found)."""
    candidates = [r / sub / "amdclang++" for r in roots for sub in ("llvm/bin", "bin")]
    if Path("/usr/include/hip/hip_version.h").is_file():
        candidates += sorted(Path("/usr/lib").glob("llvm-*/bin/clang++"), reverse=True)
    for clang in candidates:
        if (found := _clang_toolchain(clang)) is not None:
            return found
    return None


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def program_candidates(
    name: str, *, explicit: str = "", roots: tuple[Path, ...] = ()
) -> Iterator[tuple[Path, Path | None]]:
    """Where a program is looked for, in order: ``explicit`` (a ``CASS_*`` variable's
    value) when it is set, and that one only: the user chose it; else
    ``<root>/bin/<name>`` for each root; else ``PATH``.

    Yields (executable, the root it was found under or None); hipcc, nvcc and HIPIFY are
    all found this way, so every command that needs one finds the same one.
    """
    if explicit:
        if _executable(Path(explicit)):
            yield Path(explicit), None
        return
    for root in roots:
        if _executable(candidate := root / "bin" / name):
            yield candidate, root
    if on_path := shutil.which(name):
        yield Path(on_path), None


@functools.cache
def find_program(name: str, *, explicit: str = "", roots: tuple[Path, ...] = ()) -> Path | None:
    """The first of :func:`program_candidates`; asked once per process (a build step
    asks for every file)."""
    return next(
        (path for path, _ in program_candidates(name, explicit=explicit, roots=roots)), None
    )


def cuda_roots() -> tuple[Path, ...]:
    """Where CUDA toolkits live: ``$CUDA_HOME``, ``$CUDA_PATH``, then ``/usr/local/cuda``."""
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    return (*(Path(home) for home in homes if home), Path("/usr/local/cuda"))


def find_nvcc() -> NvccToolchain | None:
    """nvcc from ``$CUDA_HOME``/``$CUDA_PATH``, ``/usr/local/cuda`` or ``PATH``."""
    nvcc = find_program("nvcc", roots=cuda_roots())
    return None if nvcc is None else _nvcc_toolchain(nvcc)


@functools.cache
def _nvcc_toolchain(nvcc: Path) -> NvccToolchain:
    version = "unknown"
    info = nvcc.resolve().parent.parent / "version.json"
    try:
        import json

        version = str(json.loads(info.read_text())["cuda"]["version"])
    except (OSError, ValueError, KeyError, TypeError):
        if m := re.search(r"cuda-(\d+\.\d+)", str(nvcc.resolve())):
            version = m.group(1)
    return NvccToolchain(nvcc, version)


def supported_archs(toolchain: HipToolchain | None = None) -> tuple[str, ...]:
    """The gfx targets whose device libraries this toolchain has."""
    tc = toolchain or find_hip()
    if tc is None or tc.device_lib_dir is None:
        return ()
    found = []
    for bc in tc.device_lib_dir.glob("oclc_isa_version_*.bc"):
        found.append("gfx" + bc.stem.removeprefix("oclc_isa_version_"))
    return tuple(sorted(found))


def arch_from_env(environ: Mapping[str, str] | None = None) -> tuple[tuple[str, ...], str] | None:
    """Architectures from CASS_ARCHS, CMAKE_HIP_ARCHITECTURES or PYTORCH_ROCM_ARCH."""
    env = os.environ if environ is None else environ
    values = [environment(env).archs, *(env.get(name, "") for name in ARCH_VARIABLES[1:])]
    for name, value in zip(ARCH_VARIABLES, values, strict=True):
        if value.strip():
            return parse_archs(value.strip(), name), name
    return None


def parse_archs(value: str, origin: str = "--offload-arch") -> tuple[str, ...]:
    """``"gfx90a;gfx1030"``, ``"gfx90a,gfx1030"`` or ``"gfx90a gfx1030"`` as a tuple."""
    from ..errors import UsageError

    archs = tuple(a for a in re.split(r"[;, ]+", value.strip()) if a)
    for arch in archs:
        if not _ARCH.match(arch):
            msg = f"{origin}: {arch!r} is not an AMD GPU architecture (like gfx90a or gfx1030)"
            raise UsageError(msg)
    return archs


def target_archs(
    explicit: Sequence[str] = (),
    *,
    environ: Mapping[str, str] | None = None,
    local_gpus: bool = False,
) -> tuple[str, ...]:
    """The one arch policy, strongest first: ``explicit`` (``--offload-arch``, a target's
    ``OFFLOAD_ARCH``), then ``CASS_ARCHS``, ``CMAKE_HIP_ARCHITECTURES``,
    ``PYTORCH_ROCM_ARCH``; then, for builds that make binaries to run here
    (``local_gpus``), the GPUs ``rocm_agent_enumerator`` lists; else gfx90a and gfx1030
    where the device libraries have them."""
    if explicit:
        return tuple(a for value in explicit for a in parse_archs(value))
    if found := arch_from_env(environ):
        return found[0]
    if local_gpus and (gpus := _local_gpus()):
        return gpus
    return _preferred_archs()


def _local_gpus() -> tuple[str, ...]:
    tc = find_hip()
    enumerator = tc.rocm_path / "bin" / "rocm_agent_enumerator" if tc else None
    if enumerator is None or not enumerator.is_file():
        return ()
    from .._proc import run

    done = run([enumerator, "-t", "GPU"], timeout=30)
    if not done.ok:
        return ()
    return tuple(
        dict.fromkeys(a for a in re.findall(r"gfx[0-9a-f]+", done.stdout) if a != "gfx000")
    )


def default_archs(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The archs to verify for: the environment's, else gfx90a and gfx1030 where supported."""
    return target_archs(environ=environ)


def _preferred_archs() -> tuple[str, ...]:
    supported = supported_archs()
    preferred = tuple(a for a in PREFERRED_ARCHS if not supported or a in supported)
    return preferred or supported[:1]


def install_hint() -> str:
    """The one command that installs a HIP toolchain on this kind of machine."""
    if Path("/etc/debian_version").exists():
        return f"apt-get install -y {_APT_PACKAGES}   (or install ROCm into /opt/rocm)"
    return "install ROCm (https://rocm.docs.amd.com) so that /opt/rocm/bin/hipcc exists"
