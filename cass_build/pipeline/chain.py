"""The translation pipeline: translate → verify → fall back → cache.

``translate_file`` runs the strategy chain on one source. Every candidate is
verified at the requested level; the first that passes wins, and the result
records which strategy won, the evidence (tool, version, archs, command) and
why every other candidate lost. When none passes, ``VerificationError`` names
the first compiler error at its line in the original ``.cu`` file, unless
``allow_unverified`` turns that into a warning.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._files import read_source
from .._version import __version__
from ..api import Translation
from ..errors import ToolchainError, ToolFailedError, UsageError, VerificationError
from ..rules.diagnostics import Diagnostic, rule
from ..rules.stats import FamilyCount, Stats
from ..settings import PipelineOptions, options_from_env
from .cache import Cache
from .failures import UntranslatedHeader, mirror_hint, missing_header, untranslated_header
from .includes import local_dirs, local_includes
from .strategies import (
    NATIVE_HAZARDS,
    Candidate,
    Strategy,
    StrategyFailed,
    parse_chain,
    skip_reason,
)
from .strategies import rules_taken_first as _rules_first
from .toolchain import HipToolchain, default_archs, find_hip, install_hint, parse_archs
from .verify import LEVELS, Evidence, Outcome, Unit, verify

__all__ = [
    "Attempt",
    "PipelineOptions",
    "Result",
    "options_from_env",
    "translate_file",
]

HEADER_SUFFIXES = frozenset({".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl", ".inc"})


@dataclass(frozen=True)
class Attempt:
    """One strategy's turn: verified, failed (and why) or skipped (and why)."""

    strategy: str
    status: str
    reason: str = ""
    messages: tuple[str, ...] = ()
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        # By hand: dataclasses.asdict deep-copies, and a tree's report holds thousands.
        return {
            "strategy": self.strategy,
            "status": self.status,
            "reason": self.reason,
            "messages": list(self.messages),
            "seconds": self.seconds,
        }


@dataclass(frozen=True, kw_only=True)
class Result(Translation):
    """The winning translation of one file and how it was reached: a :class:`Translation`
    (``data``, ``diagnostics``, ``stats``, ``path``, ``strategy``) with its verification."""

    level: str
    """The verification level reached: none, syntax, compile or run."""
    verified: bool
    attempts: tuple[Attempt, ...]
    evidence: tuple[Evidence, ...]
    depends: tuple[Path, ...]
    """The source and every local header it reaches (for depfiles)."""
    headers: dict[Path, bytes]
    """Translated headers, keyed by their output paths under the mirror roots."""
    object_data: bytes | None = None
    cached: bool = False
    seconds: float = 0.0

    def report(self) -> dict[str, Any]:
        """This result as one entry of the JSON run report."""
        severities = [d.severity for d in self.diagnostics]  # one pass, counted in C
        return {
            "file": self.path,
            "strategy": self.strategy,
            "level": self.level,
            "verified": self.verified,
            "cached": self.cached,
            "seconds": round(self.seconds, 4),
            "errors": severities.count("error"),
            "warnings": severities.count("warning"),
            "notes": severities.count("note"),
            "evidence": [e.as_dict() for e in self.evidence],
            "attempts": [a.as_dict() for a in self.attempts],
        }


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _mirror_target(
    path: Path, mirror: tuple[tuple[Path, Path], ...], rename_cu: bool = False
) -> Path | None:
    resolved = path.resolve()
    for src, dst in mirror:
        try:
            target = dst / resolved.relative_to(src.resolve())
        except ValueError:
            continue
        # Quoted includes of .cu files are renamed with the files themselves.
        return target.with_suffix(".hip") if rename_cu and target.suffix == ".cu" else target
    return None


def _resolve_level(options: PipelineOptions, toolchain: HipToolchain | None) -> tuple[str, str]:
    """The level to verify at, and a warning when 'auto' had to settle for none."""
    level = options.verify
    if level == "auto":
        if toolchain is None:
            return "none", "not verified: no HIP toolchain found (hipcc)"
        return "compile", ""
    if level not in LEVELS:
        msg = f"verification level {level!r}: expected auto, {', '.join(LEVELS)}"
        raise UsageError(msg)
    return level, ""


