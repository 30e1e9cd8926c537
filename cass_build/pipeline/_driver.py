"""The compile command: the clang command hipcc would run, without running hipcc each time.

hipcc is a driver around clang (a Perl script up to ROCm 5.x, a C++ program
later): it adds its flags (``--hip-version``, system include directories, the
device library path, ``-mllvm -amdgpu-early-inline-all=true`` ...) and runs
clang. For ROCm 5.2's Perl script that costs about 0.2 CPU s per call (Perl,
``clang --version``, ``clang -print-target-triple``), which a build step pays on
top of its compile. So the clang command is asked of hipcc once per toolchain
and shape of command line, and the steps run clang themselves:

* **Probe.** hipcc runs the command with ``HIPCC_VERBOSE=1`` and ``-###``: it
  prints the clang command it builds (``hipcc-cmd: ...``) and clang prints the
  jobs it would run. Arguments hipcc passes through untouched (``-I``, ``-D``
  and the like, the input and the output) are replaced by placeholders first,
  so one probe serves every file of a target.
* **Check.** The clang command read from that line runs with ``-###`` too, and
  its jobs must be exactly hipcc's (temporary file names aside): the command is
  used only when it is what hipcc would have run.
* **Cache.** The command, with its placeholders, is stored under the cache
  directory, keyed on the toolchain's fingerprint, hipcc's files, the
  environment variables hipcc reads and the command's shape. A probe whose
  answer cannot be used is stored as well, and that shape then compiles through
  hipcc (one that could not run, or timed out, is tried again next time).

``CASS_DIRECT_CLANG=0`` turns this off (every compile runs hipcc).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._proc import run
from ..settings import environment
from .toolchain import HipToolchain

__all__ = ["Command", "compile_command", "link_command"]

_FORMAT = 1
_PROBE_TIMEOUT = 120.0
#: Options hipcc copies to clang as they are (when attached to their value).
_PASS_THROUGH = re.compile(r"^-(I|D|U|iquote|isystem|idirafter)(?=.)", re.S)
#: Text hipcc looks for anywhere in an argument (it rewrites or swallows those).
_SPECIAL = ("--genco", "--amdhsa-code-object-version=", "-fopenmp-targets=", "-Wl,", "--hipcc")
#: hipcc reads these (hipcc.pl, hipvars.pm, hipBin); HIPCC_VERBOSE is the probe's own.
_ENV_PREFIXES = ("HIP", "HCC", "ROCM", "HSA", "DEVICE_LIB_PATH", "CUDA_PATH")
#: A temporary file name in ``-###`` output: ``/tmp/k-3f9a1c/k-gfx90a.o``.
_TEMP_NAME = re.compile(r"-[0-9a-f]{6}(?=[/.\"])")

Command = tuple[list[str], str]
"""An argv to run, and the tool it runs: ``clang`` or ``hipcc``."""


def _stat(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _hipcc_files(hipcc: Path) -> list[str]:
    """hipcc and the files it runs (hipcc.pl, hipvars.pm, hipcc.bin), by size and mtime."""
    real = hipcc.resolve()
    names = [real, *(real.parent / n for n in ("hipcc.pl", "hipvars.pm", "hipcc.bin"))]
    return [f"{p}={_stat(p)}" for p in names]


def _env(toolchain: HipToolchain) -> dict[str, str]:
    env = toolchain.env()
    env.pop("HIPCC_VERBOSE", None)  # the probe sets its own; it changes no flag (not keyed)
    return env


def _key(toolchain: HipToolchain, shape: list[str], env: Mapping[str, str]) -> str:
    seen = {k: v for k, v in sorted(env.items()) if k.startswith(_ENV_PREFIXES)}
    blob = json.dumps(
        [_FORMAT, toolchain.fingerprint(), _hipcc_files(toolchain.hipcc), seen, shape]
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _slots(args: Sequence[str], inputs: Sequence[int], output: int | None) -> list[str | int]:
    """``args`` with the position of each argument hipcc passes through as it is in its
    place: the inputs, the output and plain ``-I``/``-D``-like options."""
    slots: list[str | int] = []
    for i, arg in enumerate(args):
        plain = _PASS_THROUGH.match(arg) and "\n" not in arg and not any(s in arg for s in _SPECIAL)
        slots.append(i if i in inputs or i == output or plain else arg)
    return slots


def _shape(slots: list[str | int], inputs: Mapping[int, str], output: int | None) -> list[str]:
    """The command line as far as hipcc can tell: what the probe's answer depends on.
    ``inputs``: each input's word in the shape."""

    def word(slot: int) -> str:
        return "@output" if slot == output else inputs.get(slot, "@")

    return [word(s) if isinstance(s, int) else s for s in slots]


def _jobs(output: str) -> str:
    """clang's ``-###`` plan, temporary file names masked (and any hipcc-cmd line left out)."""
    lines = [ln for ln in output.splitlines() if not ln.startswith("hipcc-cmd:")]
    return _TEMP_NAME.sub("-XXXXXX", "\n".join(lines))


