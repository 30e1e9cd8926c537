"""setuptools support: CUDA extensions built for AMD GPUs, or with nvcc on NVIDIA.

The shapes are those of ``torch.utils.cpp_extension``, without torch::

    from setuptools import setup
    from cass_build.setuptools import BuildExtension, CUDAExtension

    setup(
        ext_modules=[
            CUDAExtension(
                "pkg._kernels",
                ["pkg/kernels.cu", "pkg/bindings.cpp"],
                extra_compile_args={"cxx": ["-O2"], "nvcc": ["-O3", "--use_fast_math"]},
            )
        ],
        cmdclass={"build_ext": BuildExtension},
    )

On ROCm each ``.cu`` source is translated out of place (under ``build_temp/cass``,
with the local headers it includes) by :func:`cass_build.pipeline.translate_to`,
whose compile check produces the object file: verifying and compiling are one
hipcc run, cached by content. On CUDA the sources go to nvcc untouched.
``CASS_BACKEND`` (``auto``, ``rocm``, ``cuda``) picks the backend; the AMD
architectures come from ``PYTORCH_ROCM_ARCH`` or ``CASS_ARCHS``, else the GPUs
``rocm_agent_enumerator`` reports, else gfx90a and gfx1030. An extension is
rebuilt when the content of a source, a local header or a flag changed, not
when a timestamp did.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from setuptools import Extension  # type: ignore[import-untyped]
from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]
from setuptools.errors import CompileError, SetupError  # type: ignore[import-untyped]

# After setuptools: this is its distutils, whose log old and new setuptools both print.
from distutils import log  # isort: skip

from . import include_dir
from ._files import write_atomic
from ._version import __version__

__all__ = ["BuildExtension", "CUDAExtension", "CppExtension", "backend", "hipcc_flags"]

CUDA_SUFFIXES = frozenset({".cu"})
_BACKENDS = ("auto", "rocm", "cuda")

# nvcc options with no hipcc meaning: dropped, with their value when they take one.
_NVCC_ONLY = re.compile(
    r"^(-gencode|--generate-code|-arch|--gpu-architecture|-code|--gpu-code|"
    r"--expt-relaxed-constexpr|--expt-extended-lambda|--extended-lambda|-lineinfo|"
    r"--generate-line-info|-Xptxas|--ptxas-options|-maxrregcount|--maxrregcount|"
    r"-res-usage|--resource-usage|--threads|-t|-Wno-deprecated-gpu-targets|"
    r"--diag-suppress|-diag-suppress|--display-error-number|-Xcudafe|--keep)(=.*)?$"
)
_NVCC_WITH_VALUE = frozenset(
    {"-gencode", "--generate-code", "-arch", "--gpu-architecture", "-code", "--gpu-code",
     "-Xptxas", "--ptxas-options", "-maxrregcount", "--threads", "-t", "--diag-suppress",
     "-diag-suppress", "-Xcudafe"}
)  # fmt: skip
_NVCC_RENAMED = {
    "--use_fast_math": ["-ffast-math"],
    "-use_fast_math": ["-ffast-math"],
    "-rdc=true": ["-fgpu-rdc"],
    "--relocatable-device-code=true": ["-fgpu-rdc"],
}


def CppExtension(name: str, sources: Sequence[str], *args: Any, **kwargs: Any) -> Any:
    """A C++ extension: a ``setuptools.Extension`` with ``language="c++"``."""
    kwargs.setdefault("language", "c++")
    return Extension(name, list(sources), *args, **kwargs)


def CUDAExtension(
    name: str,
    sources: Sequence[str],
    *args: Any,
    no_translate: Iterable[str] = (),
    translate: Iterable[str] = (),
    warp: str = "",
    **kwargs: Any,
) -> Any:
    """A C++/CUDA extension; build it with :class:`BuildExtension`.

    ``extra_compile_args`` may be a list (C++ sources) or a dict with ``"cxx"`` and
    ``"nvcc"`` lists; ``"hipcc"``, when present, replaces the nvcc flags on ROCm
    (otherwise nvcc-only flags are dropped or mapped). ``no_translate`` names
    ``.cu`` sources that are portable already: hipcc compiles them as they are.
    ``translate`` names other sources (a ``.cpp`` calling the CUDA runtime) to
    treat as ``.cu`` files. ``warp`` (``cuda`` or ``native``, else ``CASS_WARP``, else
    ``cuda``) is the translation's warp mode (docs/warps.md).
    """
    if warp not in ("", "cuda", "native"):
        msg = f"CUDAExtension({name!r}): warp={warp!r}; expected 'cuda' or 'native'"
        raise SetupError(msg)
    kwargs.setdefault("language", "c++")
    ext = Extension(name, list(sources), *args, **kwargs)
    ext.cass_no_translate = tuple(os.path.normpath(s) for s in no_translate)
    ext.cass_translate = tuple(os.path.normpath(s) for s in translate)
    ext.cass_warp = warp
    return ext


def backend() -> str:
    """``rocm`` or ``cuda``: ``CASS_BACKEND``, else ROCm where hipcc exists, else nvcc's."""
    from .errors import ToolchainError, UsageError
    from .pipeline.toolchain import find_hip, find_nvcc, install_hint
    from .settings import environment

    wanted = environment().backend.strip().lower() or "auto"
    if wanted not in _BACKENDS:
        msg = f"CASS_BACKEND={wanted!r}: use auto, rocm or cuda"
        raise UsageError(msg, hint="unset CASS_BACKEND to pick the toolchain found")
    if wanted in ("auto", "rocm") and find_hip() is not None:
        return "rocm"
    if wanted in ("auto", "cuda") and find_nvcc() is not None:
        return "cuda"
    if wanted == "cuda":
        msg = "CASS_BACKEND=cuda but nvcc was not found"
        raise ToolchainError(msg, hint="set CUDA_HOME to the CUDA toolkit")
    msg = "no HIP toolchain (hipcc) found" + ("" if wanted == "rocm" else " and no nvcc")
    raise ToolchainError(msg, hint=install_hint())