def _candidate_unit(
    strategy: Strategy,
    src: Path,
    data: bytes,
    headers: dict[Path, bytes],
    options: PipelineOptions,
) -> tuple[Candidate, dict[Path, bytes]]:
    candidate = strategy.translate(src, data, options.settings)
    done = {h: strategy.translate(h, d, options.settings) for h, d in headers.items()}
    if done and any(c.fallbacks for c in (candidate, *done.values())):
        # Links between declarations are followed within one file: a header's helper and
        # the kernel calling it could end up in different warp modes.
        msg = "a declaration fell back to --warp cuda in a file with local headers"
        raise StrategyFailed(msg)
    return candidate, {h: c.data for h, c in done.items()}


def _run_level(src: Path, hip: bytes, unit: Unit, outcome: Outcome) -> tuple[Outcome, str]:
    """Run the program against its CUDA original; a missing GPU stops at compile (warned)."""
    try:
        from ..runcheck import compare  # the differential runner
    except ImportError:
        return outcome, "run verification is not available in this build; verified to compile"
    backend = compare.gpu_backend()
    if backend is None:
        return outcome, "run verification needs a GPU (none found); verified to compile"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cass-run-") as name:
        work = Path(name)
        hip_path = work / (src.stem + ".hip")
        hip_path.write_bytes(hip)
        start = time.perf_counter()
        result = compare.compare(src, hip_path, workdir=work, include_dirs=unit.include_dirs)
        seconds = time.perf_counter() - start
    evidence = Evidence("run", backend, "", (), f"cass compare {src} {hip_path.name}", seconds)
    if not result.passed:
        failed = Outcome(False, outcome.level, (*outcome.evidence, evidence), result.reason)
        return failed, ""
    return Outcome(True, "run", (*outcome.evidence, evidence), object_data=outcome.object_data), ""


def _cache_key(
    src: Path,
    data: bytes,
    deps: dict[Path, bytes],
    options: PipelineOptions,
    level: str,
    archs: tuple[str, ...],
    chain: list[Strategy],
    toolchain: HipToolchain | None,
) -> str:
    settings = dataclasses.asdict(options.settings)
    settings["hip_version"] = options.settings.resolved_hip_version()
    return Cache.key(
        {
            "cass": __version__,
            "source": [str(src), _sha(data)],
            "deps": [[str(p), _sha(d)] for p, d in deps.items()],
            "strategies": [s.fingerprint() for s in chain if s.unavailable() is None],
            "chain": options.strategy,
            "level": level,
            "archs": archs,
            "include_dirs": [str(p) for p in options.include_dirs],
            "defines": options.defines,
            "flags": options.flags,
            # Output roots are left out: a second build directory reuses the entries,
            # whose headers are stored relative to their root.
            "mirror": [str(a) for a, _ in options.mirror],
            "allow_unverified": options.allow_unverified,
            "object": options.want_object,
            "settings": settings,
            "toolchain": toolchain.fingerprint() if toolchain and level != "none" else None,
        }
    )


def _relative_headers(
    headers: dict[Path, bytes], mirror: tuple[tuple[Path, Path], ...]
) -> list[tuple[int, str, str | None]]:
    stored = []
    for target, data in headers.items():
        for i, (_, root) in enumerate(mirror):
            try:
                stored.append((i, str(target.relative_to(root)), _b64(data)))
                break
            except ValueError:
                continue
    return stored


def _to_entry(result: Result, mirror: tuple[tuple[Path, Path], ...]) -> dict[str, Any]:
    return {
        "data": _b64(result.data),
        "strategy": result.strategy,
        "level": result.level,
        "verified": result.verified,
        "attempts": [a.as_dict() for a in result.attempts],
        "evidence": [dataclasses.asdict(e) for e in result.evidence],
        "diagnostics": [list(d) for d in result.diagnostics],
        "stats": {
            "families": {k: [v.converted, v.unconverted] for k, v in result.stats.families.items()},
            "lines": result.stats.lines,
            "bytes": result.stats.bytes,
        },
        "headers": _relative_headers(result.headers, mirror),
        "object": _b64(result.object_data),
        "seconds": result.seconds,
    }


