"""Differential runs: build a CUDA program and its HIP translation, run both, compare.

On an NVIDIA GPU both sides build with nvcc, the HIP side through the HIP-on-CUDA
layer (:mod:`cass_build.hip_on_cuda`), and both run on the same GPU: exit codes,
``VERDICT:`` lines on stdout and the files each writes in its (own, empty) working
directory must agree. On an AMD GPU the HIP side builds natively with hipcc; the CUDA
original cannot run there, so the program's own verdict line is all there is to check,
and the result says so.

Runs are serialized within a process (builds are not), so the runtimes reported for
the two sides are measured on an otherwise idle GPU; :func:`set_parallel_runs` relaxes
that for batch jobs.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from .. import _proc
from .._proc import Completed, first_error
from ..errors import InputError, ToolchainError, UsageError

__all__ = [
    "Comparison",
    "RunRecord",
    "add_parser",
    "build_translation",
    "compare",
    "gpu_backend",
    "gpu_description",
    "nvcc_version",
    "run",
    "set_parallel_runs",
]

Backend = Literal["nvidia", "amd"]

_RUN_SLOTS = threading.BoundedSemaphore(1)
_TAIL = 4000
_CUDA_HINT = (
    "install the CUDA toolkit so that nvcc is on PATH (or set CUDA_HOME), "
    "e.g. apt-get install nvidia-cuda-toolkit"
)
_NO_GPU_HINT = (
    "run on a machine with an NVIDIA GPU and nvcc, or an AMD GPU with ROCm (/dev/kfd and hipcc)"
)
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)


@dataclass(frozen=True)
class RunRecord:
    """One side of a comparison: how it was built, how it ran, what it printed and wrote."""

    label: str
    """``cuda`` or ``hip``."""
    build_command: tuple[str, ...] = ()
    built: bool = False
    build_seconds: float = 0.0
    build_output: str = ""
    """The compiler's output (its tail), empty for a clean build."""
    command: tuple[str, ...] = ()
    """The command that ran the program; empty when it did not run."""
    exit_code: int | None = None
    seconds: float | None = None
    """Wall time of the run, process start to exit."""
    timed_out: bool = False
    verdicts: tuple[str, ...] = ()
    """The ``VERDICT:`` lines of stdout, in order."""
    files: Mapping[str, str] = field(default_factory=dict)
    """Files the program left in its working directory: relative path -> sha256."""
    stdout: str = ""
    stderr: str = ""
    note: str = ""
    """Why this side was not built or not run, when it was not."""
    scheduling: str = ""
    """The wave64 HIP side only: ``convergent`` (its warps reconverge after branches, as
    AMD's wavefronts do) or ``independent: <why>`` (NVIDIA's independent thread scheduling,
    where the convergent build failed; wave operations after branches that split a warp
    may then disagree with AMD)."""

    @property
    def ran(self) -> bool:
        return bool(self.command) and self.exit_code is not None

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["files"] = dict(self.files)
        data["ran"] = self.ran
        return data


@dataclass(frozen=True)
class Comparison:
    """The outcome of :func:`compare`."""

    passed: bool
    reason: str
    """One line: what agreed, or the first thing that did not."""
    backend: Backend
    cuda: RunRecord
    hip: RunRecord

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed,
            "reason": self.reason,
            "backend": self.backend,
            "cuda": self.cuda.to_json(),
            "hip": self.hip.to_json(),
        }


# --- discovery -----------------------------------------------------------------------


def _quiet(cmd: Sequence[str], timeout: float = 30.0) -> Completed | None:
    done = _proc.run(cmd, timeout=timeout)
    return None if done.stopped else done