def _detect_archs() -> tuple[str, ...]:
    from .pipeline.toolchain import target_archs

    return target_archs(local_gpus=True)  # the binaries run here: this machine's GPUs next


def _split_args(ext: Any) -> tuple[list[str], list[str], list[str] | None]:
    """(cxx, nvcc, hipcc-or-None) from a list or a torch-style dict."""
    args = ext.extra_compile_args or []
    if isinstance(args, dict):
        unknown = set(args) - {"cxx", "nvcc", "hipcc"}
        if unknown:
            msg = f"{ext.name}: extra_compile_args keys {sorted(unknown)}: use cxx, nvcc, hipcc"
            raise SetupError(msg)
        hipcc = args.get("hipcc")
        return list(args.get("cxx", [])), list(args.get("nvcc", [])), hipcc and list(hipcc)
    return list(args), [], None


def hipcc_flags(nvcc_args: Sequence[str]) -> list[str]:
    """nvcc flags as hipcc understands them: device-only options dropped, a few renamed."""
    out: list[str] = []
    skip_value = False
    for arg in nvcc_args:
        if skip_value:
            skip_value = False
            continue
        if arg in _NVCC_RENAMED:
            out += _NVCC_RENAMED[arg]
        elif arg in ("-Xcompiler", "--compiler-options"):
            continue  # the value that follows is a host flag: clang takes it directly
        elif arg.startswith(("-Xcompiler=", "--compiler-options=")):
            out += arg.split("=", 1)[1].split(",")
        elif _NVCC_ONLY.match(arg):
            skip_value = arg in _NVCC_WITH_VALUE
        else:
            out.append(arg)
    return out


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "missing"