def _from_entry(
    entry: dict[str, Any],
    path: str,
    depends: tuple[Path, ...],
    mirror: tuple[tuple[Path, Path], ...],
) -> Result:
    stats = entry["stats"]
    return Result(
        path=path,
        data=base64.b64decode(entry["data"]),
        strategy=entry["strategy"],
        level=entry["level"],
        verified=entry["verified"],
        attempts=tuple(
            Attempt(a["strategy"], a["status"], a["reason"], tuple(a["messages"]), a["seconds"])
            for a in entry["attempts"]
        ),
        evidence=tuple(
            Evidence(
                e["level"], e["tool"], e["version"], tuple(e["archs"]), e["command"], e["seconds"]
            )
            for e in entry["evidence"]
        ),
        diagnostics=tuple(Diagnostic(*d) for d in entry["diagnostics"]),
        stats=Stats(
            {k: FamilyCount(*v) for k, v in stats["families"].items()},
            stats["lines"],
            stats["bytes"],
        ),
        depends=depends,
        headers={mirror[i][1] / rel: base64.b64decode(data) for i, rel, data in entry["headers"]},
        object_data=_unb64(entry["object"]),
        cached=True,
        seconds=entry["seconds"],
    )


@functools.lru_cache(maxsize=4096)
def _real_dir(directory: str) -> Path:
    return Path(directory).resolve()


def real_path(path: Path) -> Path:
    """``path.resolve()``, with each directory resolved once per process: a resolve stats
    every component, and the files of a tree share their directories."""
    if path.is_symlink():
        return path.resolve()
    # Keyed absolute, as the working directory may change; joined as strings, which keeps
    # '..' (the parent of a symlinked directory is not the lexical one).
    parent = os.path.join(os.getcwd(), os.path.dirname(path))  # noqa: PTH109, PTH118, PTH120
    return _real_dir(parent) / path.name


def rules_first(options: PipelineOptions) -> bool:
    """Whether, with verification off, ``options`` take the rules' translation."""
    return _rules_first(*parse_chain(options.strategy))


def _failure_entry(exc: VerificationError) -> dict[str, Any]:
    return {
        "failure": {
            "message": str(exc),
            "hint": exc.hint,
            "details": list(exc.details),
            "attempts": list(exc.attempts),
            "diagnosis": list(exc.diagnosis),
            "candidate": _b64(exc.candidate),
            "untranslated": _untranslated_entry(exc.untranslated),
        }
    }


def _untranslated_entry(found: UntranslatedHeader | None) -> list[Any] | None:
    return None if found is None else [str(found.header), str(found.root), found.depth]


def _failure_from_entry(entry: dict[str, Any]) -> VerificationError:
    return VerificationError(
        entry["message"],
        hint=entry["hint"],
        details=tuple(entry["details"]),
        attempts=tuple(entry["attempts"]),
        cached=True,
        diagnosis=tuple(entry.get("diagnosis", ())),
        candidate=_unb64(entry.get("candidate")),
        untranslated=_untranslated_from(entry.get("untranslated")),
    )


def _untranslated_from(raw: list[Any] | None) -> UntranslatedHeader | None:
    if not raw:
        return None
    header, root, depth = raw
    return UntranslatedHeader(Path(header), Path(root), int(depth))


@dataclass(frozen=True)
class _Job:
    """One file's run through the chain: what was read and decided before any strategy."""

    src: Path
    data: bytes
    deps: dict[Path, bytes]
    """Every local header the source reaches, with its bytes (cache keys)."""
    mirrored: dict[Path, bytes]
    """The headers under a mirror root: translated with the source."""
    opts: PipelineOptions
    chain: list[Strategy]
    auto: bool
    level: str
    archs: tuple[str, ...]
    toolchain: HipToolchain | None
    depends: tuple[Path, ...]
    downgrade: str
    """A warning that the level asked for could not be reached here, or ''."""
    start: float
    local: tuple[tuple[Path, Path], ...] = ()
    """The user's include directories no mirror covers: their headers are translated for
    the check (mirrored in its scratch directory), not written."""
    check_only: tuple[Path, ...] = ()
    """The headers found there."""


