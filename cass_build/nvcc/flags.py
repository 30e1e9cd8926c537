"""nvcc's command line, read through the flag table (``cass_build/data/nvcc/flags.toml``).

``parse`` turns an argv into an :class:`Invocation`: the mode, the inputs, what goes to
the HIP compiler and to the linker, and the notes to print. Every flag is in the table;
one that is not is an error naming it (exit 2), unless ``-forward-unknown-to-host-compiler``
sends it to the HIP compiler, as nvcc sends it to the host compiler.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError

__all__ = ["Flag", "Invocation", "flag_table", "parse", "table_path"]

CUDA_SUFFIXES = frozenset({".cu"})
CXX_SUFFIXES = frozenset({".cpp", ".cc", ".cxx", ".c++", ".C"})
C_SUFFIXES = frozenset({".c"})
LINK_SUFFIXES = frozenset({".o", ".obj", ".a", ".so", ".lo"})
_LANGUAGES = {"cu": "cu", "cuda": "cu", "c++": "c++", "cpp": "c++", "c": "c", "none": ""}
_MODES = ("compile", "compile-rdc", "dlink", "link", "lib", "preprocess", "deps")


@dataclass(frozen=True)
class Flag:
    """One row of the flag table."""

    names: tuple[str, ...]
    action: str
    value: bool = False
    attached: bool = False
    hip: tuple[str, ...] = ()
    mode: str = ""
    note: str = ""


def table_path() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "nvcc" / "flags.toml"


@functools.cache
def _table() -> dict[str, Any]:
    """The parsed table (through its JSON copy in the cache: a build runs the driver per
    file)."""
    from .libraries import load_toml_cached

    return load_toml_cached(table_path())


@functools.cache
def flag_table() -> tuple[Flag, ...]:
    """Every row, in the table's order."""
    rows = []
    for raw in _table()["flag"]:
        rows.append(
            Flag(
                names=tuple(raw["names"]),
                action=raw["action"],
                value=bool(raw.get("value", False)),
                attached=bool(raw.get("attached", False)),
                hip=tuple(raw.get("hip", ())),
                mode=raw.get("mode", ""),
                note=raw.get("note", ""),
            )
        )
    return tuple(rows)


@functools.cache
def _by_name() -> dict[str, Flag]:
    return {name: flag for flag in flag_table() for name in flag.names}


@functools.cache
def _attached() -> tuple[tuple[str, Flag], ...]:
    """Names that take their value glued on (``-Iinc``), longest first."""
    pairs = [(n, f) for f in flag_table() if f.attached for n in f.names if not n.startswith("--")]
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


@dataclass
class Invocation:
    """What one nvcc command line asks for."""

    mode: str = "link"
    """compile, compile-rdc, dlink, link, lib, preprocess or deps."""
    inputs: list[tuple[Path, str]] = field(default_factory=list)
    """Each input with its language: cu, c++, c or link (objects, archives)."""
    output: Path | None = None
    output_dir: Path | None = None
    include_dirs: list[Path] = field(default_factory=list)
    system_dirs: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    hip_flags: list[str] = field(default_factory=list)
    """To every HIP compile (and the -E of a translation)."""
    link_flags: list[str] = field(default_factory=list)
    """To the link only (``-L``, ``-l``, ``-Xlinker``)."""
    rdc: bool = False
    shared: bool = False
    depfile: Path | None = None
    dep_target: str | None = None
    depfile_with_compile: bool = False
    phony_deps: bool = False
    targets: list[str] = field(default_factory=list)
    """``-arch``/``-code``/``-gencode`` values: they select no AMD target."""
    host_compiler: str = ""
    verbose: bool = False
    dryrun: bool = False
    version: bool = False
    help: bool = False
    notes: dict[str, None] = field(default_factory=dict)
    """Each note once, in order."""


