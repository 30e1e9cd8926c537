"""``cass bench``: score translators on a directory of self-checking CUDA programs.

Layout (docs/bench.md): one directory per program, holding ``main.cu``, any
local headers, and ``manifest.toml`` (domain, description, features, hazards,
args, libs). For every program and every strategy asked for, this:

1. translates it through the pipeline with that strategy alone (no fallback),
   local headers included;
2. compiles the translation for the AMD archs here (the compile rate);
3. where an NVIDIA GPU exists, builds and runs the CUDA original and the
   translated HIP (through the HIP-on-CUDA layer) several times, and compares
   verdict lines, checksums and output files (execution accuracy) and runtimes;
4. with ``resources``, compiles the translation for AMD targets and the original for an
   NVIDIA reference (``cass_build.asm``), and keeps each program's lowest AMD/NVIDIA
   occupancy ratio with its reason. That needs hipcc, so it belongs to the compile phase;
   a GPU machine reads the figures from the compile report like the compile columns.

Reports: ``<out>/<name>.md`` and ``.json`` with per-program rows, totals per
domain and per hazard, the environment and the exact command.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import CassError, InputError, ToolchainError, UsageError

__all__ = [
    "BenchConfig",
    "Program",
    "ResourceTargets",
    "discover",
    "parse_resource_targets",
    "run_bench",
]

#: HIP library headers that a program linking a CUDA library needs on the AMD side.
HIP_LIBRARY_HEADERS = {
    "cublas": "hipblas/hipblas.h",
    "cublasLt": "hipblaslt/hipblaslt.h",
    "curand": "hiprand/hiprand.h",
    "cufft": "hipfft/hipfft.h",
    "cusparse": "hipsparse/hipsparse.h",
    "cusolver": "hipsolver/hipsolver.h",
    "cudnn": "miopen/miopen.h",
    "nccl": "rccl/rccl.h",
}
MANIFEST_KEYS = {"domain", "description", "features", "hazards", "args", "libs", "timeout"}
#: ``--resources`` without a value: the bench GPU (H200), an MI300 and an RDNA3 card.
DEFAULT_RESOURCE_TARGETS = "sm_90,gfx942,gfx1100"


@dataclass(frozen=True)
class ResourceTargets:
    """What ``--resources`` compiles: one NVIDIA reference and the AMD targets measured
    against it, with the block size occupancy is estimated at."""

    sm: str
    amd: tuple[str, ...]
    block: int = 256
    flag_ratio: float = 0.5

    def as_dict(self) -> dict[str, Any]:
        return {
            "reference": self.sm,
            "amd": list(self.amd),
            "block": self.block,
            "flag_ratio": self.flag_ratio,
        }


def parse_resource_targets(text: str, *, block: int = 256) -> ResourceTargets:
    """``sm_90,gfx942,gfx1100``: at most one ``sm_XX`` (default sm_90), at least one gfx;
    empty for the default targets."""
    from ..asm.targets import parse_amd, parse_nvidia

    names = [n for n in re.split(r"[,;\s]+", text.strip() or DEFAULT_RESOURCE_TARGETS) if n]
    try:
        sms = [parse_nvidia(n).name for n in names if not n.lower().startswith("gfx")]
        amd = tuple(dict.fromkeys(parse_amd(n).name for n in names if n.lower().startswith("gfx")))
    except UsageError as exc:
        msg = f"cass bench --resources: {str(exc).removeprefix('cass asm: ')}"
        raise UsageError(msg, hint=f"for example --resources {DEFAULT_RESOURCE_TARGETS}") from None
    if len(set(sms)) > 1 or not amd:
        msg = f"cass bench --resources {text}: name one NVIDIA reference and AMD targets"
        raise UsageError(msg, hint=f"for example --resources {DEFAULT_RESOURCE_TARGETS}")
    if not 1 <= block <= 1024:
        msg = f"cass bench --resource-block {block}: a block holds 1 to 1024 threads"
        raise UsageError(msg)
    return ResourceTargets(sms[0] if sms else "sm_90", amd, block)


def _check_resource_tools(spec: ResourceTargets) -> None:
    """Fail before any work when a tool the figures need is missing: a GPU machine without
    hipcc would otherwise write a report whose every row says so."""
    from ..asm._tools import llvmlite_version
    from ..asm.amdgpu import LLVMLITE_HINT, backend_for
    from ..asm.targets import AMD_ARCHS
    from ..pipeline.toolchain import find_hip, find_nvcc, install_hint

    toolchain = find_hip()
    if toolchain is None:
        msg = "cass bench --resources: no HIP toolchain found (hipcc)"
        raise ToolchainError(
            msg,
            hint="compute the figures where hipcc is (the compile phase) and pass that "
            "report here with --compile-report; " + install_hint(),
        )
    if find_nvcc() is None:
        msg = f"cass bench --resources: nvcc is needed for the {spec.sm} reference"
        raise ToolchainError(msg, hint="install the CUDA toolkit (nvcc) or set CUDA_HOME")
    lowered = [a for a in spec.amd if backend_for(AMD_ARCHS[a], toolchain) == "llvm"]
    if lowered and llvmlite_version() is None:
        msg = f"cass bench --resources: {', '.join(lowered)} need llvmlite, which is not installed"
        raise ToolchainError(msg, hint=LLVMLITE_HINT)


@dataclass(frozen=True)
class Program:
    name: str
    directory: Path
    domain: str
    description: str = ""
    features: tuple[str, ...] = ()
    hazards: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    timeout: float = 60.0

    @property
    def main(self) -> Path:
        return self.directory / "main.cu"


def _strings(raw: dict[str, Any], key: str, where: Path) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        msg = f"{where}: '{key}' must be a list of strings"
        raise InputError(msg)
    return tuple(value)


def load_program(directory: Path) -> Program:
    manifest = directory / "manifest.toml"
    try:
        raw = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except OSError as exc:
        msg = f"{manifest}: cannot read: {exc.strerror or exc}"
        raise InputError(msg) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        msg = f"{manifest}: not valid TOML: {exc}"
        raise InputError(msg) from None
    unknown = set(raw) - MANIFEST_KEYS
    if unknown:
        msg = f"{manifest}: unknown key(s) {', '.join(sorted(unknown))}"
        raise InputError(msg, hint=f"known keys: {', '.join(sorted(MANIFEST_KEYS))}")
    if not isinstance(raw.get("domain"), str):
        msg = f"{manifest}: 'domain' (a string) is required"
        raise InputError(msg)
    return Program(
        name=directory.name,
        directory=directory,
        domain=raw["domain"],
        description=str(raw.get("description", "")),
        features=_strings(raw, "features", manifest),
        hazards=_strings(raw, "hazards", manifest),
        args=_strings(raw, "args", manifest),
        libs=_strings(raw, "libs", manifest),
        timeout=float(raw.get("timeout", 60.0)),
    )


def discover(root: Path) -> list[Program]:
    """Every program directory under ``root`` (a directory with main.cu and manifest.toml)."""
    if not root.is_dir():
        msg = f"{root}: no such directory"
        raise UsageError(msg, hint="cass bench DIR, where DIR holds one folder per program")
    found = []
    for main in sorted(root.rglob("main.cu")):
        if (main.parent / "manifest.toml").is_file():
            found.append(load_program(main.parent))
    if not found:
        msg = f"{root}: no programs (directories with main.cu and manifest.toml)"
        raise UsageError(msg, hint="see docs/bench.md for the layout")
    return found


@dataclass
class Row:
    program: str
    domain: str
    hazards: tuple[str, ...]
    strategy: str
    translated: bool = False
    compiled: bool | None = None
    """None: not attempted here (a HIP library is not installed)."""
    compile_note: str = ""
    executed: bool | None = None
    """None: no GPU here, or nothing to run."""
    run_note: str = ""
    cuda_seconds: float | None = None
    hip_seconds: float | None = None
    cuda_verdict: str = ""
    hip_verdict: str = ""
    translate_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.cuda_seconds and self.hip_seconds:
            return self.hip_seconds / self.cuda_seconds
        return None


#: Include prefixes of CUDA libraries, and the header their HIP counterpart installs.
_INCLUDED_LIBRARIES = (
    (b"thrust/", "thrust/version.h", "rocThrust"),
    (b"cub/", "hipcub/hipcub.hpp", "hipCUB"),
    (b"cublas", "hipblas/hipblas.h", "hipBLAS"),
    (b"cufft", "hipfft/hipfft.h", "hipFFT"),
    (b"curand", "hiprand/hiprand.h", "hipRAND"),
    (b"cusparse", "hipsparse/hipsparse.h", "hipSPARSE"),
    (b"cusolver", "hipsolver/hipsolver.h", "hipSOLVER"),
)


def _missing_library(program: Program, include_root: Path | None) -> str | None:
    """Why this program cannot be compiled for AMD here, if a HIP library is missing."""
    roots = [r for r in (include_root, Path("/opt/rocm/include"), Path("/usr/include")) if r]

    def installed(header: str) -> bool:
        return any((r / header).is_file() for r in roots)

    for lib in program.libs:
        header = HIP_LIBRARY_HEADERS.get(lib)
        if header is not None and not installed(header):
            return f"{header} is not installed here"
    text = b"".join(p.read_bytes() for p in sorted(program.directory.glob("*")) if p.is_file())
    included = re.findall(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]', text, re.M)
    for prefix, header, name in _INCLUDED_LIBRARIES:
        if any(inc.startswith(prefix) for inc in included) and not installed(header):
            return f"{name} ({header}) is not installed here"
    return None


def _translate_and_compile(
    program: Program,
    strategy: str,
    archs: tuple[str, ...],
    work: Path,
    compile_here: bool,
    warp: str | None = None,
) -> tuple[Row, Path | None]:
    from ..errors import VerificationError
    from ..pipeline import PipelineOptions, translate_to
    from ..pipeline.toolchain import find_hip
    from ..settings import Settings

    row = Row(program.name, program.domain, program.hazards, strategy)
    out_dir = work / strategy.replace(":", "_").replace("/", "_") / program.name
    toolchain = find_hip()
    missing = _missing_library(program, toolchain.rocm_path / "include" if toolchain else None)
    level = "compile" if compile_here and toolchain and not missing else "none"
    settings = Settings.from_env()
    if warp is not None:
        settings = settings.replace(warp=warp)
    opts = PipelineOptions(
        strategy=strategy,
        verify=level,
        archs=archs,
        include_dirs=(program.directory,),
        mirror=((program.directory, out_dir),),
        allow_unverified=True,
        use_cache=True,
        settings=settings,
    )
    target = out_dir / "main.hip"
    start = time.perf_counter()
    try:
        result = translate_to(program.main, target, opts)
    except VerificationError as exc:  # not raised with allow_unverified; kept for safety
        row.compile_note = str(exc)
        return row, None
    except CassError as exc:
        row.compile_note = f"translation failed: {exc}"
        return row, None
    row.translate_seconds = time.perf_counter() - start
    row.translated = True
    if level == "none":
        row.compiled = None
        row.compile_note = missing or ("no HIP toolchain" if toolchain is None else "not asked")
    else:
        row.compiled = result.verified
        failed = [a for a in result.attempts if a.status == "failed"]
        if failed:
            first = failed[-1]
            row.compile_note = first.messages[0] if first.messages else first.reason
    return row, target


class _Once:
    """Each distinct translation's figures computed once: strategies that produce the
    same HIP (rules and auto, mostly) share them, and threads wait for one another."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[str, threading.Lock] = {}
        self._done: dict[str, dict[str, Any]] = {}

    def get(self, key: str, make: Any) -> dict[str, Any]:
        with self._lock:
            lock = self._keys.setdefault(key, threading.Lock())
        with lock:
            if key not in self._done:
                self._done[key] = make()
            return self._done[key]


