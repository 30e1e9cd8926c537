"""``cass nvcc``: read nvcc's command line, run its steps, exit as nvcc would.

Exit codes: 0 built; 1 a compile, link or verification failed (its messages shown);
2 a usage error (an unsupported flag, no input) or a missing tool, in one line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..errors import CassError, UsageError, VerificationError
from .flags import Invocation, parse
from .steps import BuildFailed, Context

__all__ = ["main"]

PROG = "cass nvcc"

HELP = """\
usage: cass nvcc [nvcc options] inputs...

An nvcc-compatible driver: each CUDA input (.cu, or -x cu) and the local headers it
includes are translated to HIP, verified, compiled for the AMD targets of CASS_ARCHS
(else gfx90a and gfx1030) and linked. -arch/-code/-gencode select no AMD target.
Every flag and how it maps: docs/zero-edit.md (the table is cass_build/data/nvcc/flags.toml).
"""


def _error(exc: CassError) -> int:
    if isinstance(exc, VerificationError):
        print(str(exc), file=sys.stderr)
        for detail in exc.details:
            print(f"  note: {detail}", file=sys.stderr)
        # Only the missing package is news to a build: the CLI's other advice names
        # flags that nvcc has not.
        from ..pipeline.failures import missing_header

        if missing := missing_header([str(exc), *exc.details]):
            print(f"{PROG}: hint: {missing}", file=sys.stderr)
        return 1
    print(f"{PROG}: error: {exc}", file=sys.stderr)
    if exc.hint:
        print(f"{PROG}: hint: {exc.hint}", file=sys.stderr)
    return 2


def _archs() -> tuple[tuple[str, ...], str]:
    from ..pipeline.toolchain import arch_from_env, target_archs

    found = arch_from_env()
    if found is not None:
        return found
    return target_archs(), "the default"


def _notes(inv: Invocation, archs: tuple[str, ...], origin: str) -> None:
    if inv.targets:
        shown = " ".join(inv.targets)
        # Chosen by CASS_ARCHS already: telling the user to set it would read as if not.
        why = "CASS_ARCHS" if origin == "CASS_ARCHS" else f"{origin}; set CASS_ARCHS to choose"
        print(
            f"{PROG}: note: CUDA targets ({shown}) select no AMD target; building for "
            f"{', '.join(archs)} ({why})",
            file=sys.stderr,
        )
    for note in inv.notes:
        print(f"{PROG}: note: {note}", file=sys.stderr)


def _object_for(src: Path, inv: Invocation, single: bool) -> Path:
    if inv.output is not None and single:
        return inv.output
    name = src.with_suffix(".o").name
    return (inv.output_dir / name) if inv.output_dir else Path(name)


def run_invocation(inv: Invocation) -> int:
    from . import identity, steps

    if inv.help:
        sys.stdout.write(HELP)
        return 0
    if inv.version:
        from ..pipeline.toolchain import find_hip

        tc = find_hip()
        hip = f"HIP {tc.version_text}, {tc.hipcc}" if tc else "no HIP compiler found"
        sys.stdout.write(identity.version_text(hip))
        return 0
    archs, origin = _archs()
    ctx = Context(inv, archs, say=inv.verbose or inv.dryrun, dry=inv.dryrun)
    if ctx.say:
        identity.print_lines(identity.verbose_prelude(archs))
    if not inv.inputs:
        msg = "no input files"
        raise UsageError(msg, hint="name .cu, .cpp or object files to build")
    for path, language in inv.inputs:
        if not path.is_file() and not (language == "link" and path.suffix == ""):
            msg = f"{path}: no such input file"
            raise UsageError(msg)
    _notes(inv, archs, origin)
    sources = [(p, lang) for p, lang in inv.inputs if lang != "link"]
    single = len(sources) == 1
    if inv.mode in ("compile", "compile-rdc", "preprocess", "deps") and not single:
        if inv.output is not None and len(sources) > 1:
            msg = "-o names one output, and there are several inputs for this step"
            raise UsageError(msg, hint="compile one file per command, or drop -o")
        if not sources:
            msg = "no source file to compile"
            raise UsageError(msg)
    if inv.mode == "deps":
        data = b"".join(steps.dependencies(p, ctx) for p, _ in sources)
        steps.write_output(data, inv.output or inv.depfile)
        return 0
    if inv.mode == "preprocess":
        data = b"".join(steps.preprocess(p, lang, ctx) for p, lang in sources)
        if not ctx.dry:
            steps.write_output(data, inv.output)
        return 0
    if inv.mode == "dlink":
        linked = [p for p, lang in inv.inputs if lang == "link"]
        steps.device_link(linked, inv.output or Path("a_dlink.o"), ctx)
        return 0
    if inv.mode in ("compile", "compile-rdc"):
        for src, language in sources:
            _compile(src, language, _object_for(src, inv, single), ctx, link_it=False)
        return 0
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cass-nvcc-") as name:
        objects: list[Path] = []
        for i, (path, language) in enumerate(inv.inputs):
            if language == "link":
                objects.append(path)
                continue
            obj = Path(name) / f"{i}_{path.stem}.o"
            if path.name == identity.CMAKE_ID_SOURCE and inv.mode == "link":
                steps.host_compile_for_id(path, inv.output or Path("a.out"), True, ctx)
                _report_link(inv, ctx, [obj])
                return 0
            _compile(path, language, obj, ctx, link_it=True)
            objects.append(obj)
        if inv.mode == "lib":
            steps.archive(objects, inv.output or Path("a.a"), ctx)
            return 0
        output = inv.output or Path("a.out")
        _report_link(inv, ctx, objects)
        steps.link(objects, output, ctx)
    return 0


def _report_link(inv: Invocation, ctx: Context, objects: list[Path]) -> None:
    """The host link line as nvcc's ``-v`` shows it, naming this driver as its launcher:
    CMake reads its implicit libraries and link launcher from it."""
    if not ctx.say:
        return
    import shlex

    from .identity import driver_program, toolkit_root

    words = [driver_program(), *map(str, objects)]
    line = " ".join(shlex.quote(w) for w in words)
    libs = f'"-L{toolkit_root() / "lib64"}"'
    out = shlex.quote(str(inv.output or "a.out"))
    print(
        f"#$ {line}   {libs}  -lcudadevrt  -lcudart_static  -lrt -lpthread  -ldl -o {out}",
        file=sys.stderr,
    )


def _compile(src: Path, language: str, obj: Path, ctx: Context, *, link_it: bool) -> None:
    from . import identity, steps

    if src.name == identity.CMAKE_ID_SOURCE:
        steps.host_compile_for_id(src, obj, False, ctx)
    elif language == "cu":
        steps.compile_cuda(src, obj, ctx)
    else:
        steps.compile_host(src, language, obj, ctx)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the driver on ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return run_invocation(parse(args))
    except BuildFailed as exc:
        return 1 if exc.code in (0, None) else min(exc.code, 255)
    except CassError as exc:
        return _error(exc)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
