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

import re
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from .._proc import Completed, run
from ..errors import UsageError

__all__ = [
    "NO_SCRIPT",
    "WAVES",
    "build_convergent",
    "convergent_script",
    "main",
    "nvcc_flags",
    "parse_waves",
]

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
    from ..pipeline.toolchain import cuda_roots, find_nvcc

    tops: list[Path] = []
    found = find_nvcc()
    for exe in (nvcc, found.nvcc if found else None):
        if exe is not None:
            tops.append(exe.resolve().parent.parent)  # nvcc may be a link or a wrapper
    tops += cuda_roots()
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


#: The virtual architecture whose PTX the convergent build relabels: nvcc 13's lowest.
_PTX_ARCH = "compute_75"
_ARCH_FLAG = re.compile(r"^(?:-arch|--gpu-architecture)=(sm_\d+a?)$")
#: Why a command gets no convergent build, when :func:`convergent_script` returns None.
NO_SCRIPT = "the command names no -arch=sm_XX, or nvcc --dryrun listed no steps"
_ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def convergent_script(cmd: Sequence[str], keep_dir: Path) -> str | None:
    """A shell script that runs the nvcc command ``cmd`` with the warps of its device code
    reconverging where branches end, as AMD's wavefronts do; ``None`` (:data:`NO_SCRIPT`)
    for a command without ``-arch=sm_XX`` (``native`` names no architecture to lower for)
    or one nvcc cannot list the steps of.

    Since Volta, NVIDIA schedules the threads of a warp independently: after a branch a
    warp may go on as several groups, while an AMD wavefront runs as one again, so
    ``__activemask()`` there names only the caller's group. PTX written for sm_6x keeps the
    older model (the PTX ISA gives warp intrinsics the convergence of those targets), and
    ptxas still lowers such PTX for current GPUs. nvcc 13 no longer writes sm_6x PTX, so
    the script replays nvcc's own steps (``--dryrun``) for ``compute_75`` PTX, relabels
    the PTX's target as sm_60 before ptxas, and defines ``CASS_WAVE64_CONVERGENT`` for the
    layer (wave64.h). Its intermediate files go to ``keep_dir``.
    """
    args = list(cmd)
    arch = next((i for i, a in enumerate(args) if _ARCH_FLAG.match(a)), None)
    if arch is None:
        return None
    code = args[arch].split("=", 1)[1]
    args[arch : arch + 1] = [f"-arch={_PTX_ARCH}", f"-code={code}"]
    args[1:1] = ["-DCASS_WAVE64_CONVERGENT=1", "--dryrun", "-keep", f"-keep-dir={keep_dir}"]
    keep_dir.mkdir(parents=True, exist_ok=True)
    proc = run(args, timeout=120)
    if proc.stopped:
        return None
    steps = [line[3:] for line in proc.stderr.splitlines() if line.startswith("#$ ")]
    if proc.returncode != 0 or not steps:
        return None
    script = ["set -e"]
    relabelled = False
    for step in steps:
        if m := _ASSIGN.match(step):
            try:
                words = shlex.split(m.group(2))
            except ValueError:
                continue
            # nvcc lists its settings as NAME=value; those of several words are already
            # spelled out in the commands that use them.
            if len(words) <= 1:
                script.append(f"export {m.group(1)}={shlex.quote(words[0] if words else '')}")
            continue
        # The device code is compiled as for sm_60 throughout, so that headers choose their
        # pre-Volta paths and libraries that pick a tuning by the PTX version (CUB asks the
        # runtime, which reads the relabelled target) find kernels built for it.
        step = step.replace("__CUDA_ARCH__=750", "__CUDA_ARCH__=600")
        step = step.replace("__CUDA_ARCH_LIST__=750", "__CUDA_ARCH_LIST__=600")
        if step.startswith("rm "):
            step = "rm -f " + step[3:]  # files that -keep left where they were made
        script.append(step)
        ptx = re.search(r'"?cicc"?\s.*-o\s+"?([^"\s]+\.ptx)"?', step)
        if ptx:
            path = shlex.quote(ptx.group(1))
            # `.target sm_75` or `.target sm_75, debug` (-G)
            script.append(f"sed -i 's/^\\.target sm_75\\b/.target sm_60/' {path}")
            script.append(f"grep -q '^\\.target sm_60\\b' {path}")
            relabelled = True
    return "\n".join(script) + "\n" if relabelled else None


def build_convergent(
    cmd: Sequence[str], keep_dir: Path, timeout: float = 600.0
) -> Completed | None:
    """Run the nvcc command ``cmd`` as :func:`convergent_script` describes; ``None`` where
    that gives no script (:data:`NO_SCRIPT`). A failed build (device code that needs sm_70's
    PTX, such as a native ``__nanosleep``, WMMA or cooperative groups' grid sync) comes back
    with its return code and output, for the caller to build with independent scheduling."""
    script = convergent_script(cmd, keep_dir)
    if script is None:
        return None
    path = keep_dir / "convergent.sh"
    path.write_text(script, encoding="utf-8")
    return run(["bash", str(path)], timeout=timeout)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m cass_build.wave64 nvcc -arch=sm_90 -DCASS_WAVE=64 ... -o prog``: the
    build with convergent warps, or, where that fails, the command as given."""
    cmd = list(sys.argv[1:] if argv is None else argv)
    if not cmd or not any(_ARCH_FLAG.match(a) for a in cmd):
        print(
            "usage: python -m cass_build.wave64 NVCC -arch=sm_XX [nvcc flags...] "
            "(an nvcc command line with -arch=sm_XX)",
            file=sys.stderr,
        )
        return 2
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cass-wave64-") as keep:
        done = build_convergent(cmd, Path(keep))
        if done is not None and done.returncode == 0:
            sys.stderr.write(done.stdout + done.stderr)
            return 0
    from .._proc import first_error
    from ..rules.diagnostics import rule_id

    why = NO_SCRIPT if done is None else first_error(done.stdout + done.stderr)
    print(
        f"cass wave64: warning: the convergent build failed ({why}); building with "
        "independent thread scheduling, where wave operations after branches that split a "
        f"warp may disagree with AMD [{rule_id('wave64-independent')}]",
        file=sys.stderr,
    )
    done = run(cmd, capture=False, timeout=None)
    if done.stopped and not done.timed_out:
        print(f"cass wave64: error: cannot run {done.stopped}", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