@functools.cache
def _nvidia_gpus() -> tuple[tuple[str, str, str], ...]:
    """(name, driver version, compute capability) of each NVIDIA GPU the driver can open."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ()
    query = "--query-gpu=name,driver_version,compute_cap"
    proc = _quiet([smi, query, "--format=csv,noheader"])
    if proc is None or proc.returncode != 0:
        return ()
    gpus = []
    for line in proc.stdout.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 3 and parts[0]:
            gpus.append((parts[0], parts[1], parts[2]))
    return tuple(gpus)


@functools.cache
def _amd_gfx() -> str | None:
    """The gfx target of the first AMD GPU, when /dev/kfd is there and rocminfo lists one."""
    if not Path("/dev/kfd").exists():
        return None
    for tool in ("rocminfo", "/opt/rocm/bin/rocminfo"):
        exe = shutil.which(tool)
        proc = _quiet([exe]) if exe else None
        text = proc.stdout if proc is not None and proc.returncode == 0 else ""
        if m := re.search(r"^\s*Name:\s*(gfx[0-9a-f]+)\s*$", text, re.MULTILINE):
            return m.group(1)
    return None


def gpu_backend() -> Backend | None:
    """``"nvidia"`` when nvidia-smi reaches a GPU, ``"amd"`` for a ROCm GPU, else None.

    ``CASS_GPU_BACKEND=nvidia|amd|none`` overrides the probe (``none`` is how tests
    take the no-GPU path on a machine that has one).
    """
    from ..settings import environment

    forced = environment().gpu_backend.strip().lower()
    if forced in ("none", "off", "0"):
        return None
    if forced in ("nvidia", "amd"):
        return forced  # type: ignore[return-value]
    if _nvidia_gpus():
        return "nvidia"
    if _amd_gfx():
        return "amd"
    return None


def run_slot() -> threading.BoundedSemaphore:
    """The semaphore that bounds concurrent program runs; hold it to time a run fairly."""
    return _RUN_SLOTS


def set_parallel_runs(count: int) -> None:
    """Let up to ``count`` programs run at once in this process (default 1).

    One at a time measures each runtime on an otherwise idle GPU; batch jobs trade
    that for throughput, since starting a CUDA context dominates a short program.
    """
    global _RUN_SLOTS
    _RUN_SLOTS = threading.BoundedSemaphore(max(1, count))


def _find_nvcc() -> Path | None:
    from ..pipeline.toolchain import find_nvcc

    found = find_nvcc()
    return None if found is None else found.nvcc


@functools.cache
def nvcc_version() -> str:
    """nvcc's release line (``Cuda compilation tools, release 13.0, V13.0.88``), or ""."""
    nvcc = _find_nvcc()
    proc = _quiet([str(nvcc), "--version"]) if nvcc else None
    if proc is None or proc.returncode != 0:
        return ""
    lines = [ln for ln in proc.stdout.splitlines() if "release" in ln]
    return lines[-1].strip() if lines else proc.stdout.strip().splitlines()[-1]


def _nvidia_arch() -> str:
    gpus = _nvidia_gpus()
    if gpus and re.fullmatch(r"\d+\.\d+", gpus[0][2]):
        return "sm_" + gpus[0][2].replace(".", "")
    # No GPU to ask (a build-only comparison): Hopper's, which nvcc 12 and 13 both build.
    return "native" if gpus else "sm_90"


def gpu_description() -> str:
    """The GPU and driver, for reports: ``NVIDIA H200 (driver 580.159.04, sm_90)``."""
    if gpus := _nvidia_gpus():
        name, driver, cap = gpus[0]
        return f"{name} (driver {driver}, compute capability {cap})"
    if gfx := _amd_gfx():
        return f"AMD {gfx}"
    return "no GPU"


# --- building and running -------------------------------------------------------------


def _tail(text: str) -> str:
    return text if len(text) <= _TAIL else "..." + text[-_TAIL:]


def _build(label: str, cmd: list[str], env: Mapping[str, str] | None, timeout: float) -> RunRecord:
    done = _proc.run(cmd, env=env, timeout=timeout)
    if done.timed_out:
        why = f"build timed out after {timeout:g} s"
        return RunRecord(label, tuple(cmd), False, done.seconds, why)
    if done.stopped:
        return RunRecord(label, tuple(cmd), False, 0.0, f"cannot run {done.stopped}")
    output = _tail((done.stdout + done.stderr).strip())
    return RunRecord(label, tuple(cmd), done.ok, round(done.seconds, 3), output)