def _probe(
    toolchain: HipToolchain,
    slots: list[str | int],
    inputs: Mapping[int, str],
    output: int | None,
    env: Mapping[str, str],
) -> dict[str, Any]:
    """Ask hipcc for its clang command and check it: the cache entry for this shape."""
    import tempfile  # only a probe needs it: a cache hit makes none

    with tempfile.TemporaryDirectory(prefix="cass-probe-") as name:
        tmp = Path(name)
        marks = {i: f"-DCASS_PROBE_ARG_{i}" for i in slots if isinstance(i, int)}
        for i, name in inputs.items():
            (tmp / name).write_bytes(b"")
            marks[i] = str(tmp / name)
        if output is not None:
            marks[output] = str(tmp / "cass_probe.o")
        probe = [marks[s] if isinstance(s, int) else s for s in slots]
        verbose = {**env, "HIPCC_VERBOSE": "1"}
        hipcc = run([toolchain.hipcc, *probe, "-###"], env=verbose, cwd=tmp, timeout=_PROBE_TIMEOUT)
        if hipcc.stopped:
            return {"fallback": f"hipcc -### failed: {hipcc.stopped}", "transient": True}
        said = (hipcc.stdout + hipcc.stderr).splitlines()
        lines = [ln for ln in said if ln.startswith("hipcc-cmd:")]
        if hipcc.returncode != 0 or len(lines) != 1:
            return {"fallback": f"hipcc -### printed no command (exit {hipcc.returncode})"}
        try:
            words = shlex.split(lines[0].removeprefix("hipcc-cmd:"))
        except ValueError as exc:
            return {"fallback": f"hipcc's command does not parse: {exc}"}
        if words.count("-###") != 1:
            return {"fallback": "hipcc's command does not pass -### on once"}
        words.remove("-###")
        by_mark = {mark: i for i, mark in marks.items()}
        template = [by_mark.get(w, w) for w in words]
        if sorted(t for t in template if isinstance(t, int)) != sorted(marks):
            return {"fallback": "hipcc did not pass every argument on once, as it was"}
        clang = Path(words[0])
        if not (clang.is_absolute() and clang.is_file() and os.access(clang, os.X_OK)):
            return {"fallback": f"hipcc's compiler {words[0]} is not an executable path"}
        direct = run([*words, "-###"], env=env, cwd=tmp, timeout=_PROBE_TIMEOUT)
        if direct.stopped:
            return {"fallback": f"{clang} -### failed: {direct.stopped}", "transient": True}
        if direct.returncode != 0 or _jobs(direct.stderr) != _jobs(hipcc.stderr):
            return {"fallback": f"{clang} with hipcc's flags plans other jobs than hipcc"}
    return {"template": template, "clang": str(clang), "clang_stat": _stat(clang)}


def _read(path: Path) -> dict[str, Any] | None:
    try:
        entry = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict):
        return None
    if "template" in entry and _stat(Path(entry["clang"])) != entry.get("clang_stat"):
        return None  # clang was replaced: ask hipcc again
    return entry


def _write(path: Path, entry: dict[str, Any]) -> None:
    from .._files import store_quietly

    store_quietly(path, json.dumps(entry).encode())  # read-only: the probe runs next time


def compile_command(
    toolchain: HipToolchain, args: Sequence[str], *, source: int, output: int | None = None
) -> Command:
    """What to run for ``hipcc *args``: clang with hipcc's flags where that is known to be
    the command hipcc runs, else hipcc. ``source`` and ``output`` index ``args``."""
    if toolchain.driver == "clang":  # no hipcc to ask: clang with the tree's paths
        return [str(toolchain.hipcc), *toolchain.compile_flags(), *args], "clang"
    return _command(toolchain, args, {source: ("cass_probe.hip", "@input")}, output)


def link_command(
    toolchain: HipToolchain, args: Sequence[str], *, inputs: Sequence[int], output: int
) -> Command:
    """What to run for the link ``hipcc *args``, as :func:`compile_command` does for a
    compile: hipcc's Perl start-up costs a link step as much as its linker does.
    ``inputs`` index the objects and libraries given by path, ``output`` the program."""
    if toolchain.driver == "clang":  # hipcc's own link flags, where hipcc is retired
        return [str(toolchain.hipcc), "--hip-link", *toolchain.compile_flags(), *args], "clang"
    # hipcc tells a link's inputs apart by their suffix (object, archive, shared library).
    suffixes = {i: Path(args[i]).suffix for i in inputs}
    names = {
        i: (f"cass_probe_{n}{suffixes[i]}", f"@input{suffixes[i]}") for n, i in enumerate(inputs)
    }
    return _command(toolchain, args, names, output)


def _command(
    toolchain: HipToolchain,
    args: Sequence[str],
    inputs: Mapping[int, tuple[str, str]],
    output: int | None,
) -> Command:
    """``inputs``: each input's file name in the probe and word in the shape."""
    hipcc: Command = ([str(toolchain.hipcc), *args], "hipcc")
    if environment().direct_clang == "0":
        return hipcc
    env = _env(toolchain)
    slots = _slots(args, list(inputs), output)
    from .._files import cache_dir, locked

    root = cache_dir()
    shape = _shape(slots, {i: word for i, (_, word) in inputs.items()}, output)
    key = _key(toolchain, shape, env)
    path = root / "drivers" / f"{key}.json" if root else None
    entry = _read(path) if path else None
    if entry is None:
        # Parallel steps of a cold build wait for one probe.
        with locked(path.with_suffix(".lock")) if path else contextlib.nullcontext():
            entry = _read(path) if path else None
            if entry is None:
                names = {i: name for i, (name, _) in inputs.items()}
                entry = _probe(toolchain, slots, names, output, env)
                if path and not entry.get("transient"):  # a timeout under load is asked again
                    _write(path, entry)
    if "template" not in entry:
        return hipcc
    # The template holds positions in a command line of this shape.
    return [args[w] if isinstance(w, int) else w for w in entry["template"]], "clang"