def _plan(path: str | Path, opts: PipelineOptions, start: float) -> _Job:
    """Read the source and its headers; settle the level, the toolchain and the archs."""
    src = Path(path)
    data, _ = read_source(src, opts.settings.max_bytes)
    deps: dict[Path, bytes] = {}
    resolved = real_path(src)
    for header in local_includes(src, data, opts.include_dirs, resolved=resolved):
        try:
            deps[header] = header.read_bytes()
        except OSError:
            continue
    chain, auto = parse_chain(opts.strategy)
    is_header = src.suffix in HEADER_SUFFIXES
    needs_tools = opts.verify not in ("none", "auto") and not is_header
    toolchain = find_hip() if (needs_tools or opts.verify == "auto" or opts.want_object) else None
    level, downgrade = _resolve_level(opts, toolchain)
    if is_header:
        level = "none"  # a header is verified through the sources that include it
    # A run needs a GPU, not hipcc: an NVIDIA machine runs HIP through the HIP-on-CUDA
    # layer, and then skips the AMD compile (with a warning) when no hipcc is there.
    run_only = level == "run" and not opts.want_object
    if (level != "none" or opts.want_object) and toolchain is None and not run_only:
        if not opts.allow_unverified or opts.want_object:
            msg = f"{src}: cannot verify: no HIP toolchain found (hipcc)"
            raise ToolchainError(msg, hint=install_hint())
        downgrade = f"not verified: no HIP toolchain found (hipcc); install: {install_hint()}"
        level = "none"
    archs: tuple[str, ...] = ()
    if level != "none" or opts.want_object:  # the device-library scan costs per file
        archs = opts.archs or default_archs()
        archs = tuple(a for arch in archs for a in parse_archs(arch))
    if auto and level == "none":
        # Unverified, auto means the rules as they are (the tree batch's path too): the
        # native fallback to --warp cuda is part of auto's verify-then-fall-back.
        chain = [_plain(s) for s in chain if s.name != "rules-cuda"]
    if level != "none" and not archs:
        msg = f"{src}: no AMD architecture to verify for"
        raise UsageError(msg, hint="pass --offload-arch gfx90a or set CASS_ARCHS")
    mirrored = {h: d for h, d in deps.items() if _mirror_target(h, opts.mirror) is not None}
    # Headers in the user's other include directories (a sibling Common/) are translated
    # too: for the check and the object always, written only where a mirror says where.
    local: tuple[tuple[Path, Path], ...] = ()
    check_only: list[Path] = []
    if deps and opts.include_dirs:
        local = tuple((d, d) for d in local_dirs(opts.include_dirs, [s for s, _ in opts.mirror]))
        for header, text in deps.items():
            if header not in mirrored and _mirror_target(header, local) is not None:
                mirrored[header] = text
                check_only.append(header)
    depends = (resolved, *deps)
    return _Job(
        src, data, deps, mirrored, opts, chain, auto, level, archs, toolchain, depends,
        downgrade, start, local, tuple(check_only),
    )  # fmt: skip


def _plain(strategy: Strategy) -> Strategy:
    from .strategies import RulesStrategy

    return RulesStrategy() if isinstance(strategy, RulesStrategy) else strategy


def translate_file(path: str | Path, options: PipelineOptions | None = None) -> Result:
    """Translate and verify one CUDA source; the source itself is never modified."""
    start = time.perf_counter()
    job = _plan(path, options or options_from_env(), start)
    cheap = job.level == "none" and not job.opts.want_object and _rules_first(job.chain, job.auto)
    if not job.opts.use_cache or cheap:
        return _run_chain(job)
    return _through_cache(job, Cache())


def _through_cache(job: _Job, cache: Cache) -> Result:
    """The cached result (or failure) for the job, else the chain's, stored."""
    opts, src = job.opts, job.src
    key = _cache_key(src, job.data, job.deps, opts, job.level, job.archs, job.chain, job.toolchain)
    hit = cache.get(key)
    if hit is None:
        with cache.lock(key):
            hit = cache.get(key)  # another process may have finished it meanwhile
            if hit is None:
                try:
                    result = _run_chain(job)
                except VerificationError as exc:
                    # As repeatable as a success: a re-run reports it without compiling.
                    cache.put(key, _failure_entry(exc))
                    raise
                if not result.attempts or result.verified or job.level == "none":
                    cache.put(key, _to_entry(result, opts.mirror))
                return result
    if "failure" in hit:
        raise _failure_from_entry(hit["failure"])
    found = _from_entry(hit, str(src), job.depends, opts.mirror)
    return dataclasses.replace(found, seconds=time.perf_counter() - job.start)


