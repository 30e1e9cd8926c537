"""Shared by the build-system tests: real tools, copied examples, offload bundles."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ARCHS = ("gfx90a", "gfx1030")
BUNDLE_ID = "hipv4-amdgcn-amd-amdhsa--"
EM_AMDGPU = 224


def tool(name: str, *extra: str) -> str | None:
    """``name`` on PATH, else in one of the ``extra`` directories (globs allowed)."""
    found = shutil.which(name)
    if found:
        return found
    for pattern in extra:
        for directory in sorted(Path("/").glob(pattern.lstrip("/")), reverse=True):
            if (directory / name).is_file():
                return str(directory / name)
    return None


CMAKE = tool("cmake")
CMAKE_325 = "/usr/bin/cmake" if Path("/usr/bin/cmake").is_file() else None
NINJA = tool("ninja")
HIPCC = tool("hipcc", "/opt/rocm/bin")
NVCC = tool("nvcc", "/usr/local/cuda/bin")
BUNDLER = tool("clang-offload-bundler", "/opt/rocm/llvm/bin", "/usr/lib/llvm-*/bin")
OBJCOPY = tool("objcopy")
READELF = tool("readelf")


def require(**tools: str | None) -> None:
    """Skip the calling test, naming the first missing tool."""
    for name, path in tools.items():
        if path is None:
            pytest.skip(f"{name} is not installed")


def build_env(**changes: str) -> dict[str, str]:
    """The environment a user's build sees: CASS defaults, not the test suite's.

    conftest.py turns verification off for translation tests; builds here check
    the documented defaults, so that variable goes (the private cache stays).
    """
    env = {k: v for k, v in os.environ.items() if k not in ("CASS_VERIFY", "CASS_ARCHS")}
    env.update(changes)
    return env


def run(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 1200,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else build_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        check=False,
    )


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    """stdout + stderr of a command that must have succeeded."""
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{proc.args}\n{output[-6000:]}"
    return output


def copy_example(name: str, dest: Path) -> Path:
    """A clean copy of ``examples/<name>`` (no build outputs) under ``dest``."""
    target = dest / name
    shutil.copytree(
        EXAMPLES / name,
        target,
        ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "*.so"),
    )
    return target


def cmake_dir() -> str:
    proc = run([sys.executable, "-m", "cass_build", "--cmakedir"], ROOT)
    return ok(proc).strip()


def fatbin_section(path: Path) -> bytes:
    """The ``.hip_fatbin`` section of an object, library or executable."""
    assert OBJCOPY is not None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "fatbin"
        proc = run(
            [OBJCOPY, "-O", "binary", "--only-section=.hip_fatbin", str(path.resolve()), str(out)],
            ROOT,
        )
        ok(proc)
        return out.read_bytes() if out.exists() else b""


def bundle_ids(path: Path) -> set[str]:
    """Offload bundle ids in a file's ``.hip_fatbin`` (scanned: linked files hold several)."""
    data = fatbin_section(path)
    return {m.decode() for m in re.findall(rb"hipv4-amdgcn-amd-amdhsa--gfx[0-9a-f]+", data)}


def code_object_archs(obj: Path) -> set[str]:
    """The archs whose AMD GPU code objects an object file carries, checked by unbundling.

    ``clang-offload-bundler --list`` names the bundles; each one is unbundled and
    must be an ELF file for the AMDGPU machine, not just a name in a table.
    """
    assert BUNDLER is not None
    found: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        fatbin = Path(tmp) / "fatbin"
        fatbin.write_bytes(fatbin_section(obj))
        listed = ok(run([BUNDLER, "--list", "--type=o", f"--input={fatbin}"], ROOT)).split()
        for target in listed:
            if not target.startswith(BUNDLE_ID):
                continue
            code = Path(tmp) / f"{target}.co"
            ok(
                run(
                    [
                        BUNDLER,
                        "--unbundle",
                        "--type=o",
                        f"--targets={target}",
                        f"--input={fatbin}",
                        f"--output={code}",
                    ],
                    ROOT,
                )
            )
            data = code.read_bytes()
            machine = struct.unpack_from("<H", data, 18)[0] if len(data) > 20 else 0
            if data[:4] == b"\x7fELF" and machine == EM_AMDGPU:
                found.add(target.removeprefix(BUNDLE_ID))
    return found


