"""The driver's steps: compile a CUDA input (translate, verify, keep the object), compile a
host input, preprocess (``-E``), list dependencies (``-M``), link, device-link, archive.

A CUDA input goes through the public pipeline (``pipeline.translate_file`` with
``want_object``): the verification compile *is* the build's compile, so nothing is
compiled twice, and the result is cached by content. Translated files never land beside
the user's: the compile happens in the pipeline's scratch directory, and ``-E`` writes
its copies under the CASS cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shlex
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import cache_dir, write_atomic, write_if_changed
from .._proc import run
from ..api import Translation
from ..errors import ToolchainError, ToolFailedError
from ..pipeline.toolchain import HipToolchain, cuda_roots, find_hip, install_hint
from ..settings import PipelineOptions
from .flags import Invocation
from .identity import toolkit_root

__all__ = [
    "Context",
    "compile_cuda",
    "compile_host",
    "dependencies",
    "device_link",
    "link",
    "preprocess",
]

RDC_MARK = b"__CLANG_OFFLOAD_BUNDLE__hip-"
"""In an object compiled with -fgpu-rdc: device bitcode still to be linked."""

NOEXECSTACK = ("-Wl,-z,noexecstack",)
"""On a link of relocatable device code: the object clang (15) assembles there around the
linked device code has no ``.note.GNU-stack``, so GNU ld warned ("missing .note.GNU-stack
section implies executable stack") and marked the program's stack executable."""


@dataclass
class Context:
    """What every step of one invocation shares."""

    inv: Invocation
    archs: tuple[str, ...]
    say: bool
    """Print each command as ``#$ ...`` (``-v``, ``--dryrun``)."""
    dry: bool

    def show(self, argv: Sequence[str | Path]) -> None:
        if self.say:
            print("#$ " + shlex.join(str(a) for a in argv), file=sys.stderr)

    def toolchain(self) -> HipToolchain:
        tc = find_hip()
        if tc is None:
            msg = "cass nvcc: no HIP compiler found (hipcc, or clang of a ROCm tree)"
            raise ToolchainError(msg, hint=install_hint())
        return tc


def _is_cuda_dir(path: Path) -> bool:
    """A CUDA toolkit's own directory (the real one, or the stand-in): its headers must
    never reach a HIP compile; the translation includes HIP's instead."""
    try:
        resolved = path.resolve()
    except OSError:
        return False
    for root in (*cuda_roots(), toolkit_root()):
        try:
            resolved.relative_to(root.resolve())
        except (ValueError, OSError):
            continue
        return True
    return False


def include_dirs(inv: Invocation) -> tuple[Path, ...]:
    return tuple(d for d in inv.include_dirs if not _is_cuda_dir(d))


def system_flags(inv: Invocation) -> list[str]:
    return [f for d in inv.system_dirs if not _is_cuda_dir(d) for f in ("-isystem", str(d))]


def _hip_include() -> str:
    from .. import include_dir

    return f"-I{include_dir()}"


def _mirror_roots(src: Path, inv: Invocation) -> tuple[tuple[Path, Path], ...]:
    """One source root over the file and every local header it reaches, so that
    ``../common/x.h`` resolves among the translated copies as among the originals."""
    from ..pipeline.includes import local_includes

    try:
        data = src.read_bytes()
    except OSError:
        return ()
    headers = local_includes(src, data, include_dirs(inv))
    dirs = [str(src.resolve().parent), *(str(h.parent) for h in headers)]
    common = Path(os.path.commonpath(dirs))
    scratch = cache_dir() / "nvcc" / "mirror"
    if len(common.parts) > 2:
        return ((common, scratch / "m0"),)
    # Spread over the file system (/usr/... and /home/...): one root per directory.
    unique = list(dict.fromkeys(Path(d) for d in dirs))
    return tuple((d, scratch / f"m{i}") for i, d in enumerate(unique))


def _cuda_options(
    src: Path, ctx: Context, *, verify: str | None, want_object: bool
) -> PipelineOptions:
    from ..pipeline import options_from_env

    inv = ctx.inv
    flags = [_hip_include(), *system_flags(inv), *inv.hip_flags]
    if inv.rdc:
        flags.append("-fgpu-rdc")
    if inv.shared and inv.mode == "link" and "-fPIC" not in flags:
        flags.append("-fPIC")  # compiled and linked into a shared library in one step
    given: dict[str, Any] = {
        "archs": ctx.archs,
        "include_dirs": include_dirs(inv),
        "defines": tuple(inv.defines),
        "flags": tuple(flags),
        "mirror": _mirror_roots(src, inv),
        "want_object": want_object,
    }
    if verify is not None:
        given["verify"] = verify
    return options_from_env(**given)


def _print_diagnostics(result: Translation) -> None:
    for d in result.diagnostics:
        if d.severity != "note":
            print(str(d), file=sys.stderr)


def compile_cuda(src: Path, obj: Path, ctx: Context) -> None:
    """Translate ``src`` and its local headers, verify by compiling, keep that object."""
    from ..pipeline import translate_file

    opts = _cuda_options(src, ctx, verify=None, want_object=True)
    if ctx.dry:
        archs = [f"--offload-arch={a}" for a in ctx.archs]
        translated = f"$CASS_SCRATCH/{src.stem}.hip"
        ctx.show(["cass", "translate", src, "-o", translated])
        flags = list(opts.flags)
        ctx.show(["hipcc", "-c", "-x", "hip", *archs, *flags, translated, "-o", obj])
        return
    result = translate_file(src, opts)
    _print_diagnostics(result)
    if ctx.say:
        how = "cached" if result.cached else result.strategy
        print(
            f"#$ cass translate {shlex.quote(str(src))}  # {how}, {result.level}", file=sys.stderr
        )
        for evidence in result.evidence:
            print(f"#$ {evidence.command}", file=sys.stderr)
    if result.object_data is None:
        msg = f"{src}: the HIP compile kept no object"
        raise ToolFailedError(msg, tool="hipcc", command="", what="no object")
    write_atomic(obj, result.object_data, inputs=frozenset(result.depends))
    inv = ctx.inv
    if inv.depfile_with_compile:
        target = inv.dep_target or str(obj)
        depfile = inv.depfile or obj.with_suffix(".d")
        write_atomic(depfile, _make_rule(target, result.depends, inv.phony_deps))


def _language_flag(language: str) -> list[str]:
    return ["-x", "c" if language == "c" else "c++"]


def _host_flags(inv: Invocation) -> list[str]:
    """A host input's flags: includes (with the stand-in's runtime headers), defines."""
    flags = [f"-I{d}" for d in include_dirs(inv)]
    stand_in = toolkit_root() / "include"
    if stand_in.is_dir():
        flags.append(f"-I{stand_in}")  # its cuda_runtime.h maps the runtime API to HIP
    flags += system_flags(inv)
    flags += [f"-D{d}" for d in inv.defines]
    return flags


def compile_host(src: Path, language: str, obj: Path, ctx: Context) -> None:
    """A .cpp or .c input: compiled by the HIP compiler as host code, as nvcc hands it to
    the host compiler."""
    from ..pipeline._driver import compile_command

    inv = ctx.inv
    args = ["-c", *_language_flag(language), *_host_flags(inv), *inv.hip_flags]
    deps: list[str] = []
    if inv.depfile_with_compile:
        deps = ["-MD", "-MF", str(inv.depfile or obj.with_suffix(".d"))]
        if inv.dep_target:
            deps += ["-MT", inv.dep_target]
    args = [*args, *deps, str(src), "-o", str(obj)]
    if ctx.dry:
        ctx.show(["hipcc", *args])
        return
    tc = ctx.toolchain()
    with _targets_named(ctx):
        argv, _ = compile_command(tc, args, source=len(args) - 3, output=len(args) - 1)
        ctx.show(argv)
        done = run(argv, env=tc.env(), capture=False, timeout=None)
    if not done.ok:
        raise _BuildFailed(done.returncode)


@contextlib.contextmanager
def _targets_named(ctx: Context) -> Iterator[None]:
    """hipcc given no ``--offload-arch`` asks ``rocm_agent_enumerator`` for the machine's
    GPUs, and on one without a GPU Debian's prints a Python traceback into the build's
    output (and the probe of hipcc's command, seeing it, falls back to hipcc on every
    call). A host compile or ``-E`` has no use for a target, and ``--offload-arch`` on
    clang's ``-x c++`` is an unused argument, so the targets are named the other way
    hipcc reads them, ``HCC_AMDGPU_TARGET``, which it adds to HIP compiles and links
    only (none of these), unless the user set it. hipcc is run with ``os.environ`` (the
    toolchain's ``env()``), which a call owns: in-process, or the server's child."""
    if "HCC_AMDGPU_TARGET" in os.environ or not ctx.archs:
        yield
        return
    os.environ["HCC_AMDGPU_TARGET"] = ",".join(ctx.archs)
    try:
        yield
    finally:
        os.environ.pop("HCC_AMDGPU_TARGET", None)


class _BuildFailed(Exception):
    """A compile or link failed with its output already shown: exit with its code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


BuildFailed = _BuildFailed


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")


def _make_rule(target: str, depends: Sequence[Path], phony: bool) -> bytes:
    lines = [f"{_esc(target)}:"] + [f" {_esc(str(d))}" for d in depends]
    text = " \\\n".join(lines) + "\n"
    if phony:
        text += "".join(f"\n{_esc(str(d))}:\n" for d in depends[1:])
    return text.encode()


def dependencies(src: Path, ctx: Context) -> bytes:
    """``-M``: the original source and the local headers it reaches, as a make rule."""
    from ..pipeline.includes import local_includes

    inv = ctx.inv
    try:
        data = src.read_bytes()
    except OSError as exc:
        from ..errors import InputError

        msg = f"{src}: cannot read: {exc.strerror or exc}"
        raise InputError(msg) from None
    headers = local_includes(src, data, include_dirs(inv))
    target = inv.dep_target or f"{src.stem}.o"
    return _make_rule(target, [src, *headers], inv.phony_deps)


def _preprocessed(ctx: Context, args: list[str]) -> bytes:
    """The HIP compiler's ``-E`` output for ``args`` (the source last); its errors as nvcc's."""
    from ..pipeline._driver import compile_command

    tc = ctx.toolchain()
    with _targets_named(ctx):
        argv, _ = compile_command(tc, args, source=len(args) - 1)
        ctx.show(argv)
        done = run(argv, env=tc.env(), timeout=None)
    if not done.ok:
        sys.stderr.write(done.stderr)
        raise _BuildFailed(done.returncode)
    return done.stdout_bytes


def preprocess(src: Path, language: str, ctx: Context) -> bytes:
    """``-E``: the translation (rules, unverified: this runs on every ccache lookup)
    preprocessed for the host, after one line naming what else decides the object."""
    from ..pipeline import translate_file
    from ..pipeline.fingerprint import code_digest

    inv = ctx.inv
    tc = ctx.toolchain()
    if language != "cu":
        args = ["-E", *_language_flag(language), *_host_flags(inv), *inv.hip_flags, str(src)]
        return _preprocessed(ctx, args)
    opts = _cuda_options(src, ctx, verify="none", want_object=False)
    result = translate_file(src, opts)
    _print_diagnostics(result)
    mirror = opts.mirror
    # A directory per source and options, the same for every build directory.
    tag = hashlib.sha256(repr((str(src.resolve()), mirror)).encode()).hexdigest()[:16]
    scratch = cache_dir() / "nvcc" / "E" / tag
    main = _place(src.resolve(), mirror, scratch, ".hip")
    _write_marked(main, src.resolve(), result.data)
    for target, data in result.headers.items():
        original = _original(target, mirror)
        _write_marked(_place(original, mirror, scratch, None), original, data)
    flags = [_hip_include()]
    for directory in include_dirs(inv):
        resolved = directory.resolve()
        for i, (root, _) in enumerate(mirror):
            try:
                flags.append(f"-I{scratch / f'm{i}' / resolved.relative_to(root)}")
            except ValueError:
                continue
        flags.append(f"-I{resolved}")
    flags.append(f"-iquote{src.resolve().parent}")
    defines = [f"-D{d}" for d in inv.defines]
    extra = [*system_flags(inv), *inv.hip_flags] + (["-fgpu-rdc"] if inv.rdc else [])
    args = ["-E", "--cuda-host-only", "-x", "hip", *flags, *defines, *extra, str(main)]
    out = _preprocessed(ctx, args)
    settings = opts.settings
    head = (
        f"// cass nvcc -E: code {code_digest()[:16]}, HIP {tc.fingerprint()}, "
        f"archs {','.join(ctx.archs)}, strategy {opts.strategy}, "
        f"verify {opts.verify}, warp {settings.warp}\n"
    )
    # The copies' directory is under this machine's cache: named by a fixed word, the
    # output is the same wherever the cache is (ccache hashes it; nothing compiles it).
    text = out.replace(str(scratch).encode(), b"<cass-scratch>")
    return head.encode() + text


def _place(
    original: Path, mirror: Sequence[tuple[Path, Path]], scratch: Path, suffix: str | None
) -> Path:
    for i, (root, _) in enumerate(mirror):
        try:
            target = scratch / f"m{i}" / original.relative_to(root)
            break
        except ValueError:
            continue
    else:
        target = scratch / "u" / original.name
    return target.with_suffix(suffix) if suffix else target


def _original(target: Path, mirror: Sequence[tuple[Path, Path]]) -> Path:
    for root, out in mirror:
        try:
            return root / target.relative_to(out)
        except ValueError:
            continue
    return target


def _write_marked(target: Path, original: Path, data: bytes) -> None:
    write_if_changed(target, f'#line 1 "{original}"\n'.encode() + data)


def _library(arg: str) -> str | None:
    """``-lNAME`` (or a CUDA library's file) as the HIP library's flag; None: drop it."""
    from .libraries import driver_map

    table = driver_map()
    if arg.startswith("-l"):
        name = arg[2:]
        if name in table:
            return f"-l{table[name]}" if table[name] else None
        return arg
    stem = Path(arg).name
    if stem.startswith("lib"):
        base = stem[3:].split(".", 1)[0]
        if base in table and _is_cuda_dir(Path(arg).parent):
            return f"-l{table[base]}" if table[base] else None
    return arg


def link_arguments(inv: Invocation, objects: Sequence[Path]) -> list[str]:
    """Objects and libraries in order, CUDA libraries mapped, CUDA's -L dropped."""
    out: list[str] = []
    for obj in objects:
        mapped = _library(str(obj))
        if mapped is not None:
            out.append(mapped)
    for flag in inv.link_flags:
        if flag.startswith("-L") and _is_cuda_dir(Path(flag[2:])) and not _is_stand_in(flag[2:]):
            continue
        mapped = _library(flag)
        if mapped is not None:
            out.append(mapped)
    return out


def _is_stand_in(path: str) -> bool:
    try:
        Path(path).resolve().relative_to(toolkit_root().resolve())
    except (ValueError, OSError):
        return False
    return True


def link(objects: Sequence[Path], output: Path, ctx: Context) -> None:
    """Link with the HIP compiler; device code compiled with -fgpu-rdc is linked here."""
    from .device_link import DLINK_MARK, has_mark

    inv = ctx.inv
    rdc = inv.rdc or (not ctx.dry and has_mark(objects, RDC_MARK))
    if rdc and not ctx.dry and has_mark(objects, DLINK_MARK):
        rdc = False  # an object of `-dlink` holds the target's device code, linked
    # The archs always: without them hipcc asks rocm_agent_enumerator for the local GPUs.
    argv = [f"--offload-arch={a}" for a in ctx.archs]
    if rdc:
        argv += ["-fgpu-rdc", "--hip-link", *NOEXECSTACK]
    argv += [f for f in inv.hip_flags if not f.startswith(("-I", "-D", "-U"))]
    if inv.shared:
        argv.append("-shared")
    if inv.verbose:
        argv.append("-v")  # the linker's own line: CMake reads implicit link dirs from it
    stand_in = toolkit_root() / "lib64"
    if stand_in.is_dir():
        # Its libcudart.so and friends are linker scripts for the HIP runtime.
        argv.append(f"-L{stand_in}")
    first = len(argv)
    argv += [*link_arguments(inv, objects), "-o", str(output)]
    if ctx.dry:
        ctx.show(["hipcc", *argv])
        return
    tc = ctx.toolchain()
    if inv.verbose:  # CMake reads implicit link directories from hipcc's own -v lines
        full = [
            str(tc.hipcc),
            *(["--hip-link", *tc.compile_flags()] if tc.driver == "clang" else []),
            *argv,
        ]
    else:
        from ..pipeline._driver import link_command

        # The objects and libraries given by path: one probe serves every link of a shape.
        inputs = [i for i in range(first, len(argv) - 2) if not argv[i].startswith("-")]
        full, _ = link_command(tc, argv, inputs=inputs, output=len(argv) - 1)
    ctx.show(full)
    done = run(full, env=tc.env(), capture=False, timeout=None)
    if not done.ok:
        raise _BuildFailed(done.returncode)


def device_link(inputs: Sequence[Path], output: Path, ctx: Context) -> None:
    """``-dlink``: the relocatable device code among ``inputs`` linked into ``output``
    (nvcc/device_link.py), or an empty object where there is none to link."""
    import tempfile

    from ..pipeline._driver import link_command
    from . import device_link as dl

    with tempfile.TemporaryDirectory(prefix="cass-dlink-in-") as name:
        objects = dl.rdc_objects(inputs, RDC_MARK, Path(name))
        if not objects:
            empty_object(output, ctx)
            return
        tc = ctx.toolchain()
        argv = [f"--offload-arch={a}" for a in ctx.archs] + ["-fgpu-rdc", "--hip-link"]
        argv += [f for f in ctx.inv.hip_flags if not f.startswith(("-I", "-D", "-U"))]
        first = len(argv)
        argv += [*map(str, objects), "-o", str(Path(name) / "a.out")]
        full, _ = link_command(
            tc, argv, inputs=range(first, first + len(objects)), output=len(argv) - 1
        )
        dl.device_link(full, tc.env(), output, ctx.say, ctx.dry)


def empty_object(output: Path, ctx: Context) -> None:
    """``-dlink``'s object where no input has device code to link."""
    from ..pipeline.toolchain import find_program

    cc = find_program("cc") or find_program("gcc")
    argv = [str(cc or "cc"), "-c", "-x", "c", "/dev/null", "-o", str(output)]
    if ctx.dry:
        ctx.show(argv)
        return
    ctx.show(argv)
    done = run(argv, timeout=120)
    if not done.ok:
        sys.stderr.write(done.output)
        raise _BuildFailed(done.returncode)


def archive(objects: Sequence[Path], output: Path, ctx: Context) -> None:
    """``-lib``: a static library of the objects, with ar."""
    from ..pipeline.toolchain import find_program

    ar = find_program("ar")
    argv = [str(ar or "ar"), "rcs", str(output), *map(str, objects)]
    ctx.show(argv)
    if ctx.dry:
        return
    output.unlink(missing_ok=True)
    done = run(argv, timeout=300)
    if not done.ok:
        sys.stderr.write(done.output)
        raise _BuildFailed(done.returncode)


def host_compile_for_id(src: Path, output: Path, link_it: bool, ctx: Context) -> None:
    """CMake's identification source, built as nvcc would build it: by the host compiler
    with nvcc's macros, so that CMake reads ``INFO:compiler[NVIDIA]`` and the version."""
    from .identity import id_defines

    compiler = ctx.inv.host_compiler or "c++"
    argv = [compiler, *([] if link_it else ["-c"]), "-x", "c++", *id_defines(), str(src)]
    argv += ["-o", str(output)]
    ctx.show(argv)
    if ctx.dry:
        return
    done = run(argv, capture=False, timeout=300)
    if not done.ok:
        raise _BuildFailed(done.returncode)


def write_output(data: bytes, output: Path | None) -> None:
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        write_atomic(output, data)