@dataclass
class _Turns:
    """What the chain has learnt so far, strategy by strategy."""

    attempts: list[Attempt] = field(default_factory=list)
    fallback: tuple[str, Candidate, dict[Path, bytes]] | None = None
    """The candidate kept for --allow-unverified: the first one, or the rules'."""
    extra: list[Diagnostic] = field(default_factory=list)
    tools: list[ToolFailedError] = field(default_factory=list)
    """Translators or compilers that failed on their own account."""
    blamed: bool = False
    """Whether some candidate failed because of the source."""
    stopped: bool = False
    """A compiler is broken: no later candidate can pass, so the chain stops."""


def _run_chain(job: _Job) -> Result:
    """Each strategy in turn; the first verified candidate wins."""
    turns = _Turns()
    if not job.data or job.data.isspace():
        turns.extra.append(rule("empty-input").at(str(job.src), 1, 1))
    for strategy in job.chain:
        result = _turn(job, strategy, turns)
        if result is not None:
            return result
        if turns.stopped:
            break
    return _no_winner(job, turns)


def _skip_reason(job: _Job, strategy: Strategy) -> str | None:
    return skip_reason(job.auto, job.level, strategy)


def _check(job: _Job, unit: Unit, data: bytes) -> tuple[Outcome, str]:
    """Verify one candidate at the job's level; the note says what was skipped."""
    note = ""
    if job.toolchain is None and job.level == "run":
        outcome = Outcome(True, "none")
        note = "no HIP toolchain (hipcc) here: the AMD compile check was skipped"
    else:
        outcome = verify(
            unit, job.level, job.archs, job.toolchain, keep_object=job.opts.want_object
        )
    if outcome.ok and job.level == "run":
        outcome, run_note = _run_level(job.src, data, unit, outcome)
        note = "; ".join(n for n in (note, run_note) if n)
    return outcome, note


def _turn(job: _Job, strategy: Strategy, turns: _Turns) -> Result | None:
    """One strategy's turn: its Result when its candidate passes, else None (recorded)."""
    src, opts = job.src, job.opts
    skip_for = getattr(strategy, "skip_for", None)  # a step that only some settings need
    if skip_for is not None and skip_for(opts.settings) is not None:
        return None
    reason = _skip_reason(job, strategy)
    if reason is not None:
        turns.attempts.append(Attempt(strategy.name, "skipped" if job.auto else "failed", reason))
        if not job.auto:  # the user asked for a translator that is not here
            turns.tools.append(_tool_failed(src, strategy.name, reason, _command_of(strategy)))
        return None
    t0 = time.perf_counter()
    try:
        candidate, headers = _candidate_unit(strategy, src, job.data, job.mirrored, opts)
    except StrategyFailed as exc:
        seconds = time.perf_counter() - t0
        turns.attempts.append(Attempt(strategy.name, "failed", str(exc), (), seconds))
        if exc.tool:
            turns.tools.append(_tool_failed(src, exc.tool, str(exc), exc.command))
        else:
            turns.blamed = True
        return None
    if job.auto and candidate.same_as_rules and _seen(strategy, turns):
        # Nothing of the model's is in it: verify it once, as the rules' translation.
        reason = "the model changed no declaration; the rules' translation stands"
        if strategy.name != "model":
            reason = "the same text as the native rules' translation, which failed its check"
        turns.attempts.append(Attempt(strategy.name, "skipped", reason))
        return None
    if turns.fallback is None or strategy.name in ("rules", "rules-cuda"):
        turns.fallback = (strategy.name, candidate, headers)
    unit = Unit(
        src,
        candidate.data,
        headers,
        (*opts.mirror, *job.local),
        opts.include_dirs,
        opts.defines,
        opts.flags,
        opts.settings.rename_cu_includes,
    )
    outcome, note = _check(job, unit, candidate.data)
    seconds = time.perf_counter() - t0
    if not outcome.ok:
        turns.attempts.append(
            Attempt(strategy.name, "failed", outcome.reason, outcome.messages, seconds)
        )
        if outcome.tool_failure:
            # The compiler is broken, not the candidate: every other one would meet it.
            evidence = outcome.evidence[-1]
            broken = _tool_failed(src, evidence.tool, outcome.tool_failure, evidence.command)
            if not opts.allow_unverified:
                raise _rejected_flag(src, outcome.tool_failure, opts.flags) or broken
            turns.tools.append(broken)
            turns.stopped = True
            return None
        turns.blamed = True
        return None
    status = "verified" if outcome.level != "none" else "unverified"
    turns.attempts.append(Attempt(strategy.name, status, "", (), seconds))
    warn = [w for w in (job.downgrade, note) if w]
    turns.extra += [rule("unverified").at(str(src), 0, 0, w) for w in warn]
    turns.extra += _check_only_notes(job, headers)
    if candidate.native_fallback:
        turns.extra.append(_native_fallback_note(src, turns.attempts))
    if job.auto and turns.tools:  # e.g. a broken model: say why the rules stand in for it
        why = "; ".join(f"{t.tool}: {t.what}" for t in turns.tools)
        message = f"the {strategy.name} translation is used: the model could not run ({why})"
        turns.extra.append(rule("model-fallback").at(str(src), 0, 0, message))
    return Result(
        path=str(src),
        data=candidate.data,
        strategy=strategy.name,
        level=outcome.level,
        verified=outcome.level != "none",
        attempts=tuple(turns.attempts),
        evidence=outcome.evidence,
        diagnostics=tuple(turns.extra) + candidate.diagnostics,
        stats=candidate.stats,
        depends=job.depends,
        headers=_header_outputs(headers, opts),
        object_data=outcome.object_data,
        seconds=time.perf_counter() - job.start,
    )