def archs_in(path: Path) -> set[str]:
    """The gfx archs named by offload bundles in a linked file."""
    return {b.removeprefix(BUNDLE_ID) for b in bundle_ids(path)}


CUDA_ROOT = Path("/usr/local/cuda")
UNSHARE = tool("unshare")


def cuda_hidden_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` without a CUDA toolkit: no CUDA directory on PATH, CUDA_HOME/CUDA_PATH unset."""
    out = dict(build_env() if env is None else env)
    for name in ("CUDA_HOME", "CUDA_PATH", "CUDACXX", "CUDA_ROOT", "NVCC"):
        out.pop(name, None)
    path = out.get("PATH", "").split(os.pathsep)
    out["PATH"] = os.pathsep.join(p for p in path if p and "cuda" not in p.lower())
    return out


def can_mask_cuda() -> bool:
    """Whether this process may run commands with /usr/local/cuda masked (root, unshare)."""
    return UNSHARE is not None and hasattr(os, "geteuid") and os.geteuid() == 0


def run_without_cuda(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float = 1200
) -> subprocess.CompletedProcess[str]:
    """``argv`` in a mount namespace where /usr/local/cuda is an empty directory and every
    ``nvcc`` on PATH (shims like /usr/local/bin/nvcc) is /dev/null, so the real nvcc cannot
    be reached even by its absolute path; with ``cuda_hidden_env``."""
    assert UNSHARE is not None
    empty = tempfile.mkdtemp(prefix="no-cuda-")
    mounts = []
    if CUDA_ROOT.exists():
        mounts.append(f'mount --bind "$0" {shlex.quote(str(CUDA_ROOT.resolve()))}')
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        shim = Path(directory or ".") / "nvcc"
        if directory and shim.is_file():
            mounts.append(f"mount --bind /dev/null {shlex.quote(str(shim))}")
    script = " && ".join([*mounts, 'exec "$@"'])
    wrapped = [UNSHARE, "-m", "--propagation", "private", "sh", "-c", script, empty, *argv]
    return run(wrapped, cwd, cuda_hidden_env(env), timeout)


def assert_nvcc_compiles(programs: Sequence[tuple[str, bytes]], tmp_path: Path) -> None:
    """Both forms of synthesized programs, as one translation unit, build with nvcc."""
    from cass_build.train.dataset import batch_source

    src = tmp_path / "all.cu"
    src.write_bytes(batch_source(list(programs)))
    done = subprocess.run(
        ["nvcc", "-arch=sm_90", "-c", str(src), "-o", str(tmp_path / "all.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def loaded_after(code: str, names: Sequence[str]) -> list[str]:
    """Which of ``names`` are in ``sys.modules`` after a fresh interpreter runs ``code``
    (the import-cost tests: a path must not load what it does not use)."""
    probe = f"{code}\nimport sys\nprint(' '.join(n for n in {list(names)!r} if n in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return proc.stdout.splitlines()[-1].split()  # what ``code`` printed comes before


def assert_stack_not_executable(binary: Path) -> None:
    """``binary``'s PT_GNU_STACK is not executable (GNU ld makes it so when an input
    object has no ``.note.GNU-stack``); checked where readelf is installed."""
    if READELF is None:
        return
    proc = subprocess.run(
        [READELF, "-lW", str(binary)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    stack = [line.split() for line in proc.stdout.splitlines() if "GNU_STACK" in line]
    assert stack and "RWE" not in stack[0], f"{binary}: {proc.stdout}"
