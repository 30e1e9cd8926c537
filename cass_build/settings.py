"""The one settings model: what a translation is (``Settings``), how a file goes through
the pipeline (``PipelineOptions``, which holds a ``Settings``), and every ``CASS_*``
environment variable CASS reads (``Environment``). A docstring per field; the reference
in ``docs/settings.md`` is generated from them (``render_docs``) and tested.

One precedence everywhere, strongest first: a command-line option (``cass translate
--verify``) or a CMake target property (which ``cass_*`` functions pass as that option),
then the ``CASS_*`` variable, then the default here. An option given on the command line
wins even over a malformed variable, which is then not read at all.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ._dataclasses import dataclass, dataclasses, field  # without inspect: see there
from .errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = [
    "NEWEST_HIP",
    "Environment",
    "PipelineOptions",
    "Settings",
    "environment",
    "installed_hip_version",
    "options_from_env",
    "parse_version",
    "render_docs",
    "unknown_variables",
]

#: The newest HIP release the tables know; the target when no HIP is installed.
NEWEST_HIP = (7, 1)

_VERSION_H = (Path("/opt/rocm/include/hip/hip_version.h"), Path("/usr/include/hip/hip_version.h"))


@dataclass(frozen=True)
class Environment:
    """The ``CASS_*`` environment variables: field ``name`` is ``CASS_NAME``; unset is ``""``.

    Only this class reads them, so each one is documented once, here.
    """

    hip_version: str = ""
    """``Settings.hip_version`` (``6.2``)."""
    launch_syntax: str = ""
    """``Settings.launch_syntax`` (``chevrons`` or ``ggl``)."""
    warp: str = ""
    """``Settings.warp`` (``cuda`` or ``native``)."""
    strategy: str = ""
    """``PipelineOptions.strategy``."""
    verify: str = ""
    """``PipelineOptions.verify``."""
    archs: str = ""
    """AMD targets (``gfx90a;gfx1030``); before ``CMAKE_HIP_ARCHITECTURES`` and
    ``PYTORCH_ROCM_ARCH`` (``toolchain.target_archs``)."""
    hipcc: str = ""
    """The hipcc to use, and no other."""
    rocm_path: str = ""
    """A ROCm tree to look in first (before ``ROCM_PATH``, ``HIP_PATH``, ``/opt/rocm``)."""
    cache_dir: str = ""
    """Where translations and derived files are cached (default: the user cache dir)."""
    direct_clang: str = ""
    """``0`` runs hipcc for every verification instead of the clang command it runs."""
    model_dir: str = ""
    """A model directory in place of the packaged ``cass_build/models``."""
    model_threads: str = ""
    """onnxruntime's threads per model session (default: the CPUs, at most 4)."""
    model_max_departures: str = ""
    """The model's limit on departures from the rules' draft per unit (docs/model.md)."""
    backend: str = ""
    """``auto``, ``rocm`` or ``cuda``: the toolchain setuptools builds with."""
    gpu_backend: str = ""
    """``nvidia``, ``amd`` or ``none``: the GPU ``cass compare`` runs on (``none``: no run)."""
    nvdisasm: str = ""
    """The SASS disassembler ``cass asm`` uses (nvdisasm or cuobjdump)."""
    nvcc: str = ""
    """The program that runs ``cass nvcc`` (the stand-in's ``bin/nvcc``), named as the host
    link launcher in ``cass nvcc -v`` so that CMake's links come back to the driver."""
    nvcc_server: str = ""
    """``0`` runs the stand-in's ``bin/nvcc`` in-process, one Python per call, instead of
    through its translation server (read by ``bin/nvcc`` and its client; docs/zero-edit.md)."""
    nvcc_server_idle: str = ""
    """Seconds the translation server waits for a call before it exits (default 300)."""
    nvcc_server_stats: str = ""
    """A file the translation server appends one line to per call served: its pid, the
    call's own CPU and exit code (bench/nvcc_percall.py; tests)."""

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> Environment:
        env = os.environ if environ is None else environ
        return cls(**{f.name: env.get(_variable(f.name), "") for f in dataclasses.fields(cls)})


def _variable(name: str) -> str:
    return "CASS_" + name.upper()


#: ``CASS_*`` names that are not settings of this package: the CMake package's variables
#: (docs/cmake.md), which its functions read in CMake, not here.
CMAKE_VARIABLES = frozenset(
    {"CASS_DIR", "CASS_ROOT", "CASS_PYTHON_EXECUTABLE", "CASS_TRANSLATE", "CASS_WAVE"}
)