@dataclass
class _Plan:
    """How one extension's GPU sources are built: everything its content key covers."""

    backend: str
    gpu_sources: list[str]
    plain_sources: list[str]
    untranslated: set[str]
    cxx_args: list[str]
    device_args: list[str]
    include_dirs: list[str]
    defines: list[str]
    archs: tuple[str, ...] = ()
    tool: str = ""
    tool_id: str = ""
    libraries: list[str] = field(default_factory=list)
    library_dirs: list[str] = field(default_factory=list)
    warp: str = ""  # CUDAExtension(warp=...); "" = CASS_WARP or the default

    def key(self, ext: Any, inputs: dict[str, str]) -> str:
        parts = {
            "cass": __version__,
            "python": sys.version,
            "plan": {k: v for k, v in vars(self).items() if k != "untranslated"},
            "untranslated": sorted(self.untranslated),
            "inputs": inputs,
            "ext": [
                ext.name,
                sorted(ext.sources),
                ext.extra_link_args,
                ext.libraries,
                ext.library_dirs,
                ext.define_macros,
            ],
        }
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


class BuildExtension(build_ext):  # type: ignore[misc]
    """``build_ext`` that builds CUDA sources: translated for ROCm, or with nvcc.

    A drop-in for ``torch.utils.cpp_extension.BuildExtension`` in ``cmdclass``.
    """

    _options: dict[str, Any] = {}
    force: Any  # build_ext's option, declared for the type checker

    @classmethod
    def with_options(cls, **options: Any) -> type[BuildExtension]:
        """torch's spelling; ``no_python_abi_suffix`` is honoured, ``use_ninja`` ignored."""
        return type(cls.__name__, (cls,), {"_options": {**cls._options, **options}})

    def get_ext_filename(self, ext_name: str) -> str:
        name: str = super().get_ext_filename(ext_name)
        if self._options.get("no_python_abi_suffix"):
            suffix = name.rsplit(".", 1)[-1]
            name = re.sub(r"\.[^./]+\.[^./]+$", f".{suffix}", name)
        return name

    # -- planning ---------------------------------------------------------------

    def _plan(self, ext: Any) -> _Plan:
        cxx, nvcc, hipcc = _split_args(ext)
        extra = set(getattr(ext, "cass_translate", ()))
        gpu = [
            s
            for s in ext.sources
            if Path(s).suffix in CUDA_SUFFIXES or os.path.normpath(s) in extra
        ]
        plain = [s for s in ext.sources if s not in gpu]
        defines = [
            n if v is None else f"{n}={v}" for n, v in [*ext.define_macros, *(self.define or [])]
        ]
        includes = [*ext.include_dirs, *(self.include_dirs or [])]
        plan = _Plan(
            backend="none",
            gpu_sources=gpu,
            plain_sources=plain,
            untranslated=set(getattr(ext, "cass_no_translate", ())),
            cxx_args=cxx,
            device_args=[],
            include_dirs=[str(Path(d).resolve()) for d in includes],
            defines=defines,
            warp=getattr(ext, "cass_warp", ""),
        )
        if not gpu:
            return plan
        from .errors import CassError

        try:
            plan.backend = backend()
            if plan.backend == "rocm":
                self._plan_rocm(plan, nvcc if hipcc is None else hipcc, hipcc is None)
            else:
                self._plan_cuda(plan, nvcc)
        except CassError as exc:
            raise _compile_error(exc) from None
        return plan

    def _plan_rocm(self, plan: _Plan, args: list[str], from_nvcc: bool) -> None:
        from .pipeline.toolchain import find_hip

        tc = find_hip()
        assert tc is not None  # backend() said rocm
        flags = hipcc_flags(args) if from_nvcc else list(args)
        if not any(f.startswith("-std=") for f in flags):
            flags.append("-std=c++17")
        plan.device_args = ["-fPIC", *flags]
        plan.archs = _detect_archs()
        plan.tool = str(tc.hipcc)
        plan.tool_id = tc.fingerprint()
        plan.libraries = ["amdhip64"]
        lib = tc.rocm_path / "lib"
        if tc.layout == "rocm" and lib.is_dir():
            plan.library_dirs = [str(lib)]

    def _plan_cuda(self, plan: _Plan, args: list[str]) -> None:
        from .pipeline.toolchain import find_nvcc

        nvcc = find_nvcc()
        assert nvcc is not None
        plan.device_args = ["-Xcompiler", "-fPIC", *args]
        plan.tool = str(nvcc.nvcc)
        plan.tool_id = nvcc.version
        plan.libraries = ["cudart"]
        home = nvcc.nvcc.resolve().parent.parent
        for lib in (home / "lib64", home / "targets" / "x86_64-linux" / "lib"):
            if lib.is_dir():
                plan.library_dirs = [str(lib)]
                break

    def _inputs(self, ext: Any, plan: _Plan) -> dict[str, str]:
        """Every file the extension is built from, with its content hash."""
        from .pipeline.includes import local_includes

        dirs = [Path(d) for d in plan.include_dirs]
        files: dict[Path, None] = {}
        for src in ext.sources:
            path = Path(src)
            files[path.resolve()] = None
            try:
                data = path.read_bytes()
            except OSError:
                continue
            for header in local_includes(path, data, dirs):
                files[header] = None
        for dep in ext.depends:
            files[Path(dep).resolve()] = None
        return {str(p): _digest(p) for p in files}

    # -- building ---------------------------------------------------------------

    def build_extension(self, ext: Any) -> None:
        plan = self._plan(ext)
        ext_path = Path(self.get_ext_fullpath(ext.name))
        stamp = Path(self.build_temp) / "cass" / f"{ext.name}.stamp"
        key = plan.key(ext, self._inputs(ext, plan))
        if not self.force and ext_path.is_file() and _read(stamp) == key:
            log.info(f"skipping '{ext.name}' extension (content unchanged)")
            return

        objects = self._build_gpu_objects(ext, plan) if plan.gpu_sources else []
        saved = (ext.sources, ext.extra_compile_args, ext.extra_objects, ext.libraries,
                 ext.library_dirs, ext.runtime_library_dirs, self.force)  # fmt: skip
        try:
            ext.sources = plan.plain_sources
            ext.extra_compile_args = plan.cxx_args
            ext.extra_objects = [*objects, *(ext.extra_objects or [])]
            ext.libraries = [*ext.libraries, *plan.libraries]
            ext.library_dirs = [*ext.library_dirs, *plan.library_dirs]
            ext.runtime_library_dirs = [*ext.runtime_library_dirs, *plan.library_dirs]
            self.force = True  # staleness was judged above, by content
            super().build_extension(ext)
        finally:
            (ext.sources, ext.extra_compile_args, ext.extra_objects, ext.libraries,
             ext.library_dirs, ext.runtime_library_dirs, self.force) = saved  # fmt: skip
        write_atomic(stamp, key.encode())

    def _build_gpu_objects(self, ext: Any, plan: _Plan) -> list[str]:
        out_root = (Path(self.build_temp) / "cass").resolve()
        root = Path.cwd().resolve()
        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 0 else None
        jobs = jobs or int(os.environ.get("MAX_JOBS", "0") or 0) or os.cpu_count() or 1
        compile_one = self._rocm_object if plan.backend == "rocm" else self._cuda_object
        sources = [Path(s).resolve() for s in plan.gpu_sources]
        outs = [_out_path(src, root, out_root) for src in sources]
        with ThreadPoolExecutor(max_workers=min(jobs, len(sources))) as pool:
            futures = [
                pool.submit(compile_one, src, out, plan, root, out_root)
                for src, out in zip(sources, outs, strict=True)
            ]
            return [str(f.result()) for f in futures]

    def _rocm_object(self, src: Path, out: Path, plan: _Plan, root: Path, out_root: Path) -> Path:
        from .errors import CassError
        from .pipeline import options_from_env, translate_to
        from .settings import Settings

        obj = out.with_suffix(".o")
        rel = os.path.normpath(os.path.relpath(src, root))
        if rel in plan.untranslated or str(src) in plan.untranslated:
            self._run_tool(plan, [plan.tool, "-c", "-x", "hip", *self._hip_common(plan),
                                  str(src), "-o", str(obj)], src)  # fmt: skip
            return obj
        options = options_from_env(
            archs=plan.archs,
            include_dirs=tuple(Path(d) for d in plan.include_dirs),
            defines=tuple(plan.defines),
            flags=tuple(plan.device_args),
            mirror=((root, out_root),),
            want_object=True,
            settings=Settings.resolve({"warp": plan.warp} if plan.warp else None),
        )
        log.info(f"cass: translating {rel} for {','.join(plan.archs)}")
        try:
            result = translate_to(src, out.with_suffix(".hip"), options, object_path=obj)
        except CassError as exc:
            raise _compile_error(exc) from None
        for diagnostic in result.diagnostics:
            if diagnostic.severity != "note":
                print(str(diagnostic), file=sys.stderr)
        if result.object_data is None:  # verification off: compile the translation here
            self._run_tool(plan, [plan.tool, "-c", "-x", "hip", *self._hip_common(plan),
                                  f"-I{include_dir()}", str(out.with_suffix(".hip")), "-o",
                                  str(obj)], src)  # fmt: skip
        return obj

    def _hip_common(self, plan: _Plan) -> list[str]:
        return [
            *(f"--offload-arch={a}" for a in plan.archs),
            *(f"-I{d}" for d in plan.include_dirs),
            *(f"-D{d}" for d in plan.defines),
            *plan.device_args,
        ]

    def _cuda_object(self, src: Path, out: Path, plan: _Plan, root: Path, out_root: Path) -> Path:
        obj = out.with_suffix(".o")
        lang = [] if src.suffix in CUDA_SUFFIXES else ["-x", "cu"]
        argv = [plan.tool, "-c", *lang, str(src), "-o", str(obj),
                *(f"-I{d}" for d in plan.include_dirs), *(f"-D{d}" for d in plan.defines),
                *plan.device_args]  # fmt: skip
        self._run_tool(plan, argv, src)
        return obj

    def _run_tool(self, plan: _Plan, argv: list[str], src: Path) -> None:
        """Compile unless the object was built from the same bytes with the same command."""
        from .pipeline.includes import local_includes
        from .pipeline.toolchain import find_hip

        obj = Path(argv[argv.index("-o") + 1])
        files = [src, *local_includes(src, src.read_bytes(), [Path(d) for d in plan.include_dirs])]
        parts = [argv, plan.tool_id, [(str(f), _digest(f)) for f in files]]
        key = hashlib.sha256(json.dumps(parts).encode()).hexdigest()
        stamp = obj.with_name(obj.name + ".cass-key")
        if obj.is_file() and _read(stamp) == key:
            return
        obj.parent.mkdir(parents=True, exist_ok=True)
        log.info(shlex.join(argv))
        env = None
        if plan.backend == "rocm" and (tc := find_hip()) is not None:
            env = tc.env()
        from ._proc import run

        done = run(argv, env=env, timeout=None)  # a big extension may take its time
        if done.stdout or done.stderr:
            print(done.stdout + done.stderr, file=sys.stderr, end="")
        if done.returncode != 0:
            name = Path(plan.tool).name
            msg = f"{src}: {name} failed with exit status {done.returncode}"
            raise CompileError(msg)
        write_atomic(stamp, key.encode())


def _out_path(src: Path, root: Path, out_root: Path) -> Path:
    """Where a source's translation goes: its path under the root, or a private spot."""
    try:
        rel = src.relative_to(root)
    except ValueError:
        key = hashlib.sha256(str(src).encode()).hexdigest()[:12]
        rel = Path("_outside") / key / src.name
    return (out_root / rel).with_suffix(".hip")


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _compile_error(exc: Exception) -> Exception:
    hint = getattr(exc, "hint", "")
    # CASS's own errors about the translation first, as the CLI prints them.
    diagnosis = "".join(f"{d}\n" for d in getattr(exc, "diagnosis", ()))
    message = diagnosis + str(exc) + (f"\n  hint: {hint}" if hint else "")
    return CompileError(message)  # type: ignore[no-any-return]
