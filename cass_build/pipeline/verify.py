"""Verification gates: does a candidate translation build for AMD targets?

Levels, each including the one before: ``none``; ``syntax`` (the HIP front end
for one AMD arch, ``-fsyntax-only``); ``compile`` (hipcc's compile emits code
objects for every requested arch); ``run`` (the program runs on a GPU and agrees with the
CUDA original; see ``compare``). Verification never edits code: it compiles
copies in a scratch directory and reports what the compiler said, with each
message pointing at the original ``.cu`` line through ``#line`` directives.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import include_dir
from .._proc import run
from ._driver import compile_command
from .failures import LOCATED_ERROR, tool_failure
from .toolchain import HipToolchain

__all__ = ["DEFAULT_STD", "LEVELS", "Evidence", "Outcome", "Unit", "verify", "with_default_std"]

LEVELS = ("none", "syntax", "compile", "run")

# nvcc 13 compiles as C++17 unless told otherwise, and CUDA sources are written for it;
# hipcc's clang would default to C++11 for a check the build itself then disagrees with.
DEFAULT_STD = "-std=c++17"


def with_default_std(flags: Sequence[str]) -> list[str]:
    """``flags`` with nvcc's dialect added when they name none of their own."""
    named = any(f.startswith(("-std=", "--std=", "/std:")) or f == "-std" for f in flags)
    return list(flags) if named else [DEFAULT_STD, *flags]


@dataclass(frozen=True)
class Unit:
    """A translated file with everything it needs to compile on its own."""

    source: Path
    """The original CUDA file (messages point here)."""
    data: bytes
    headers: Mapping[Path, bytes] = field(default_factory=dict)
    """Translated local headers, keyed by their original paths."""
    mirror: Sequence[tuple[Path, Path]] = ()
    include_dirs: Sequence[Path] = ()
    defines: Sequence[str] = ()
    flags: Sequence[str] = ()
    """Extra compiler flags (``-O2``, ``-std=c++17``, ``-fPIC`` ...)."""
    rename_cu: bool = False
    """Included ``.cu`` files were renamed ``.hip`` along with the includes naming them."""


