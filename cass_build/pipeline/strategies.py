"""Translation strategies: each turns CUDA bytes into HIP bytes plus diagnostics.

A strategy never verifies and never writes files; the pipeline does both. The
``auto`` chain is: the learned model when one is installed, the rule tables,
then ``hipify-perl`` / ``hipify-clang`` when they are on ``PATH``. ``exec:CMD``
plugs in any other translator: CMD gets the source path as ``{in}`` and an
output path as ``{out}`` (or, without ``{out}``, prints the HIP to stdout).
Chains are comma-separated: ``exec:./my-tool {in},rules`` tries the tool first.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UsageError
from ..rules.stats import Stats

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Protocol

    from ..rules.diagnostics import Diagnostic
    from ..settings import Settings
else:
    Protocol = object  # Strategy is a type checker's Protocol: nothing checks it at run time

__all__ = [
    "Candidate",
    "Strategy",
    "StrategyFailed",
    "parse_chain",
    "rules_taken_first",
    "skip_reason",
]

NAMES = ("model", "rules", "hipify-perl", "hipify-clang")
#: Why ``auto --warp native``'s rules step refuses a native translation (not checked).
NATIVE_HAZARDS = "the native translation keeps warp-size hazards: --warp cuda is next"
_TOOL_TIMEOUT = 300.0


@dataclass(frozen=True)
class Candidate:
    """One strategy's translation of one file."""

    data: bytes
    diagnostics: tuple[Diagnostic, ...] = ()
    stats: Stats = field(default_factory=Stats)
    same_as_rules: bool = False
    """The model changed nothing: in ``auto`` the rules' own candidate stands instead."""
    fallbacks: int = 0
    """``auto --warp native``'s model step: declarations now in ``--warp cuda`` form."""
    native_fallback: bool = False
    """``auto --warp native``'s rules step: the whole file in ``--warp cuda`` because the
    model's native translation was not used (the chain says why)."""


class StrategyFailed(Exception):
    """The strategy produced no candidate; the message says why, in one line.

    ``tool`` is set when the translator itself failed (missing, killed, broken, or an
    exit without an error at any line), which is not the source's fault; ``command`` is
    what ran.
    """

    def __init__(self, message: str, *, tool: str = "", command: str = "") -> None:
        super().__init__(message)
        self.tool = tool
        self.command = command


class Strategy(Protocol):
    name: str

    def unavailable(self) -> str | None:
        """Why this strategy cannot run here, or None when it can."""

    def fingerprint(self) -> str:
        """Changes whenever the strategy's output may change (cache keys)."""

    def translate(self, path: Path, data: bytes, settings: Settings) -> Candidate: ...


@functools.cache
def _rules_fingerprint() -> str:
    """Once per process: the core's table is built from the tables once (``core_table``)."""
    from ..rules.tables import tables_digest
    from .fingerprint import code_digest

    return f"rules:{tables_digest()}:{code_digest()}"


class RulesStrategy:
    """The rule tables. In ``auto`` (``fallback``) with ``--warp native``, a native
    translation that keeps a warp-size hazard is refused: the model came first and did
    not fix it, and broken native code is never the fallback; ``CudaRulesStrategy``
    comes next (docs/model.md)."""

    name = "rules"

    def __init__(self, *, fallback: bool = False) -> None:
        self.fallback = fallback

    def unavailable(self) -> str | None:
        return None

    def fingerprint(self) -> str:
        return _rules_fingerprint() + (":fallback" if self.fallback else "")

    def translate(self, path: Path, data: bytes, settings: Settings) -> Candidate:
        from ..rules import translate_bytes

        # The warp header is put in front in the output's own bytes (no copy of it).
        result = translate_bytes(data, str(path), settings, warp_header=True)
        if self.fallback and settings.warp == "native":
            from ..model.native import has_hazards

            if has_hazards(result):
                raise StrategyFailed(NATIVE_HAZARDS)
        return Candidate(
            implicit_runtime(path, result.data), tuple(result.diagnostics), result.stats
        )


class CudaRulesStrategy:
    """``auto --warp native``'s last rules step: the whole file in ``--warp cuda``, where
    32-lane logical warps keep CUDA code right as written. It runs only when the model's
    and the native rules' translations were refused or failed their check, so ``auto``
    is never worse than ``--warp cuda``; in ``--warp cuda`` it has nothing to add."""

    name = "rules-cuda"

    def unavailable(self) -> str | None:
        return None

    def skip_for(self, settings: Settings) -> str | None:
        """Why the chain passes over it silently under ``settings`` (None: it runs)."""
        return None if settings.warp == "native" else "the rules already ran in --warp cuda"

    def fingerprint(self) -> str:
        return _rules_fingerprint() + ":cuda"

    def translate(self, path: Path, data: bytes, settings: Settings) -> Candidate:
        from ..model.native import fallback_file
        from ..rules import translate_bytes, warp_include

        mixed = fallback_file(data, str(path), settings, "the native translations were not used")
        stats = translate_bytes(data, str(path), settings.replace(warp="cuda")).stats
        # A file without warp code reads the same in both modes: once the native text
        # failed its check, checking it again is pointless (the chain skips it then).
        same = mixed.data == translate_bytes(data, str(path), settings).data
        return Candidate(
            implicit_runtime(path, warp_include(mixed.data)),
            mixed.diagnostics,
            stats,
            same_as_rules=same,
            native_fallback=True,
        )