def _expand(argv: list[str], depth: int = 0) -> list[str]:
    """Response files: ``@file`` and ``--options-file file``, read with shell quoting."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        name = ""
        if arg.startswith("@") and len(arg) > 1:
            name = arg[1:]
        elif arg in ("-optf", "-options-file", "--options-file"):
            name = next(it, "")
            if not name:
                msg = f"option '{arg}' needs a file name"
                raise UsageError(msg)
        elif arg.startswith(("--options-file=", "-optf=", "-options-file=")):
            name = arg.split("=", 1)[1]
        if not name:
            out.append(arg)
            continue
        if depth > 8:
            msg = f"response file {name}: nested too deeply"
            raise UsageError(msg)
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as exc:
            msg = f"response file {name}: cannot read: {exc.strerror or exc}"
            raise UsageError(msg, hint="check the @file path") from None
        import shlex

        try:
            words = shlex.split(text, comments=False)
        except ValueError as exc:
            msg = f"response file {name}: {exc}"
            raise UsageError(msg) from None
        out += _expand(words, depth + 1)
    return out


def _lookup(arg: str, following: list[str]) -> tuple[Flag, str | None, int] | None:
    """The row ``arg`` names, its value and how many arguments it took (1 or 2)."""
    table = _by_name()
    if (flag := table.get(arg)) is not None:
        if not flag.value:
            return flag, None, 1
        if not following:
            msg = f"option '{arg}' needs a value"
            raise UsageError(msg, hint="see docs/zero-edit.md for nvcc's flags")
        return flag, following[0], 2
    if "=" in arg:
        name, value = arg.split("=", 1)
        if (flag := table.get(name)) is not None and flag.value:
            return flag, value, 1
    for name, flag in _attached():
        if arg.startswith(name) and len(arg) > len(name):
            return flag, arg[len(name) :], 1
    return None


def _language(path: Path, forced: str) -> str:
    if forced:
        return forced
    suffix = path.suffix
    if suffix in CUDA_SUFFIXES:
        return "cu"
    if suffix in CXX_SUFFIXES:
        return "c++"
    if suffix in C_SUFFIXES:
        return "c"
    return "link"


def _split(value: str) -> list[str]:
    """A comma-separated list (``-Xcompiler ,"-g",-O2``): items unquoted, empty ones
    dropped, as nvcc reads them (FindCUDA passes quoted items)."""
    items = (v.strip() for v in value.split(","))
    return [v[1:-1] if len(v) > 1 and v[0] == v[-1] == '"' else v for v in items if v]


def parse(argv: list[str]) -> Invocation:
    """Read nvcc's command line; raises ``UsageError`` naming the first flag it cannot map."""
    args = _expand(list(argv))
    inv = Invocation()
    forced = ""
    forward = "-forward-unknown-to-host-compiler" in args or any(
        a.startswith("--forward-unknown-to-host") or a.startswith("-forward-unknown-to-host")
        for a in args
    )
    pending: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-") or arg == "-":
            pending.append((arg, forced))
            continue
        found = _lookup(arg, args[i:])
        if found is None:
            if forward:
                inv.hip_flags.append(arg)
                continue
            msg = f"unsupported nvcc flag '{arg}'"
            hint = (
                "docs/zero-edit.md lists the flags cass nvcc maps; pass host flags with -Xcompiler"
            )
            raise UsageError(msg, hint=hint)
        flag, value, took = found
        i += took - 1
        forced = _apply(inv, flag, arg, value, forced)
    for name, language in pending:
        path = Path(name)
        inv.inputs.append((path, _language(path, language)))
    return inv


#: nvcc's -Werror kinds: what each is for the HIP compiler. Warnings only nvcc's front
#: end gives have no counterpart there.
_WERROR = {
    # HIP marks its API [[nodiscard]]; a cudaFree whose status CUDA code ignores must not
    # become an error that nvcc never raised.
    "all-warnings": ("-Werror", "-Wno-error=unused-result"),
    "reorder": ("-Werror=reorder",),
    "deprecated-declarations": ("-Werror=deprecated-declarations",),
    "cross-execution-space-call": (),
    "default-stream-launch": (),
    "missing-launch-bounds": (),
    "ext-lambda-captures-this": (),
}


def _werror(arg: str, value: str) -> list[str]:
    out: list[str] = []
    for kind in _split(value):
        if kind not in _WERROR:
            msg = f"{arg}: unknown warning kind '{kind}'; expected one of {', '.join(_WERROR)}"
            raise UsageError(msg)
        out += _WERROR[kind]
    return out