def build_translation(cmd: list[str], wave: int, workdir: Path, timeout: float) -> RunRecord:
    """Build the HIP side with nvcc; in wave64 mode with warps that reconverge as AMD's
    wavefronts do (:func:`cass_build.wave64.build_convergent`), or, where that build fails,
    with independent thread scheduling, saying so in ``scheduling``."""
    if wave != 64:
        return _build("hip", cmd, None, timeout)
    from .wave64 import NO_SCRIPT, build_convergent

    start = time.perf_counter()
    done = build_convergent(cmd, workdir / "convergent", timeout)
    if done is not None and done.returncode == 0:
        seconds = round(time.perf_counter() - start, 3)
        output = _tail((done.stdout + done.stderr).strip())
        return RunRecord("hip", tuple(cmd), True, seconds, output, scheduling="convergent")
    why = NO_SCRIPT if done is None else first_error(done.stdout + done.stderr)
    record = _build("hip", cmd, None, timeout)
    return dataclasses.replace(record, scheduling=f"independent: {why}")


_BUILT: dict[str, tuple[RunRecord, Path]] = {}
_BUILD_LOCKS: dict[str, threading.Lock] = {}
_BUILD_GUARD = threading.Lock()


def _build_original(cmd: list[str], source: Path, output: Path, timeout: float) -> RunRecord:
    """Build the CUDA original, or copy what an identical build in this process made.

    A pipeline compares several candidate translations, and a batch several HIP
    versions, against one original: it is built once.
    """
    at = cmd.index("-o")
    key_text = "\0".join(cmd[:at] + cmd[at + 2 :]).encode() + b"\0" + source.read_bytes()
    return _once(
        hashlib.sha256(key_text).hexdigest(),
        cmd,
        output,
        lambda: _build("cuda", cmd, None, timeout),
    )


def _once(key: str, cmd: list[str], output: Path, build: Callable[[], RunRecord]) -> RunRecord:
    """``build()``, or a copy of the binary an earlier build with the same ``key`` made in
    this process (one lock per key, so two threads never build the same thing)."""
    with _BUILD_GUARD:
        lock = _BUILD_LOCKS.setdefault(key, threading.Lock())
    with lock:
        earlier = _BUILT.get(key)
        if earlier is not None and earlier[1].is_file():
            if earlier[1] != output:
                shutil.copy2(earlier[1], output)
            return dataclasses.replace(earlier[0], build_command=tuple(cmd))
        record = build()
        if record.built:
            _BUILT[key] = (record, output)
        return record