_RUNTIME_INCLUDE = re.compile(
    rb'^[ \t]*#[ \t]*include[ \t]*[<"]hip/hip_runtime(_api)?\.h[>"]', re.M
)
# HIP library headers that, in some HIP releases, only compile after hip_runtime.h
# (hip_cooperative_groups.h in 5.x uses hipBlockDim_z without including it).
_HIP_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"](hip|hipcub|hiprand|hipfft)/', re.M)
_BOM = b"\xef\xbb\xbf"


def implicit_runtime(path: Path, hip: bytes) -> bytes:
    """Make nvcc's implicit ``#include <cuda_runtime.h>`` of ``.cu`` files explicit.

    nvcc includes the runtime into every ``.cu`` file before anything else;
    hipcc includes nothing, so ``threadIdx`` or ``hipMalloc`` would be
    undeclared, and HIP headers included before the runtime may not compile.
    The ``#line 1`` after the added include keeps every original line at its
    number.
    """
    if path.suffix != ".cu" or not hip.strip():
        return hip
    runtime = _RUNTIME_INCLUDE.search(hip)
    first_hip = _HIP_INCLUDE.search(hip)
    if runtime is not None and (first_hip is None or first_hip.start() >= runtime.start()):
        return hip
    bom = _BOM if hip.startswith(_BOM) else b""
    return bom + b"#include <hip/hip_runtime.h>\n#line 1\n" + hip[len(bom) :]


@functools.cache
def _model_runtime_missing() -> str | None:
    """Why the model's runtime cannot be imported, asked once per process (every file asks)."""
    import importlib.util

    for module in ("onnxruntime", "tokenizers"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'cass-build[model]')"
    return None


@functools.cache
def _model_fingerprint(directory: Path) -> str:
    """Once per process and model directory: ``model.load`` keeps the first model it loads."""
    import hashlib

    from ..model_files import FILES, OPTIONAL
    from ..rules.tables import tables_digest
    from .fingerprint import code_digest

    digest = hashlib.sha256()
    for name in (*FILES, *OPTIONAL):
        try:
            st = (directory / name).stat()
            digest.update(f"{name}:{st.st_size}:{st.st_mtime_ns};".encode())
        except OSError:
            digest.update(b"-")
    # The model drafts with the rules, so their tables shape its output too.
    return f"model:{digest.hexdigest()[:16]}:{tables_digest()}:{code_digest()}"


class ModelStrategy:
    """The learned model (``cass_build.model``): declarations by the model, glue by the rules.

    Its output is only worth having verified: in ``auto`` with verification off the
    chain skips it (see ``parse_chain``), while an explicit ``--strategy model`` runs.
    """

    name = "model"

    def __init__(self, *, fallback: bool = False) -> None:
        # auto --warp native: the declarations the model does not fix go to --warp cuda.
        self.fallback = fallback

    def unavailable(self) -> str | None:
        from ..model_files import FILES, model_dir

        directory = model_dir()
        if not (directory / FILES[0]).is_file():
            return f"no model installed ({directory / FILES[0]} is missing)"
        return _model_runtime_missing()

    def fingerprint(self) -> str:
        from ..model_files import model_dir

        return _model_fingerprint(model_dir()) + (":fallback" if self.fallback else "")

    def translate(self, path: Path, data: bytes, settings: Settings) -> Candidate:
        from ..errors import CassError
        from ..model import Trace, translate_bytes
        from ..rules import translate_bytes as rules
        from ..rules import warp_include

        # The rules' translation is the model's base text, and its diagnostics still
        # describe the source (hazards, unsupported APIs): computed once for both.
        checked = rules(data, str(path), settings)
        trace = Trace()
        try:
            text = translate_bytes(data, str(path), settings, ruled=checked, trace=trace)
        except CassError as exc:  # a missing, damaged or misconfigured model
            from ..model_files import model_dir

            command = f"onnxruntime on {model_dir()}"
            raise StrategyFailed(str(exc), tool="model", command=command) from None
        if self.fallback and settings.warp == "native" and trace.units:
            from ..model.native import mix

            mixed = mix(data, str(path), settings, checked, trace.units)
            return Candidate(
                implicit_runtime(path, warp_include(mixed.data)),
                mixed.diagnostics,
                checked.stats,
                fallbacks=mixed.fallbacks,
            )
        return Candidate(
            implicit_runtime(path, warp_include(text)),
            tuple(checked.diagnostics),
            checked.stats,
            same_as_rules=text == checked.data,
        )