def unknown_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """Each ``CASS_*`` variable set that CASS does not read, with a "did you mean" for a
    near miss (``CASS_ARCH`` for ``CASS_ARCHS``): a typo would otherwise go unnoticed."""
    import difflib

    env = os.environ if environ is None else environ
    known = {_variable(f.name) for f in dataclasses.fields(Environment)}
    found = []
    for name in sorted(env):
        if name.startswith("CASS_") and name not in known | CMAKE_VARIABLES:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            found.append(
                f"{name}: not a CASS setting" + (f"; did you mean {close[0]}?" if close else "")
            )
    return found


def environment(environ: Mapping[str, str] | None = None) -> Environment:
    """The ``CASS_*`` variables now (read on each call: tests and builds change them)."""
    return Environment.read(environ)


def parse_version(text: str) -> tuple[int, int]:
    """Parse ``"6.2"`` (or ``"6.2.41133"``) into ``(6, 2)``."""
    parts = text.strip().split(".")
    try:
        major = int(parts[0])
        minor = int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        msg = f"invalid HIP version {text!r}: expected MAJOR.MINOR such as 6.2"
        raise ValueError(msg) from None
    return (major, minor)


@dataclass(frozen=True)
class Settings:
    """How CUDA is translated to HIP."""

    hip_version: tuple[int, int] | None = None
    """HIP release targeted (``(5, 2)``); ``None`` means the installed hipcc's, else the newest."""

    launch_syntax: Literal["chevrons", "ggl"] = "chevrons"
    """Kernel launches as ``k<<<g, b>>>(...)`` (HIP accepts them) or ``hipLaunchKernelGGL``."""

    cuda_arch: int = 700
    """``__CUDA_ARCH__`` assumed in AMD device code when a ``#if`` compares it."""

    cuda_version: int = 12080
    """``CUDART_VERSION`` assumed, picking the code written for that CUDA release."""

    warp: Literal["cuda", "native"] = "cuda"
    """``cuda``: CUDA's 32-lane warps, kept exact as logical warps on 64-lane AMD wavefronts
    (docs/warps.md); ``native``: plain HIP warp operations on the target's own wave size."""

    libraries: Literal["hip", "roc"] = "hip"
    """``hip``: cuBLAS, cuSPARSE, cuRAND and cuFFT map to the hipBLAS, hipSPARSE, hipRAND and
    hipFFT wrappers; ``roc`` (``--roc``): to rocBLAS, rocSPARSE and rocRAND directly where a
    row names the ROC counterpart, as HIPIFY's ``--roc`` does (other names keep hip*)."""

    rename_cu_includes: bool = False
    """Rewrite quoted ``#include "x.cu"`` to ``"x.hip"`` (set when translating a tree)."""

    max_bytes: int = 64 * 1024 * 1024
    """Largest source accepted, in bytes; bigger files are refused with an error."""

    def resolved_hip_version(self) -> tuple[int, int]:
        """The HIP version to target: explicit, else installed, else newest."""
        return self.hip_version or installed_hip_version() or NEWEST_HIP

    def replace(self, **changes: object) -> Settings:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def resolve(
        cls, given: Mapping[str, object] | None = None, environ: Mapping[str, str] | None = None
    ) -> Settings:
        """``given`` (options, target properties), then the ``CASS_*`` variables, then the
        defaults; a variable whose setting is given is not read."""
        given = dict(given or {})
        env = environment(environ)
        changes: dict[str, object] = {}
        if "hip_version" not in given and env.hip_version:
            try:
                changes["hip_version"] = parse_version(env.hip_version)
            except ValueError as exc:
                msg = f"CASS_HIP_VERSION: {exc}"
                raise UsageError(msg) from None
        if "launch_syntax" not in given and env.launch_syntax:
            if env.launch_syntax not in ("chevrons", "ggl"):
                msg = f"CASS_LAUNCH_SYNTAX={env.launch_syntax!r}: expected chevrons or ggl"
                raise UsageError(msg)
            changes["launch_syntax"] = env.launch_syntax
        if "warp" not in given and env.warp:
            if env.warp not in ("cuda", "native"):
                msg = f"CASS_WARP={env.warp!r}: expected cuda or native"
                raise UsageError(msg)
            changes["warp"] = env.warp
        return cls(**{**changes, **given})  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings with ``CASS_*`` environment variables applied."""
        return cls.resolve(None, environ)


@dataclass(frozen=True)
class PipelineOptions:
    """How one file goes through the pipeline. Defaults suit a build."""

    strategy: str = "auto"
    """``auto`` or a comma-separated chain of model, rules, hipify-perl, hipify-clang, exec:CMD."""
    verify: str = "auto"
    """none, syntax, compile or run; ``auto`` (the default in Python, the CLI and setup.py
    builds) is compile where hipcc exists, else none with a ``cass-unverified`` warning."""
    archs: tuple[str, ...] = ()
    """AMD targets; empty means CASS_ARCHS, CMAKE_HIP_ARCHITECTURES, PYTORCH_ROCM_ARCH or the
    toolchain's default (gfx90a and gfx1030)."""
    include_dirs: tuple[Path, ...] = ()
    """``-I`` directories: for local headers, cache keys and verification."""
    defines: tuple[str, ...] = ()
    """``-D`` macros for verification (``NAME`` or ``NAME=VALUE``)."""
    flags: tuple[str, ...] = ()
    """Extra hipcc flags for the verification compile (and the object, when one is asked for)."""
    mirror: tuple[tuple[Path, Path], ...] = ()
    """(source root, output root): local headers under a source root are translated as well."""
    allow_unverified: bool = False
    """Keep a translation that no check passed (with a ``cass-unverified`` warning)."""
    use_cache: bool = True
    """Read and write the translation cache (``CASS_CACHE_DIR``)."""
    want_object: bool = False
    """Keep the object file of the compile check, so a build need not compile twice."""
    settings: Settings = field(default_factory=Settings)
    """How the CUDA text is translated."""

    def replace(self, **changes: Any) -> PipelineOptions:
        return dataclasses.replace(self, **changes)