@dataclass(frozen=True)
class Evidence:
    """What was run to verify a translation, so anyone can run it again."""

    level: str
    tool: str
    version: str
    archs: tuple[str, ...]
    command: str
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {
            "level": self.level,
            "tool": self.tool,
            "version": self.version,
            "archs": list(self.archs),
            "command": self.command,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class Outcome:
    ok: bool
    level: str
    """The highest level passed (``none`` when even the first check failed)."""
    evidence: tuple[Evidence, ...] = ()
    reason: str = ""
    """Why the check failed: one line."""
    messages: tuple[str, ...] = ()
    """The compiler's errors, ``file.cu:line:col: error: ...``."""
    object_data: bytes | None = None
    tool_failure: str = ""
    """Set when the compiler itself failed (missing, killed, or an exit with no error at
    any line): what happened and its first error line. The source is not to blame."""


def _under(path: Path, root: Path) -> Path | None:
    try:
        return path.relative_to(root)
    except ValueError:
        return None


class _Scratch:
    """Copies of the translated files laid out so that relative includes resolve."""

    def __init__(self, tmp: Path, unit: Unit) -> None:
        self.roots = [(src.resolve(), tmp / f"m{i}") for i, (src, _) in enumerate(unit.mirror)]
        self.main = self._place(tmp, unit.source.resolve(), ".hip")
        self._write(self.main, unit.source, unit.data)
        for original, data in unit.headers.items():
            renamed = ".hip" if unit.rename_cu and original.suffix == ".cu" else None
            self._write(self._place(tmp, original.resolve(), renamed), original, data)
        # A mirrored directory comes before its original, as in the real build.
        self.include_flags: list[str] = []
        for directory in unit.include_dirs:
            resolved = directory.resolve()
            for src, dst in self.roots:
                if (rel := _under(resolved, src)) is not None:
                    self.include_flags.append(f"-I{dst / rel}")
            self.include_flags.append(f"-I{resolved}")
        # Quoted includes the translation did not mirror resolve beside the original.
        self.include_flags.append(f"-iquote{unit.source.resolve().parent}")

    def _place(self, tmp: Path, original: Path, suffix: str | None) -> Path:
        for src, dst in self.roots:
            if (rel := _under(original, src)) is not None:
                target = dst / rel
                break
        else:
            target = tmp / "u" / original.name
        return target.with_suffix(suffix) if suffix else target

    @staticmethod
    def _write(target: Path, original: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        marker = f'#line 1 "{original.resolve()}"\n'.encode()
        target.write_bytes(marker + data)


def _messages(output: str, limit: int = 8) -> tuple[str, ...]:
    found = []
    for line in output.splitlines():
        if m := LOCATED_ERROR.match(line.strip()):
            found.append(f"{m['where']}: error: {m['text']}")
            if len(found) == limit:
                break
    if not found:
        tail = [ln for ln in output.strip().splitlines() if ln.strip()][-3:]
        found = tail
    return tuple(found)


def verify(
    unit: Unit,
    level: str,
    archs: Sequence[str],
    toolchain: HipToolchain | None,
    *,
    keep_object: bool = False,
) -> Outcome:
    """Check ``unit`` up to ``level`` (``run`` stops at ``compile`` here; the pipeline runs it)."""
    # An object is asked for when this compile is the build's own: it happens at any level.
    if level == "none" and not keep_object:
        return Outcome(True, "none")
    if toolchain is None:
        return Outcome(False, "none", reason="no HIP toolchain found (hipcc)")
    compile_level = level in ("compile", "run") or keep_object
    import tempfile  # a cache hit verifies nothing

    with tempfile.TemporaryDirectory(prefix="cass-verify-") as name:
        tmp = Path(name)
        scratch = _Scratch(tmp, unit)
        common = [
            "-x",
            "hip",
            *scratch.include_flags,
            *(f"-D{d}" for d in unit.defines),
            *with_default_std(unit.flags),
            f"-I{include_dir()}",  # <cass/warp.h> and the other headers translations include
        ]
        if compile_level:
            obj = tmp / "out.o"
            arch_flags = [f"--offload-arch={a}" for a in archs]
            args = ["-c", *arch_flags, *common, str(scratch.main), "-o", str(obj)]
            which = "compile"
        else:
            obj = None
            args = ["-fsyntax-only", f"--offload-arch={archs[0]}", *common, str(scratch.main)]
            which = "syntax"
        # hipcc's own clang command, without hipcc's start-up per file (see _driver).
        source = args.index(str(scratch.main))
        argv, tool = compile_command(
            toolchain, args, source=source, output=len(args) - 1 if obj else None
        )
        done = run(argv, env=toolchain.env(), cwd=tmp)
        code, output, seconds = done.returncode, done.output, done.seconds
        env = ["HIP_PLATFORM=amd"]
        if tool == "clang" and "ROCM_PATH" in (run_env := toolchain.env()):
            env.append(f"ROCM_PATH={run_env['ROCM_PATH']}")  # clang reads it as hipcc does
        shown = shlex.join([*env, *argv]).replace(name, "$SCRATCH")
        evidence = Evidence(
            which,
            tool,
            toolchain.version_text,
            tuple(archs) if obj else tuple(archs[:1]),
            shown,
            seconds,
        )
        if code != 0 and (failure := tool_failure(code, output)):
            reason = f"{which} check could not run: {tool} {failure}"
            return Outcome(False, "none", (evidence,), reason, (), tool_failure=failure)
        if code != 0:
            messages = _messages(output)
            count = sum(": error: " in m for m in messages)
            what = f"{count} error(s)" if count else f"{tool} exited with {code}"
            reason = f"{which} check failed for {','.join(evidence.archs)} ({what})"
            return Outcome(False, "none", (evidence,), reason, messages)
        data = obj.read_bytes() if obj is not None and keep_object else None
        return Outcome(True, which, (evidence,), object_data=data)
