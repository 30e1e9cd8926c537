"""Running the tools CASS drives (hipcc, clang, nvcc, HIPIFY, a built program): one runner.

``run`` never raises for a missing or hung tool: those come back as exit codes 127
and 124 with a one-line message in ``stderr``, as a shell reports them, so callers
handle every failure in one place. ``check=True`` raises :class:`ProcessError`
instead, naming the tool, its exit code and the first error line of its output.
Output is read as bytes and decoded once (UTF-8, undecodable bytes replaced, line
ends as Python's text mode reads them); ``stdout_bytes`` keeps a translator's bytes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import ProcessError

__all__ = ["NOT_RUN", "Completed", "ProcessError", "first_error", "run"]

#: What a compile may take before it counts as hung.
TIMEOUT = 600.0
#: The exit code of a tool that could not be started (as a shell reports it).
NOT_RUN = 127

_ERROR = re.compile(r"\berror\b", re.IGNORECASE)
# Lines hipcc and clang print around real errors that say nothing about the source.
_NOISE = re.compile(
    r"warning: argument unused|warning: -l\w+: 'linker' input unused|"
    r"^\s*$|undefining builtin macro|rocm_agent_enumerator"
)


def _text(data: bytes | None) -> str:
    if not data:
        return ""
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class Completed:
    """One finished (or stopped) tool run."""

    argv: tuple[str, ...]
    returncode: int
    """The tool's exit code; 127 when it could not start, 124 when it timed out."""
    stdout_bytes: bytes
    stderr: str
    seconds: float
    timed_out: bool = False
    stopped: str = ""
    """Why the tool did not run to its end (it could not start, or timed out); else ''."""

    @property
    def stdout(self) -> str:
        return _text(self.stdout_bytes)

    @property
    def output(self) -> str:
        """stderr, then stdout: where compilers put their messages first."""
        return self.stderr + self.stdout

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run(
    argv: Sequence[str | Path],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    timeout: float | None = TIMEOUT,
    input: bytes | None = None,
    capture: bool = True,
    check: bool = False,
) -> Completed:
    """Run ``argv`` and wait (``timeout=None``: as long as it takes); ``capture=False``
    lets its output through to ours."""
    import subprocess  # here: a cache hit runs nothing, and it loads threading, signal

    args = tuple(str(a) for a in argv)
    name = Path(args[0]).name
    start = time.perf_counter()
    try:
        done = subprocess.run(
            args,
            input=input,
            stdin=subprocess.DEVNULL if input is None and capture else None,
            capture_output=capture,
            timeout=timeout,
            check=False,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired as exc:
        message = f"{name}: timed out after {timeout:g} s"
        seconds = time.perf_counter() - start
        out = exc.stdout or b""
        completed = Completed(args, 124, out, message, seconds, timed_out=True, stopped=message)
    except OSError as exc:
        message = f"{name}: {exc.strerror or exc}"
        completed = Completed(args, NOT_RUN, b"", message, 0.0, stopped=message)
    else:
        completed = Completed(
            args,
            done.returncode,
            done.stdout or b"",
            _text(done.stderr),
            time.perf_counter() - start,
        )
    if check and not completed.ok:
        raise failure(completed)
    return completed


def failure(done: Completed, what: str = "") -> ProcessError:
    """The error for a failed run: ``what`` (else the tool's name), exit code, first error."""
    who = what or Path(done.argv[0]).name
    msg = f"{who} exited with {done.returncode}: {first_error(done.output)}"
    return ProcessError(msg, argv=done.argv, returncode=done.returncode, output=done.output)


def first_error(output: str, scratch: Path | None = None) -> str:
    """The first line of a tool's output that says error (else its last line), with the
    scratch directory's path taken out so the message names the user's file."""
    lines = [ln.strip() for ln in output.splitlines() if not _NOISE.search(ln)]
    found = next(
        (ln for ln in lines if _ERROR.search(ln)), lines[-1] if lines else "no compiler output"
    )
    if scratch is not None:
        found = found.replace(f"{scratch}/", "")
    return found[:300]