def _resources(program: Program, hip: Path, spec: ResourceTargets, once: _Once) -> dict[str, Any]:
    from ..asm import resources_for

    digest = hashlib.sha256(repr(spec).encode() + program.main.read_bytes())
    for path in sorted(p for p in hip.parent.rglob("*") if p.is_file()):
        digest.update(b"\0" + str(path.relative_to(hip.parent)).encode() + b"\0")
        digest.update(path.read_bytes())
    return once.get(
        digest.hexdigest(),
        lambda: resources_for(
            hip, spec.amd, cuda_path=program.main, sm=spec.sm, block=spec.block,
            flag_ratio=spec.flag_ratio,
        ),
    )  # fmt: skip


def _field(report: Path, key: str, default: int) -> int:
    value = json.loads(report.read_text(encoding="utf-8")).get(key, default)
    return int(value)


def _safe(strategy: str) -> str:
    return strategy.replace(":", "_").replace("/", "_").replace(" ", "_")


def _rows_by_program(report: Path) -> dict[tuple[str, str], dict[str, Any]]:
    try:
        doc = json.loads(report.read_text(encoding="utf-8"))
        return {(r["program"], r["strategy"]): r for r in doc["rows"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        msg = f"{report}: not a cass bench report ({exc})"
        raise InputError(msg) from None


def _translated_elsewhere(
    program: Program,
    strategy: str,
    translations: Path,
    earlier: dict[tuple[str, str], dict[str, Any]],
    ran: dict[tuple[str, str], dict[str, Any]],
) -> tuple[Row, Path | None]:
    row = Row(program.name, program.domain, program.hazards, strategy)
    hip = translations / _safe(strategy) / program.name / "main.hip"
    before = earlier.get((program.name, strategy))
    if before is not None:
        row.compiled = before["compiled"]
        row.compile_note = before["compile_note"]
        row.translate_seconds = before.get("translate_seconds", 0.0)
        if before.get("resources") is not None:
            row.extra["resources"] = before["resources"]
    if (run := ran.get((program.name, strategy))) is not None:
        row.executed = run["executed"]
        row.run_note = run["run_note"]
        row.cuda_seconds = run["cuda_seconds"]
        row.hip_seconds = run["hip_seconds"]
        row.cuda_verdict = run["cuda_verdict"]
        row.hip_verdict = run["hip_verdict"]
        if run.get("wave64") is not None:
            row.extra["wave64"] = run["wave64"]
        if run.get("output"):
            row.extra["output"] = run["output"]
    if not hip.is_file():
        row.compile_note = row.compile_note or f"no translation in {translations}"
        return row, None
    row.translated = True
    return row, hip


def _time_again(exe: Path, args: Sequence[str], rundir: Path, timeout: float) -> float | None:
    """One more timed run of a built program, in an empty directory of its own."""
    from .._proc import run
    from .compare import run_slot

    shutil.rmtree(rundir, ignore_errors=True)
    rundir.mkdir(parents=True)
    with run_slot():
        done = run([exe, *args], cwd=rundir, timeout=timeout)
    return done.seconds if done.ok else None


def _compare(
    program: Program, hip_source: Path, workdir: Path, wave: int = 32, build_only: bool = False
) -> Any:
    """``cass compare`` of the program and its translation, in ``workdir``."""
    from . import compare

    workdir.mkdir(parents=True, exist_ok=True)
    return compare.compare(
        program.main,
        hip_source,
        workdir=workdir,
        include_dirs=(program.directory,),
        translation_dirs=(hip_source.parent,),
        args=program.args,
        link=[f"-l{lib}" for lib in program.libs],
        timeout=program.timeout,
        wave=wave,
        build_only=build_only,
    )


def _timings(stdout: str) -> list[str]:
    """The ``time:`` lines a program prints (kernel times it measured itself), which runs
    need not agree on and the report keeps beside the wall times."""
    return [line.strip() for line in stdout.splitlines() if line.startswith("time:")][:20]


#: How much of a failing run's stdout and stderr the report keeps, per side and stream.
OUTPUT_TAIL = 1500


def _output_tails(result: Any) -> dict[str, str]:
    """The tails of what both sides of a failed comparison printed (a self-check's own
    explanation, the emulation's messages, a build's errors), the empty ones left out."""
    tails: dict[str, str] = {}
    for side in (result.cuda, result.hip):
        streams = {"stdout": side.stdout, "stderr": side.stderr}
        if not side.built:
            streams["build"] = side.build_output
        for name, text in streams.items():
            if text.strip():
                tails[f"{side.label}_{name}"] = text[-OUTPUT_TAIL:]
    return tails


def _run_both(
    program: Program, hip_source: Path, row: Row, runs: int, work: Path, build_only: bool = False
) -> None:
    workdir = work / "run" / _safe(row.strategy) / program.name
    result = _compare(program, hip_source, workdir, build_only=build_only)
    if build_only:  # built or not; nothing ran
        row.executed, row.run_note = (None if result.passed else False), result.reason
        return
    row.cuda_verdict = " ".join(result.cuda.verdicts)
    row.hip_verdict = " ".join(result.hip.verdicts)
    row.executed = result.passed
    row.run_note = "" if result.passed else result.reason
    if not result.passed:
        row.extra["output"] = _output_tails(result)
    printed = {"cuda": _timings(result.cuda.stdout), "hip": _timings(result.hip.stdout)}
    if any(printed.values()):
        row.extra["timings"] = printed
    if not result.passed or result.cuda.seconds is None or result.hip.seconds is None:
        return
    cuda_times, hip_times = [result.cuda.seconds], [result.hip.seconds]
    # Further runs reuse the binaries; the median damps a slow first context.
    for i in range(1, max(1, runs)):
        for exe, times in (("cuda.exe", cuda_times), ("hip.exe", hip_times)):
            took = _time_again(workdir / exe, program.args, workdir / f"again-{i}", program.timeout)
            if took is not None:
                times.append(took)
    row.cuda_seconds = statistics.median(cuda_times)
    row.hip_seconds = statistics.median(hip_times)


def _run_wave64(
    program: Program, hip_source: Path, row: Row, work: Path, build_only: bool = False
) -> None:
    """The translation once more, in the HIP-on-CUDA layer's wave64 mode (64-lane waves)."""
    workdir = work / "run64" / _safe(row.strategy) / program.name
    try:
        result = _compare(program, hip_source, workdir, wave=64, build_only=build_only)
    except CassError as exc:
        row.extra["wave64"] = {"executed": False, "run_note": str(exc)}
        return
    # The emulation reports a lost step on stdout before it traps: the note says which
    # operation, which a bare "cuda-error" verdict does not.
    lost = [line for line in result.hip.stdout.splitlines() if line.startswith("CASS wave64:")]
    note = "" if result.passed and not build_only else result.reason
    if lost and not result.passed:
        note += f"; {lost[0]}"
    if result.hip.scheduling.startswith("independent"):
        # The warps did not reconverge as AMD's waves do: results of wave operations after
        # branches that split a warp are not AMD's.
        note = "; ".join(filter(None, [note, f"built with {result.hip.scheduling}"]))
    row.extra["wave64"] = {
        "executed": (None if result.passed else False) if build_only else result.passed,
        "run_note": note,
        "hip_seconds": result.hip.seconds,
        "hip_verdict": " ".join(result.hip.verdicts),
        "scheduling": result.hip.scheduling,
        **({"timings": t} if (t := _timings(result.hip.stdout)) else {}),
        **({"output": _output_tails(result)} if not result.passed and not build_only else {}),
    }


def _totals(rows: list[Row], key: str) -> dict[str, dict[str, dict[str, int]]]:
    """{strategy: {group: {programs, translated, compiled, compile_tried, executed, run_tried}}}."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for row in rows:
        groups = [row.domain] if key == "domain" else list(row.hazards) or ["(none)"]
        for group in groups:
            t = out.setdefault(row.strategy, {}).setdefault(
                group,
                {
                    "programs": 0,
                    "translated": 0,
                    "compile_tried": 0,
                    "compiled": 0,
                    "run_tried": 0,
                    "executed": 0,
                },
            )
            t["programs"] += 1
            t["translated"] += row.translated
            if row.compiled is not None:
                t["compile_tried"] += 1
                t["compiled"] += row.compiled
            if row.executed is not None:
                t["run_tried"] += 1
                t["executed"] += row.executed
    return out


def _environment(run_reports: Sequence[Path] = ()) -> dict[str, Any]:
    from ..pipeline.toolchain import find_hip, find_nvcc

    hip = find_hip()
    nvcc = find_nvcc()
    env: dict[str, Any] = {
        "cass": __version__,
        "python": platform.python_version(),
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "hipcc": f"{hip.hipcc} (HIP {hip.version_text})" if hip else None,
        "nvcc": f"{nvcc.nvcc} (CUDA {nvcc.version})" if nvcc else None,
        "gpu": None,
    }
    if run_reports:  # the GPU runs happened there, with that machine's tools
        docs = [json.loads(r.read_text(encoding="utf-8")) for r in run_reports]
        env["gpu_runs"] = {k: v for k, v in docs[0]["environment"].items() if v is not None}
        env["gpu_runs"]["command"] = "`; `".join(d["command"] for d in docs)
        return env
    try:
        from . import compare

        env["gpu"] = compare.gpu_backend()
        describe = getattr(compare, "gpu_description", None)
        if callable(describe):
            env["gpu_name"] = describe()
    except ImportError:
        pass
    return env


def _resource_settings(
    spec: ResourceTargets | None, compile_report: Path | None, rows: list[Row]
) -> dict[str, Any]:
    """The report's ``resources`` key: the targets the figures were computed for, here or
    in the compile phase; absent when no row has figures."""
    if not any("resources" in r.extra for r in rows):
        return {}
    if spec is not None:
        return {"resources": spec.as_dict()}
    assert compile_report is not None  # figures without a spec come from that report
    earlier = json.loads(compile_report.read_text(encoding="utf-8"))
    return {"resources": earlier.get("resources")}


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100.0 * n / d:.0f}%)" if d else "-"


def _wave64_count(rows: list[dict[str, Any]], strategy: str) -> tuple[int, int]:
    mine = [r["wave64"] for r in rows if r["strategy"] == strategy]
    return sum(bool(w["executed"]) for w in mine), len(mine)


def _wave64_cells(run: dict[str, Any] | None) -> str:
    if not run:
        return " - | |"
    mark = "yes" if run["executed"] else "**no**"
    return f" {mark} | {run['run_note'].replace('|', chr(92) + '|')[:300]} |"


def _short_kernel(demangled: str) -> str:
    """``void ns::scale<double, 3>(double*)`` → ``ns::scale<double, 3>``."""
    return re.sub(r"^void ", "", demangled.split("(")[0])


def _short_error(message: str) -> str:
    """A target's error without the file paths and LLVM's IR signature, for a cell."""
    message = re.sub(r"(?:^|(?<=: ))\S*/\S+\.(?:cu|hip|cuh|h|hpp)(?::\d+)*: ", "", message)
    return re.sub(r"in function \S+ [^:]*: ", "", message)


def _occupancy_cell(found: dict[str, Any] | None) -> str:
    if not found:
        return " - |"
    worst = found.get("worst")
    errors = "; ".join(f"{t}: {_short_error(m)}" for t, m in (found.get("errors") or {}).items())
    if worst is None:
        text = f"- ({errors or 'no kernel on both vendors'})"
    else:
        ratio = f"{worst['ratio']:.2f}"
        reason = worst["reasons"][0] if worst["reasons"] else ""
        text = f"{_short_kernel(worst['demangled'])} on {worst['target']}: {reason}"
        text = f"{f'**{ratio}**' if worst['flagged'] else ratio} {text}"
        if errors:
            text += f" (not produced: {errors})"
    return f" {text.replace('|', chr(92) + '|')[:240]} |"


def _occupancy_section(doc: dict[str, Any]) -> list[str]:
    spec = doc.get("resources") or {}
    mine = [r for r in doc["rows"] if r.get("resources")]
    if not mine:
        return []
    reference, amd = spec.get("reference", "?"), spec.get("amd", [])
    lines = [
        "",
        "## Occupancy: AMD against NVIDIA",
        "",
        f"For each program, the lowest ratio of estimated effective occupancy, AMD over "
        f"{reference}, over its kernels and the targets {', '.join(amd)}, at "
        f"{spec.get('block', 256)} threads per block (capped by `__launch_bounds__`; dynamic "
        "shared memory is not counted). The figures are the compilers' own resource usage "
        "(ptxas; AMD code object metadata, LLVM 22 for targets clang 15 cannot finish); the "
        "occupancy models are in docs/asm.md, estimates, not measured on AMD hardware. A "
        f"ratio below {spec.get('flag_ratio', 0.5):g} is flagged (bold), with the AMD limiter.",
        "",
        "| strategy | with figures | flagged | "
        + " | ".join(f"flagged on {t}" for t in amd)
        + " | median lowest ratio |",
        "|---|---|---|" + "---|" * len(amd) + "---|",
    ]
    for strategy in doc["totals"]:
        rows = [r["resources"] for r in mine if r["strategy"] == strategy]
        worst = [f["worst"] for f in rows if f.get("worst")]
        per_target = [
            sum(any(g["target"] == t for g in f.get("flags", [])) for f in rows) for t in amd
        ]
        ratios = [w["ratio"] for w in worst]
        median = f"{statistics.median(ratios):.2f}" if ratios else "-"
        lines.append(
            f"| {strategy} | {len(rows)} | {sum(w['flagged'] for w in worst)} | "
            + " | ".join(str(n) for n in per_target)
            + f" | {median} |"
        )
    return lines


def render_markdown(doc: dict[str, Any]) -> str:
    lines = [f"# cass bench: {doc['name']}", ""]
    lines.append(f"Command: `{doc['command']}`")
    lines.append("")
    env = doc["environment"]
    lines.append(
        "Environment: "
        + ", ".join(f"{k} {v}" for k, v in env.items() if v is not None and k != "gpu_runs")
        + f". Archs: {', '.join(doc['archs']) or '-'}. Runs per program: {doc['runs']}, "
        f"up to {doc.get('parallel_runs', 1)} programs running at once (runtimes are wall "
        "times of whole processes, CUDA context creation included)."
    )
    if runs_there := env.get("gpu_runs"):
        command = runs_there.pop("command", "")
        lines.append("")
        lines.append(
            f"GPU runs (merged with `--run-report`): `{command}` on "
            + ", ".join(f"{k} {v}" for k, v in runs_there.items())
            + "."
        )
    lines.append("")
    lines.append("## Totals")
    lines.append("")
    lines.append(
        "| strategy | programs | translated | AMD compile rate | execution accuracy "
        "| median HIP/CUDA time |"
    )
    lines.append("|---|---|---|---|---|---|")
    for strategy, t in doc["totals"].items():
        lines.append(
            f"| {strategy} | {t['programs']} | {t['translated']} | "
            f"{_pct(t['compiled'], t['compile_tried'])} | {_pct(t['executed'], t['run_tried'])} | "
            f"{t['median_ratio'] if t['median_ratio'] is not None else '-'} |"
        )
    lines.append("")
    wave64 = [r for r in doc["rows"] if r.get("wave64")]
    if wave64:
        passed = ", ".join(f"{s} {_pct(*_wave64_count(wave64, s))}" for s in doc["totals"])
        lines += [
            "",
            "Execution accuracy in wave64 mode (the translation run again with 64-lane AMD "
            f"wavefronts emulated, docs/hip_on_cuda.md): {passed}.",
            "",
        ]
    lines.append(
        "Compile rate counts programs whose HIP libraries exist here; execution "
        "accuracy counts programs run on the GPU (strict: both sides built, same exit "
        "code, same verdict and checksum, same output files)."
    )
    lines += _occupancy_section(doc)
    occupancy = any(r.get("resources") for r in doc["rows"])
    for key, title in (("per_domain", "Per domain"), ("per_hazard", "Per hazard")):
        lines += [
            "",
            f"## {title}",
            "",
            "| strategy | group | programs | compiled | executed |",
            "|---|---|---|---|---|",
        ]
        for strategy, groups in doc[key].items():
            for group, t in sorted(groups.items()):
                lines.append(
                    f"| {strategy} | {group} | {t['programs']} | "
                    f"{_pct(t['compiled'], t['compile_tried'])} | "
                    f"{_pct(t['executed'], t['run_tried'])} |"
                )
    lines += [
        "",
        "## Programs",
        "",
        "| program | domain | strategy | compiled | executed | CUDA s | HIP s | HIP/CUDA | note |"
        + (" wave64 | wave64 note |" if wave64 else "")
        + (" AMD/NVIDIA occupancy |" if occupancy else ""),
        "|---|---|---|---|---|---|---|---|---|"
        + ("---|---|" if wave64 else "")
        + ("---|" if occupancy else ""),
    ]

    def mark(v: bool | None) -> str:
        return "-" if v is None else ("yes" if v else "**no**")

    for r in doc["rows"]:
        note = (r["run_note"] or r["compile_note"]).replace("|", "\\|")[:160]
        lines.append(
            f"| {r['program']} | {r['domain']} | {r['strategy']} | {mark(r['compiled'])} | "
            f"{mark(r['executed'])} | {r['cuda_seconds'] or '-'} | {r['hip_seconds'] or '-'} | "
            f"{r['ratio'] or '-'} | {note} |"
            + (_wave64_cells(r.get("wave64")) if wave64 else "")
            + (_occupancy_cell(r.get("resources")) if occupancy else "")
        )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class BenchConfig:
    """What ``cass bench`` measures and where its report goes (``docs/bench.md``)."""

    strategies: Sequence[str] = ("rules",)
    archs: tuple[str, ...] = ()
    """AMD targets of the compile column; empty means the pipeline's default archs."""
    runs: int = 3
    """GPU runs per program; the median time is reported."""
    jobs: int = 2
    out: Path | None = None
    """Directory for ``<name>.json`` and ``<name>.md``; None writes nothing."""
    name: str = "bench"
    gpu: bool = True
    """Run the programs where a GPU is found (False: translate and compile only)."""
    command: str = ""
    """The command line recorded in the report (default: this process's)."""
    keep: Path | None = None
    """Keep the translations there, for a GPU machine without CASS's core."""
    translations: Path | None = None
    """Run translations kept by ``keep`` instead of translating."""
    compile_report: Path | None = None
    """Take the compile columns from this earlier report."""
    parallel_runs: int = 1
    run_reports: Sequence[Path] = ()
    """Take the GPU run columns from these reports (with ``translations``)."""
    waves: Sequence[int] = (32,)
    """The HIP-on-CUDA layer's modes the translation runs in: 64 adds wave64 columns."""
    resources: ResourceTargets | None = None
    """Add each program's AMD/NVIDIA occupancy figures (needs hipcc and nvcc)."""
    warp: str | None = None
    """Translate with this warp mode (``cuda`` or ``native``); None: the settings' own
    (``CASS_WARP``, else ``cuda``)."""
    build_only: bool = False
    """Build each program and its translation with nvcc through the HIP-on-CUDA layer in
    every mode of ``waves``, and run nothing (no GPU needed): the run columns say built."""


def _gpu_backend(config: BenchConfig) -> str | None:
    if config.parallel_runs > 1:
        from .compare import set_parallel_runs

        set_parallel_runs(config.parallel_runs)
    if config.build_only:
        return "nvidia"
    if not config.gpu:
        return None
    try:
        from . import compare

        return compare.gpu_backend()
    except ImportError:
        return None


def _score(
    programs: list[Program],
    config: BenchConfig,
    archs: tuple[str, ...],
    progress: Any,
) -> list[Row]:
    """One row per (strategy, program): translated, compiled, run against the original."""
    backend = _gpu_backend(config)
    once = _Once()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="cass-bench-") as tmp:
        work = Path(tmp)
        earlier = _rows_by_program(config.compile_report) if config.compile_report else {}
        ran: dict[tuple[str, str], dict[str, Any]] = {}
        for report in config.run_reports:
            ran.update(_rows_by_program(report))

        def one(item: tuple[Program, str]) -> Row:
            program, strategy = item
            if config.translations is not None:
                row, hip = _translated_elsewhere(
                    program, strategy, config.translations, earlier, ran
                )
            else:
                row, hip = _translate_and_compile(program, strategy, archs, work, True, config.warp)
                if config.keep is not None and hip is not None:
                    keep = config.keep / _safe(strategy) / program.name
                    shutil.copytree(hip.parent, keep, dirs_exist_ok=True)
            if config.resources is not None and hip is not None:
                # A translation that does not compile for AMD has no figures; its compile
                # column already says why.
                lacking = _missing_library(program, None) if row.compiled is None else None
                if row.compiled is False or lacking:
                    row.extra.pop("resources", None)
                else:
                    row.extra["resources"] = _resources(program, hip, config.resources, once)
            if backend == "nvidia" and hip is not None:
                if 32 in config.waves:
                    try:
                        _run_both(program, hip, row, config.runs, work, config.build_only)
                    except CassError as exc:
                        row.executed, row.run_note = False, str(exc)
                if 64 in config.waves:
                    _run_wave64(program, hip, row, work, config.build_only)
            elif backend is None:
                row.run_note = row.run_note or ""
            return row

        items = [(p, s) for s in config.strategies for p in programs]
        with ThreadPoolExecutor(max_workers=max(1, config.jobs)) as pool:
            for row in pool.map(one, items):
                rows.append(row)
                if progress is not None:
                    progress(row)
    return rows


def _strategy_totals(strategies: Sequence[str], rows: list[Row]) -> dict[str, Any]:
    totals: dict[str, Any] = {}
    for strategy in strategies:
        mine = [r for r in rows if r.strategy == strategy]
        ratios = [r.ratio for r in mine if r.ratio is not None and r.executed]
        totals[strategy] = {
            "programs": len(mine),
            "translated": sum(r.translated for r in mine),
            "compile_tried": sum(r.compiled is not None for r in mine),
            "compiled": sum(bool(r.compiled) for r in mine),
            "run_tried": sum(r.executed is not None for r in mine),
            "executed": sum(bool(r.executed) for r in mine),
            "median_ratio": round(statistics.median(ratios), 3) if ratios else None,
        }
    return totals


def _row_document(r: Row) -> dict[str, Any]:
    return {
        "program": r.program,
        "domain": r.domain,
        "hazards": list(r.hazards),
        "strategy": r.strategy,
        "translated": r.translated,
        "compiled": r.compiled,
        "compile_note": r.compile_note,
        "executed": r.executed,
        "run_note": r.run_note,
        "cuda_seconds": round(r.cuda_seconds, 4) if r.cuda_seconds else None,
        "hip_seconds": round(r.hip_seconds, 4) if r.hip_seconds else None,
        "ratio": round(r.ratio, 3) if r.ratio else None,
        "cuda_verdict": r.cuda_verdict,
        "hip_verdict": r.hip_verdict,
        "translate_seconds": round(r.translate_seconds, 4),
        **({"wave64": r.extra["wave64"]} if "wave64" in r.extra else {}),
        **({"timings": r.extra["timings"]} if "timings" in r.extra else {}),
        **({"output": r.extra["output"]} if r.extra.get("output") else {}),
        **({"resources": r.extra["resources"]} if "resources" in r.extra else {}),
    }


def run_bench(
    root: Path, config: BenchConfig | None = None, *, progress: Any = None
) -> dict[str, Any]:
    """Score each strategy on every program under ``root``; returns the report document.

    A GPU machine without hipcc or CASS's C++ core splits the work in two: run
    with ``keep`` where CASS is installed (translations and compile rate), then
    with ``translations`` (those files) and ``compile_report`` (that report) on
    the GPU machine, which adds execution to the compile columns. ``progress`` is
    called with each row as it is scored.
    """
    from ..pipeline.toolchain import default_archs

    config = config or BenchConfig()
    programs = discover(root)
    archs = config.archs or default_archs()
    if config.resources is not None:
        _check_resource_tools(config.resources)
    rows = _score(programs, config, archs, progress)
    runs, parallel = config.runs, config.parallel_runs
    if config.run_reports:
        runs = _field(config.run_reports[0], "runs", runs)
        parallel = _field(config.run_reports[0], "parallel_runs", parallel)
    doc: dict[str, Any] = {
        "name": config.name,
        "command": config.command or shlex.join(["cass", *sys.argv[1:]]),
        "root": str(root),
        "archs": list(archs),
        "runs": runs,
        "parallel_runs": parallel,
        "environment": _environment(config.run_reports),
        "waves": list(config.waves),
        **({"warp": config.warp} if config.warp else {}),
        **({"build_only": True} if config.build_only else {}),
        **_resource_settings(config.resources, config.compile_report, rows),
        "totals": _strategy_totals(config.strategies, rows),
        "per_domain": _totals(rows, "domain"),
        "per_hazard": _totals(rows, "hazard"),
        "rows": [_row_document(r) for r in rows],
    }
    if config.out is not None:
        from .._files import write_atomic

        out, name = config.out, config.name
        write_atomic(out / f"{name}.json", (json.dumps(doc, indent=2) + "\n").encode())
        write_atomic(out / f"{name}.md", render_markdown(doc).encode())
    return doc
