"""The last stage: a translation step's files (the HIP source, mirrored headers, the
object of the compile check, a depfile), each written only when its bytes change."""

from __future__ import annotations

from pathlib import Path

from .._files import write_if_changed
from .chain import PipelineOptions, Result, options_from_env, translate_file

__all__ = ["translate_to", "write_depfile", "write_if_changed"]


def write_depfile(path: Path, target: Path, depends: tuple[Path, ...]) -> None:
    """A Makefile-style depfile: ``target: dep dep ...`` with spaces escaped."""

    def esc(p: Path) -> str:
        return (
            str(p).replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
        )

    lines = [f"{esc(target)}:"] + [f" {esc(d)}" for d in depends]
    write_if_changed(path, (" \\\n".join(lines) + "\n").encode(), frozenset())


def translate_to(
    path: str | Path,
    output: str | Path,
    options: PipelineOptions | None = None,
    *,
    object_path: str | Path | None = None,
    depfile: str | Path | None = None,
) -> Result:
    """``translate_file``, then write the output, the mirrored headers and, if asked, the object.

    Files whose bytes would not change are left alone, so builds that compare
    timestamps rebuild only what really changed.
    """
    src = Path(path)
    opts = options or options_from_env()
    if object_path is not None and not opts.want_object:
        opts = opts.replace(want_object=True)
    result = translate_file(src, opts)
    inputs = frozenset(result.depends)
    out = Path(output)
    write_if_changed(out, result.data, inputs)
    for target, data in result.headers.items():
        write_if_changed(target, data, inputs)
    if object_path is not None and result.object_data is not None:
        write_if_changed(Path(object_path), result.object_data, inputs)
    if depfile is not None:
        write_depfile(
            Path(depfile), out.resolve() if not out.is_absolute() else out, result.depends
        )
    return result