def _tree_digest(path: Path) -> str:
    """A digest of a file's bytes, or of a directory's files (names and bytes)."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for name, sha in _digests(path).items() if path.is_dir() else ():
        digest.update(f"{name}\0{sha}\0".encode())
    return digest.hexdigest()


def _build_translation_once(
    cmd: list[str], wave: int, workdir: Path, timeout: float, inputs: Sequence[Path]
) -> RunRecord:
    """:func:`build_translation`, or a copy of what an identical build in this process made:
    the same command but for where its inputs lie (``inputs``: the translation and the
    folders its includes are found in, which the key holds by their contents). A bench runs
    each program's translation in several modes, and modes that translate a program alike
    (``--warp cuda`` and ``native`` on code without warp operations) build it once."""
    at = cmd.index("-o")
    output = Path(cmd[at + 1])
    named: dict[str, str] = {}
    for p in inputs:
        named[str(p)] = named[str(p.resolve())] = _tree_digest(p)
    # Files the comparison made in its own folder (the poisoned copy of the source) are
    # named by their contents too, less the source's path in their #line markers.
    scratch = str(Path(workdir)) + os.sep
    source = str(Path(inputs[0]).resolve()).encode() if inputs else b""

    def prepared(word: str) -> str:
        data = Path(word).read_bytes()
        return hashlib.sha256(data.replace(source, b"<source>") if source else data).hexdigest()

    words = [
        named.get(w) or (prepared(w) if w.startswith(scratch) and Path(w).is_file() else w)
        for w in cmd[:at] + cmd[at + 2 :]
    ]
    key_words = ["hip", str(wave), *words, *named.values()]
    key = hashlib.sha256("\0".join(key_words).encode()).hexdigest()
    return _once(key, cmd, output, lambda: build_translation(cmd, wave, workdir, timeout))


def _digests(directory: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[path.relative_to(directory).as_posix()] = digest
    return found


def _run(
    record: RunRecord,
    exe: Path,
    args: Sequence[str],
    rundir: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> RunRecord:
    shutil.rmtree(rundir, ignore_errors=True)
    rundir.mkdir(parents=True)
    cmd = (str(exe), *args)
    with _RUN_SLOTS:
        proc = _proc.run(cmd, cwd=rundir, env=env, timeout=timeout)
    if proc.timed_out:
        seconds = round(proc.seconds, 3)
        return dataclasses.replace(
            record, command=cmd, seconds=seconds, timed_out=True, stdout=_tail(proc.stdout)
        )
    verdicts = tuple(ln.strip() for ln in proc.stdout.splitlines() if ln.startswith("VERDICT:"))
    return dataclasses.replace(
        record,
        command=cmd,
        exit_code=proc.returncode,
        seconds=round(proc.seconds, 4),
        verdicts=verdicts,
        files=_digests(rundir),
        stdout=_tail(proc.stdout),
        stderr=_tail(proc.stderr),
    )


def _includes(dirs: Sequence[Path]) -> list[str]:
    out: list[str] = []
    for d in dirs:
        out += ["-I", str(d)]
    return out


def _judge(cuda: RunRecord, hip: RunRecord) -> tuple[bool, str]:
    if not cuda.built:
        return False, f"the CUDA original did not build: {first_error(cuda.build_output)}"
    if not hip.built:
        return False, f"the HIP translation did not build: {first_error(hip.build_output)}"
    for side, name in ((cuda, "the CUDA original"), (hip, "the HIP translation")):
        if side.timed_out:
            return False, f"{name} timed out after {side.seconds:g} s"
    if cuda.exit_code != 0:
        return False, f"the CUDA original exited with {cuda.exit_code}: nothing to compare against"
    if cuda.exit_code != hip.exit_code:
        return False, f"exit codes differ: CUDA {cuda.exit_code}, HIP {hip.exit_code}"
    if cuda.verdicts != hip.verdicts:
        want = " | ".join(cuda.verdicts) or "none"
        got = " | ".join(hip.verdicts) or "none"
        return False, f"verdict lines differ: CUDA [{want}], HIP [{got}]"
    if set(cuda.files) != set(hip.files):
        only = sorted(set(cuda.files) ^ set(hip.files))
        return False, f"output files differ: {', '.join(only)} written by one side only"
    changed = sorted(name for name in cuda.files if cuda.files[name] != hip.files[name])
    if changed:
        return False, f"output files differ in content: {', '.join(changed)}"
    verdict = cuda.verdicts[-1] if cuda.verdicts else "no VERDICT line"
    files = f"{len(cuda.files)} identical output file(s)" if cuda.files else "no output files"
    return True, f"same exit code 0, same verdict ({verdict}), {files}"


def _require_backend(source: Path) -> Backend:
    backend = gpu_backend()
    if backend is None:
        msg = f"{source}: cannot compare: no GPU here (no nvidia-smi GPU, no /dev/kfd)"
        raise ToolchainError(msg, hint=_NO_GPU_HINT)
    return backend


def compare(
    cuda_source: Path,
    hip_source: Path,
    *,
    workdir: Path,
    include_dirs: Sequence[Path] = (),
    args: Sequence[str] = (),
    link: Sequence[str] = (),
    timeout: float = 60.0,
    wave: int = 32,
    translation_dirs: Sequence[Path] = (),
    build_only: bool = False,
) -> Comparison:
    """Build and run ``cuda_source`` and its translation ``hip_source``; compare the runs.

    ``include_dirs`` and ``link`` (flags such as ``-lcuda``) apply to both builds,
    ``translation_dirs`` (where translated headers lie) to the translation's only;
    ``args`` are the program's arguments. Builds and runs happen under ``workdir``; each
    program runs in its own empty directory there, so files it writes are compared byte
    for byte. ``timeout`` bounds each build and each run, in seconds. ``wave=64`` builds the
    translation in the layer's wave64 mode, which emulates AMD's 64-lane wavefronts
    (:mod:`cass_build.wave64`); on an AMD GPU the GPU's own wavefront size applies.
    ``build_only`` builds both sides with nvcc (no GPU needed) and runs neither: ``passed``
    then says that both built.

    Raises :class:`~cass_build.errors.ToolchainError` when there is no GPU or no
    compiler for it, :class:`~cass_build.errors.InputError` for a missing source.
    """
    for source in (cuda_source, hip_source):
        if not Path(source).is_file():
            msg = f"{source}: no such file"
            raise InputError(msg, hint="pass the CUDA source and its HIP translation")
    backend: Backend = "nvidia" if build_only else _require_backend(cuda_source)
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if backend == "amd":
        return _compare_amd(cuda_source, hip_source, workdir, include_dirs, args, link, timeout)
    nvcc = _find_nvcc()
    if nvcc is None:
        msg = f"{cuda_source}: cannot compare: nvcc not found (an NVIDIA GPU needs CUDA's nvcc)"
        raise ToolchainError(msg, hint=_CUDA_HINT)
    from .hip_on_cuda import include_flags, poison_after_includes

    base = [str(nvcc), "-std=c++17", f"-arch={_nvidia_arch()}"]
    cuda_cmd = [*base, *_includes(include_dirs), str(cuda_source)]
    cuda_cmd += ["-o", str(workdir / "cuda.exe"), *link]
    from .wave64 import nvcc_flags

    waves = nvcc_flags(wave, Path(hip_source), include_dirs, nvcc)
    # CUDA-only names the translation kept fail here as they fail hipcc (poison.h);
    # the copy needs the original's directory for its quoted includes.
    poisoned = poison_after_includes(Path(hip_source), workdir / "poisoned")
    hip_cmd = [*base, *waves, *include_flags(), *_includes(include_dirs)]
    hip_cmd += [*_includes(translation_dirs), "-I", str(Path(hip_source).resolve().parent)]
    hip_cmd += ["-x", "cu", str(poisoned)]
    hip_cmd += ["-o", str(workdir / "hip.exe"), *link]
    with ThreadPoolExecutor(max_workers=2) as pool:
        cuda_future = pool.submit(
            _build_original, cuda_cmd, Path(cuda_source), workdir / "cuda.exe", max(timeout, 600.0)
        )
        inputs = (Path(hip_source), Path(hip_source).parent, *translation_dirs)
        hip_future = pool.submit(
            _build_translation_once, hip_cmd, wave, workdir, max(timeout, 600.0), inputs
        )
        cuda, hip = cuda_future.result(), hip_future.result()
    if build_only:
        built = cuda.built and hip.built
        side = "the CUDA original" if not cuda.built else "the translation"
        why = "both built; not run (build only)" if built else f"{side} did not build"
        return Comparison(built, why, "nvidia", cuda, hip)
    if cuda.built and hip.built:
        cuda = _run(cuda, workdir / "cuda.exe", args, workdir / "run-cuda", timeout)
        hip = _run(hip, workdir / "hip.exe", args, workdir / "run-hip", timeout)
    passed, reason = _judge(cuda, hip)
    return Comparison(passed, reason, "nvidia", cuda, hip)


def _compare_amd(
    cuda_source: Path,
    hip_source: Path,
    workdir: Path,
    include_dirs: Sequence[Path],
    args: Sequence[str],
    link: Sequence[str],
    timeout: float,
) -> Comparison:
    from ..pipeline.toolchain import find_hip, install_hint

    tc = find_hip()
    if tc is None:
        msg = f"{hip_source}: cannot compare: hipcc not found (the AMD GPU needs ROCm's HIP)"
        raise ToolchainError(msg, hint=install_hint())
    gfx = _amd_gfx() or "native"
    from .. import include_dir

    cmd = [str(tc.hipcc), *tc.compile_flags(), f"--offload-arch={gfx}", "-std=c++17"]
    cmd += ["-I", include_dir(), *_includes(include_dirs), str(hip_source)]
    cmd += ["-o", str(workdir / "hip.exe"), *link]
    env = tc.env()
    hip = _build("hip", cmd, env, max(timeout, 600.0))
    if hip.built:
        hip = _run(hip, workdir / "hip.exe", args, workdir / "run-hip", timeout, env)
    cuda = RunRecord("cuda", note="not built: the CUDA original cannot run on an AMD GPU")
    where = "AMD GPU: the CUDA original cannot run here, so only the program's own verdict counts"
    if not hip.built:
        reason = f"{where}; the HIP build failed: {first_error(hip.build_output)}"
        return Comparison(False, reason, "amd", cuda, hip)
    if hip.timed_out:
        return Comparison(False, f"{where}; it timed out", "amd", cuda, hip)
    ok = hip.exit_code == 0 and bool(hip.verdicts)
    ok = ok and all(v.startswith("VERDICT: PASS") for v in hip.verdicts)
    verdict = " | ".join(hip.verdicts) or "no VERDICT line"
    return Comparison(ok, f"{where}: exit {hip.exit_code}, {verdict}", "amd", cuda, hip)


# --- translating for the command line --------------------------------------------------


def _translate_tree(
    source: Path, out_dir: Path, hip_version: tuple[int, int] | None, err: TextIO
) -> Path:
    """Translate ``source`` and the local headers it includes (quoted, found beside it)."""
    from .._files import write_atomic
    from ..api import translate_file
    from ..settings import Settings

    settings = Settings.from_env()
    if hip_version is not None:
        settings = settings.replace(hip_version=hip_version)
    root = source.resolve().parent
    pending = [source.resolve()]
    seen: set[Path] = set()
    main_out = out_dir / f"{source.stem}.hip"
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        result = translate_file(path, options=settings)
        target = main_out if path == source.resolve() else out_dir / path.relative_to(root)
        write_atomic(target, result.data)
        errors = sum(d.severity == "error" for d in result.diagnostics)
        note = f" ({errors} error(s) reported by the translator)" if errors else ""
        err.write(f"cass compare: translated {path} -> {target}{note}\n")
        for name in _INCLUDE.findall(result.data):
            found = (path.parent / name.decode("utf-8", "replace")).resolve()
            if found.is_file() and found.is_relative_to(root):
                pending.append(found)
    return main_out


# --- command line ------------------------------------------------------------------------


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``cass compare`` to the ``cass`` command's subparsers."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "compare",
        help="build and run a CUDA program and its HIP translation on a GPU; compare them",
        description=(
            "Build CUDA.cu with nvcc and its HIP translation with nvcc and the HIP-on-CUDA "
            "layer (NVIDIA GPU) or hipcc (AMD GPU), run both, and compare exit codes, "
            "stdout VERDICT: lines and the files each writes. Exit status: 0 they agree, "
            "1 they differ, 2 usage error or missing GPU/compiler."
        ),
        allow_abbrev=False,
    )
    parser.add_argument("cuda", type=Path, metavar="CUDA.cu", help="the CUDA original")
    parser.add_argument(
        "hip",
        type=Path,
        nargs="?",
        metavar="HIP.hip",
        help="its translation (default: translate CUDA.cu with the rules first)",
    )
    parser.add_argument(
        "--hip-version", metavar="X.Y", help="HIP version to translate for (without HIP.hip)"
    )
    parser.add_argument(
        "--out", type=Path, metavar="REPORT_DIR", help="write JSON and Markdown here"
    )
    parser.add_argument(
        "-I",
        dest="include",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="include directory for both builds",
    )
    parser.add_argument(
        "-l",
        dest="libs",
        action="append",
        default=[],
        metavar="LIB",
        help="link library LIB into both builds (-l cuda adds -lcuda)",
    )
    parser.add_argument(
        "-L",
        dest="libdirs",
        action="append",
        default=[],
        metavar="DIR",
        help="library directory for both builds",
    )
    parser.add_argument(
        "--arg",
        dest="args",
        action="append",
        default=[],
        metavar="ARG",
        help="an argument for the program (repeat for several)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds allowed for each run (default 60)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        metavar="DIR",
        help="build and run here and keep it (default: a temporary directory)",
    )
    parser.add_argument(
        "--wave",
        type=int,
        choices=(32, 64),
        default=32,
        help="NVIDIA GPU: run the translation with 32-lane warps or emulated 64-lane AMD "
        "wavefronts (default 32)",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON result on stdout")
    parser.set_defaults(run=run)
    return parser


def _render(name: str, cmp: Comparison) -> str:
    def side(rec: RunRecord, label: str) -> str:
        if not rec.built:
            return f"  {label}: {rec.note or 'build failed'}"
        ran = f"ran {rec.seconds:.3f} s, exit {rec.exit_code}" if rec.ran else "did not run"
        verdict = " | ".join(rec.verdicts) or "no VERDICT line"
        how = f" ({rec.scheduling})" if rec.scheduling else ""
        return f"  {label}: built in {rec.build_seconds:.1f} s{how}, {ran}: {verdict}"

    status = "PASS" if cmp.passed else "FAIL"
    lines = [f"cass compare: {name}: {status} on {cmp.backend}: {cmp.reason}"]
    lines += [side(cmp.cuda, "CUDA"), side(cmp.hip, "HIP ")]
    return "\n".join(lines) + "\n"


def _markdown(name: str, cmp: Comparison) -> str:
    rows = [
        "| side | build | build s | exit | run s | verdict | files |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, rec in (("CUDA", cmp.cuda), ("HIP", cmp.hip)):
        verdict = " / ".join(rec.verdicts) or rec.note or ""
        build = "ok" if rec.built else "failed" if rec.build_command else "not built"
        rows.append(
            f"| {label} | {build} | {rec.build_seconds} | {rec.exit_code} | {rec.seconds} "
            f"| {verdict} | {len(rec.files)} |"
        )
    head = [
        f"# cass compare: {name}",
        "",
        f"Result: **{'pass' if cmp.passed else 'fail'}** ({cmp.backend}): {cmp.reason}.",
        f"GPU: {gpu_description()}. nvcc: {nvcc_version() or 'none'}.",
        *([f"Wave64 scheduling: {cmp.hip.scheduling}."] if cmp.hip.scheduling else []),
        "",
    ]
    cmds = ["", "Commands:", ""]
    for rec in (cmp.cuda, cmp.hip):
        if rec.build_command:
            cmds.append(f"- `{' '.join(rec.build_command)}`")
    return "\n".join(head + rows + cmds) + "\n"


def run(args: argparse.Namespace, err: TextIO) -> int:
    """``cass compare``: exit 0 when both sides agree, 1 when they differ."""
    from ..settings import parse_version

    version = None
    if args.hip_version:
        try:
            version = parse_version(args.hip_version)
        except ValueError as exc:
            msg = f"--hip-version: {exc}"
            raise UsageError(msg) from None
        if args.hip is not None:
            msg = "--hip-version applies only when CASS translates (no HIP.hip given)"
            raise UsageError(msg, hint="drop HIP.hip to translate, or drop --hip-version")
    if not args.cuda.is_file():
        msg = f"{args.cuda}: no such file"
        raise InputError(msg, hint="pass the CUDA source to compare")
    keep = args.workdir is not None
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="cass-compare-"))
    try:
        hip = args.hip
        if hip is None:
            _require_backend(args.cuda)  # no GPU: say so before translating
            hip = _translate_tree(args.cuda, workdir / "hip", version, err)
        link = [f"-L{d}" for d in args.libdirs] + [f"-l{lib}" for lib in args.libs]
        result = compare(
            args.cuda,
            hip,
            workdir=workdir / "build",
            include_dirs=args.include,
            args=args.args,
            link=link,
            timeout=args.timeout,
            wave=args.wave,
        )
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)
    name = args.cuda.name + (" [wave64]" if args.wave == 64 else "")
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        sys.stdout.write(_render(name, result))
    if args.out is not None:
        from .._files import write_atomic

        doc = {"program": str(args.cuda), "gpu": gpu_description(), "nvcc": nvcc_version()}
        doc.update(result.to_json())
        write_atomic(
            args.out / f"{args.cuda.stem}.compare.json", (json.dumps(doc, indent=2) + "\n").encode()
        )
        write_atomic(args.out / f"{args.cuda.stem}.compare.md", _markdown(name, result).encode())
    return 0 if result.passed else 1