def _apply(inv: Invocation, flag: Flag, arg: str, value: str | None, forced: str) -> str:
    """Record one flag; returns the language that later inputs are read as (``-x``)."""
    v = value or ""
    action = flag.action
    if action == "mode":
        inv.mode = flag.mode if flag.mode in _MODES else inv.mode
        if flag.mode == "compile-rdc":
            inv.rdc = True
    elif action == "output":
        inv.output = Path(v)
    elif action == "output-dir":
        inv.output_dir = Path(v)
    elif action == "language":
        if v not in _LANGUAGES:
            msg = f"-x {v}: expected cu, c++, c or none"
            raise UsageError(msg)
        return _LANGUAGES[v]
    elif action == "rdc":
        inv.rdc = v.lower() in ("true", "1", "yes")
    elif action == "target":
        inv.targets.append(v)
    elif action == "include":
        inv.include_dirs.append(Path(v))
    elif action == "isystem":
        inv.system_dirs.append(Path(v))
    elif action == "define":
        inv.defines.append(v)
    elif action == "hip":
        inv.hip_flags += [h.replace("{}", v) for h in flag.hip]
        if flag.action == "hip" and arg in ("-G", "--device-debug"):
            inv.notes[f"{arg}: {flag.note}"] = None
    elif action in ("bool-hip", "bool-hip-false"):
        on = v.lower() in ("true", "1", "yes")
        if on == (action == "bool-hip"):
            inv.hip_flags += list(flag.hip)
    elif action == "link":
        inv.link_flags += [h.replace("{}", v) for h in flag.hip]
    elif action == "library":
        inv.link_flags.append(f"-l{v}")
    elif action == "xcompiler":
        inv.hip_flags += _split(v)
    elif action == "xcompiler-self":
        inv.hip_flags.append(arg)
    elif action == "xlinker":
        inv.link_flags += [f"-Wl,{w}" for w in _split(v)]
    elif action == "xlinker-self":
        inv.link_flags.append(arg)
    elif action == "ccbin":
        inv.host_compiler = v
    elif action == "shared":
        inv.shared = True
    elif action == "depfile":
        inv.depfile = Path(v)
    elif action == "deptarget":
        inv.dep_target = v
    elif action == "depfile-with-compile":
        inv.depfile_with_compile = True
    elif action == "phony-deps":
        inv.phony_deps = True
    elif action in ("verbose", "dryrun", "version", "help"):
        setattr(inv, action, True)
    elif action == "werror":
        inv.hip_flags += _werror(arg, v)
    elif action == "note":
        inv.notes[f"{arg}: {flag.note}"] = None
    elif action == "unsupported":
        msg = f"unsupported nvcc flag '{arg}': {flag.note}"
        raise UsageError(msg, hint="docs/zero-edit.md lists what cass nvcc maps")
    # "ignore" and "forward-unknown" record nothing more.
    return forced


_ACTION_TEXT = {
    "mode": "mode",
    "output": "the output file",
    "output-dir": "the directory of outputs",
    "language": "the language of the inputs",
    "rdc": "relocatable device code",
    "target": "selects no AMD target (CASS_ARCHS does); one note line",
    "include": "`-I` (CUDA toolkit directories dropped)",
    "isystem": "`-isystem` (CUDA toolkit directories dropped)",
    "define": "`-D`",
    "library": "`-l`, CUDA libraries mapped",
    "xcompiler": "to the HIP compiler",
    "xlinker": "`-Wl,` to the link",
    "ccbin": "host compiler",
    "shared": "`-shared` at the link",
    "depfile": "the depfile's name",
    "deptarget": "the depfile's target",
    "depfile-with-compile": "a depfile beside the object (original sources and headers)",
    "phony-deps": "a phony target per header",
    "verbose": "prints each step as `#$ ...`, after nvcc's variable lines",
    "dryrun": "prints the steps, runs none",
    "version": "prints the version CMake and FindCUDAToolkit read",
    "help": "prints usage",
    "forward-unknown": "forwards unknown flags",
    "options-file": "a response file",
    "xcompiler-self": "passed on",
    "xlinker-self": "passed on",
    "werror": "warnings as errors",
}


def markdown_table() -> str:
    """The flag table as the Markdown docs/zero-edit.md holds (tests/test_nvcc.py checks)."""
    lines = ["| nvcc flag | takes a value | cass nvcc |", "|---|---|---|"]
    for flag in flag_table():
        names = ", ".join(f"`{n}`" for n in flag.names)
        if flag.action == "hip":
            what = "HIP compiler: " + " ".join(f"`{h.replace('{}', 'VALUE')}`" for h in flag.hip)
        elif flag.action in ("bool-hip", "bool-hip-false", "link"):
            what = " ".join(f"`{h.replace('{}', 'VALUE')}`" for h in flag.hip)
        elif flag.action == "mode":
            what = f"mode: {flag.mode}"
        elif flag.action == "note":
            what = "dropped, with a note"
        elif flag.action == "unsupported":
            what = "error (exit 2)"
        elif flag.action == "ignore":
            what = "accepted, nothing to do"
        else:
            what = _ACTION_TEXT.get(flag.action, flag.action)
        if flag.note:
            what += f" ({flag.note})" if flag.action != "note" else f": {flag.note}"
        lines.append(f"| {names} | {'yes' if flag.value else ''} | {what.replace('|', '/')} |")
    lines += ["", "| CUDA library (`-l`) | linked instead |", "|---|---|"]
    from .libraries import driver_map

    for cuda, hip in driver_map().items():
        lines.append(
            f"| `{cuda}` | {f'`{hip}`' if hip else 'nothing (the HIP runtime is linked)'} |"
        )
    return "\n".join(lines) + "\n"