def options_from_env(environ: Mapping[str, str] | None = None, **given: Any) -> PipelineOptions:
    """``given`` options, then ``CASS_STRATEGY``, ``CASS_VERIFY`` and the ``CASS_*``
    settings, then the defaults."""
    env = environment(environ)
    found: dict[str, Any] = {}
    if "settings" not in given:
        found["settings"] = Settings.resolve(None, environ)
    if env.strategy:
        found["strategy"] = env.strategy
    if env.verify:
        found["verify"] = env.verify
    return PipelineOptions(**{**found, **given})


_DEFINE = re.compile(rb"#define\s+HIP_VERSION_(MAJOR|MINOR)\s+(\d+)")


@functools.cache
def installed_hip_version() -> tuple[int, int] | None:
    """The HIP version of the installed toolchain, from its headers or hipconfig."""
    for header in _VERSION_H:
        try:
            found = dict(_DEFINE.findall(header.read_bytes()))
        except OSError:
            continue
        if b"MAJOR" in found and b"MINOR" in found:
            return (int(found[b"MAJOR"]), int(found[b"MINOR"]))
    import shutil  # here: found in the headers, as usual, it is not needed

    hipconfig = shutil.which("hipconfig")
    if hipconfig:
        from ._proc import run

        try:
            out = run([hipconfig, "--version"], timeout=20).stdout
            return parse_version(out.strip().split("-")[0])
        except ValueError:
            return None
    return None


def _field_docs(cls: type) -> dict[str, str]:
    """Each field's docstring (the string under it in the class body), by field name."""
    import ast
    import inspect

    body = ast.parse(inspect.getsource(cls)).body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for node, after in zip(body.body, body.body[1:], strict=False):
        named = isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
        if named and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            assert isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
            docs[node.target.id] = " ".join(str(after.value.value).split())
    return docs


def _md(text: str) -> str:
    return text.replace("``", "`")


def render_docs() -> str:
    """``docs/settings.md``: every setting, option and variable with its default."""
    out = [
        "# Settings",
        "",
        "<!-- Generated from cass_build/settings.py by render_docs(); tests/test_docs.py",
        "     fails when this page and the code disagree. -->",
        "",
        _md(" ".join((__doc__ or "").split("\n\n")[1].split())),
        "",
    ]
    sections = (
        (Settings, "`Settings`: how CUDA is translated"),
        (PipelineOptions, "`PipelineOptions`: how a file goes through the pipeline"),
    )
    for cls, title in sections:
        docs = _field_docs(cls)
        out += [f"## {title}", "", "| field | default | meaning |", "|---|---|---|"]
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                default = repr(f.default)
            else:
                default = f"{getattr(f.default_factory, '__name__', '')}()"
            out.append(f"| `{f.name}` | `{default}` | {_md(docs.get(f.name, ''))} |")
        out.append("")
    docs = _field_docs(Environment)
    out += ["## Environment variables", "", "| variable | what it sets |", "|---|---|"]
    for f in dataclasses.fields(Environment):
        out.append(f"| `{_variable(f.name)}` | {_md(docs.get(f.name, ''))} |")
    return "\n".join(out) + "\n"