class ExternalStrategy:
    """A translator run as a program: hipify-perl, hipify-clang or ``exec:CMD``."""

    def __init__(self, name: str, argv: list[str]) -> None:
        self.name = name
        self.argv = argv

    def unavailable(self) -> str | None:
        from .toolchain import find_program  # here: a chain of the rules alone runs no tool

        if find_program(self.argv[0]) is None:
            return f"{self.argv[0]} is not on PATH"
        return None

    def fingerprint(self) -> str:
        from .toolchain import find_program

        exe = str(find_program(self.argv[0]) or self.argv[0])
        try:
            st = Path(exe).stat()
            stamp = f"{st.st_size}:{st.st_mtime_ns}"
        except OSError:
            stamp = "-"
        return f"{self.name}:{exe}:{stamp}:" + " ".join(self.argv[1:])

    def translate(self, path: Path, data: bytes, settings: Settings) -> Candidate:
        import shlex
        import tempfile

        from .._proc import run

        with tempfile.TemporaryDirectory(prefix="cass-ext-") as tmp:
            out = Path(tmp) / (path.stem + ".hip")
            argv = [a.replace("{in}", str(path)).replace("{out}", str(out)) for a in self.argv]
            to_stdout = not any("{out}" in a for a in self.argv)
            if not any("{in}" in a for a in self.argv):
                argv.append(str(path))
            command = shlex.join(argv)
            done = run(argv, cwd=tmp, timeout=_TOOL_TIMEOUT)
            if done.stopped:
                msg = f"{argv[0]} did not run: {done.stopped}"
                raise StrategyFailed(msg, tool=argv[0], command=command)
            if done.returncode != 0:
                from .failures import tool_failure

                tail = done.stderr.strip().splitlines()[-1:]
                msg = f"{argv[0]} exited with {done.returncode}" + (f": {tail[0]}" if tail else "")
                if tool_failure(done.returncode, done.stderr):
                    raise StrategyFailed(msg, tool=argv[0], command=command)
                raise StrategyFailed(msg)  # it rejected the source, at a line
            result = done.stdout_bytes if to_stdout else out.read_bytes() if out.is_file() else b""
            if not result.strip():
                msg = f"{argv[0]} produced no output"
                raise StrategyFailed(msg, tool=argv[0], command=command)
            return Candidate(result)


def _one(spec: str) -> Strategy:
    if spec == "rules":
        return RulesStrategy()
    if spec == "model":
        return ModelStrategy()
    if spec == "hipify-perl":
        return ExternalStrategy(spec, ["hipify-perl", "{in}"])
    if spec == "hipify-clang":
        return ExternalStrategy(spec, ["hipify-clang", "{in}", "-o", "{out}", "--"])
    if spec.startswith("exec:"):
        import shlex  # here: the usual chains name no command

        argv = shlex.split(spec.removeprefix("exec:"))
        if not argv:
            msg = "--strategy exec: needs a command, e.g. exec:'my-tool {in} -o {out}'"
            raise UsageError(msg)
        return ExternalStrategy(spec, argv)
    msg = f"--strategy {spec!r}: expected auto, {', '.join(NAMES)} or exec:CMD"
    raise UsageError(msg)


def rules_taken_first(chain: list[Strategy], auto: bool) -> bool:
    """Whether, with verification off, the rules' translation is the one taken: it costs
    less than a cache lookup (the core runs at hundreds of MB/s), so it is not cached."""
    for strategy in chain:
        if not (auto and strategy.name == "model"):  # auto skips it when nothing verifies
            return strategy.name == "rules"
    return False


def skip_reason(auto: bool, level: str, strategy: Strategy) -> str | None:
    """Why the chain passes ``strategy`` over at ``level``, or None (it runs)."""
    if auto and level == "none" and strategy.name == "model":
        # A learned translation is trusted only once it is checked; unchecked, the
        # deterministic rules win (asked first: finding the model costs per file).
        return "verification is off: auto uses the model only when it can be verified"
    return strategy.unavailable()


def parse_chain(spec: str) -> tuple[list[Strategy], bool]:
    """The strategies ``spec`` names, and whether it was ``auto``.

    ``auto`` expands to model, rules, hipify-perl, hipify-clang; those that
    cannot run here are skipped (and the report says why). Named strategies
    that cannot run are errors, since the user asked for them.
    """
    # Items are comma-separated, so an exec: command cannot hold a comma (wrap it in a script).
    parts = [p.strip() for p in spec.split(",") if p.strip()]
    if not parts:
        parts = ["auto"]
    chain: list[Strategy] = []
    auto = False
    for part in parts:
        if part == "auto":
            auto = True
            chain += [ModelStrategy(fallback=True), RulesStrategy(fallback=True)]
            chain += [CudaRulesStrategy(), *(_one(n) for n in NAMES[2:])]
        else:
            chain.append(_one(part))
    return chain, auto