def _seen(strategy: Strategy, turns: _Turns) -> bool:
    """Whether a candidate the same as the rules' text needs no check of its own: the
    model's (the rules come next), or rules-cuda's once the native rules' text was
    checked and failed (not merely refused for its hazards)."""
    if strategy.name == "model":
        return True
    return any(
        a.strategy == "rules" and a.status == "failed" and a.reason != NATIVE_HAZARDS
        for a in turns.attempts
    )


def _native_fallback_note(src: Path, attempts: list[Attempt]) -> Diagnostic:
    """Why ``auto --warp native`` took the whole file's ``--warp cuda`` translation."""
    whys = []
    for a in attempts:
        if a.strategy not in ("model", "rules"):
            continue
        if a.status == "failed":
            first = a.messages[0] if a.messages else a.reason
            whys.append(f"{a.strategy}: {first}")
        elif a.status == "skipped":
            whys.append(f"{a.strategy}: {a.reason}")
    why = "; ".join(whys) or "no native translation was tried"
    message = f"the file falls back to its --warp cuda translation ({why})"
    return rule("model-fallback").at(str(src), 0, 0, message)


def _check_only_notes(job: _Job, translated: dict[Path, bytes]) -> list[Diagnostic]:
    """One note per header translated for the check, changed, but written nowhere."""
    notes = []
    for header in job.check_only:
        if translated.get(header) == job.mirrored[header]:
            continue  # nothing to translate in it: the original serves
        root = next(d for d, _ in job.local if d in header.parents)
        message = (
            f"{header} was translated for the check only; pass --mirror {root}=OUT_DIR "
            "to write its translation"
        )
        notes.append(rule("header-not-written").at(str(job.src), 0, 0, message))
    return notes


def _no_winner(job: _Job, turns: _Turns) -> Result:
    """No candidate passed: the fallback, unverified, when allowed; else the error."""
    src, attempts = job.src, turns.attempts
    failed = [a for a in attempts if a.status == "failed"]
    why = "; ".join(f"{a.strategy}: {a.reason}" for a in failed) or "no strategy could run here"
    if turns.fallback is not None and job.opts.allow_unverified:
        name, candidate, headers = turns.fallback
        message = f"no candidate passed the {job.level} check; using {name} unverified ({why})"
        turns.extra.append(rule("unverified").at(str(src), 0, 0, message))
        return Result(
            path=str(src),
            data=candidate.data,
            strategy=name,
            level="none",
            verified=False,
            attempts=tuple(attempts),
            evidence=(),
            diagnostics=tuple(turns.extra) + candidate.diagnostics,
            stats=candidate.stats,
            depends=job.depends,
            headers=_header_outputs(headers, job.opts),
            seconds=time.perf_counter() - job.start,
        )
    if turns.tools and not turns.blamed:
        raise turns.tools[0]  # nothing failed because of the source
    messages = next((a.messages for a in failed if a.messages), ())
    first = messages[0] if messages else f"{src}: error: no candidate translation"
    details = tuple(messages[1:]) + tuple(f"{a.strategy}: {a.reason}" for a in failed)
    msg = f"{first} [{rule('verify-failed').id}]"
    hint = (
        "fix the CUDA source at that line, try another --strategy, or pass "
        "--allow-unverified to keep the translation anyway"
    )
    untranslated = untranslated_header(first, src, [h for h in job.deps if h not in job.mirrored])
    if untranslated is not None:
        hint = f"{mirror_hint(untranslated)}; or pass --allow-unverified to keep it anyway"
    elif missing := missing_header([m for a in failed for m in a.messages]):
        hint = f"{missing}; then build again, or {hint}"
    diagnosis: tuple[str, ...] = ()
    kept: bytes | None = None
    if turns.fallback is not None:
        # CASS's own errors first: an API it could not map is often why the compile failed.
        _, candidate, _ = turns.fallback
        diagnosis = tuple(str(d) for d in candidate.diagnostics if d.severity == "error")
        kept = candidate.data
    raise VerificationError(
        msg,
        hint=hint,
        details=details,
        attempts=tuple(a.as_dict() for a in attempts),
        diagnosis=diagnosis,
        candidate=kept,
        untranslated=untranslated,
    )


def _tool_failed(src: Path, tool: str, what: str, command: str) -> ToolFailedError:
    """One line naming the tool, its command and its first error line."""
    msg = f"{src}: {tool} failed, not the source: {what} (command: {command})"
    hint = (
        "run that command to see why; `cass doctor` shows the tools found "
        "($CASS_HIPCC picks a hipcc, $CASS_MODEL_DIR a model)"
    )
    return ToolFailedError(msg, hint=hint, tool=tool, command=command, what=what)


_REJECTED = re.compile(r"(?:unsupported option|unknown argument:?) '([^']+)'")
"""clang's words for a flag it does not take (``clang: error: unsupported option '--x'``,
``clang: error: unknown argument: '-fbogus'``)."""


def _rejected_flag(src: Path, what: str, flags: tuple[str, ...]) -> UsageError | None:
    """A flag the user gave the HIP compiler that it rejects, as the usage error it is.

    ``cass translate --hip-flags``, the CMake functions' options, and ``cass nvcc``'s
    unmapped flags (under ``-forward-unknown-to-host-compiler``, which CMake passes) and
    ``-Xcompiler``'s all reach clang: a typo (``--use-fast-math``) fails the compile, and
    the flag on the user's line is the thing to fix, not a command of scratch paths."""
    found = _REJECTED.search(what)
    if found is None or found.group(1) not in flags:
        return None
    flag = found.group(1)
    said = what.split(": ", 1)[1] if what.startswith("exited with") else what
    msg = f"{src}: the HIP compiler rejects '{flag}', a flag of this command line ({said})"
    hint = (
        "flags for the HIP compiler (--hip-flags; with cass nvcc, the flags it does not map "
        "under -forward-unknown-to-host-compiler, which CMake passes, and -Xcompiler's) go "
        "to clang, as nvcc gives them to the host compiler: fix or drop it; "
        "docs/zero-edit.md lists the flags cass nvcc maps"
    )
    return UsageError(msg, hint=hint)


def _command_of(strategy: Strategy) -> str:
    argv = getattr(strategy, "argv", None)  # external translators
    if argv:
        return " ".join(argv)
    if strategy.name == "model":
        from ..model_files import model_dir

        return f"onnxruntime on {model_dir()}"
    return strategy.name


def _header_outputs(headers: dict[Path, bytes], opts: PipelineOptions) -> dict[Path, bytes]:
    outputs = {}
    for original, data in headers.items():
        target = _mirror_target(original, opts.mirror, opts.settings.rename_cu_includes)
        if target is not None:
            outputs[target] = data
    return outputs
