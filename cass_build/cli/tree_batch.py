"""A tree with verification off, in one call: ``cass translate DIR --out-dir OUT --verify none``.

With nothing to verify and the rules' translation taken, a file's work is reading it,
translating it and writing the output. The core does all of it for every file at once
on its own threads, the GIL released (``_core.translate_tree``, python/tree.cpp): it
reads and translates each file, adds nvcc's implicit runtime include and the CASS
headers' includes (``rules.warp_include``), writes the output (a temporary file and a
rename, only when the bytes changed), looks for the stale candidate of a failed check
beside it, and renders the file's diagnostics as the CLI prints them and its JSON report
entry as ``json.dumps`` writes it. Python is left one small tuple per file, and the
answer is the per-file pipeline's, byte for byte and message for message:

- the core does only the common case; a file it cannot read as UTF-8 text within the
  size limit, or a blank one, is ``None``, and goes through ``translate_file``, which
  says why;
- so does a file whose local headers (``includes.local_includes``) are not all files of
  the tree, translated here, whose own outputs are where the mirror puts them: then
  writing its headers is writing those outputs, which their own files do. A header
  reached through an ``-I`` directory, outside the tree or under another ``--mirror``
  root is left to the pipeline, which writes it as it always did;
- an output the core cannot write plainly (an error, a symlink, an input) comes back
  with its bytes, for ``write_if_changed`` to write or to raise the error it always
  raised.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path, PurePath

TYPE_CHECKING = False

if TYPE_CHECKING:
    from ..settings import PipelineOptions

__all__ = ["Batch", "RealPaths", "lean"]

Item = tuple[str | None, int, int, str, tuple[list[tuple[int, int, int]], int, int] | None, int,
             bytes | None]  # fmt: skip
"""The core's answer for a file it did: the diagnostics shown (or None), the errors and
warnings among them, the report entry (JSON), the stats (with ``--stats``: the family
counts, lines and bytes), the write's status (0 written, 1 unchanged, 2 left to Python;
plus 4 when a stale ``.unverified`` candidate is beside it) and, with status 2, the bytes."""

WRITTEN, UNCHANGED, NOT_WRITTEN, STALE = 0, 1, 2, 4


def lean(options: PipelineOptions, tree: bool) -> bool:
    """Whether a run with ``options`` can take the batch: a tree, nothing verified, no
    object, the rules' translation first (``translate_file`` would take it uncached), and
    file names the core reads as Python does (UTF-8 with surrogateescape)."""
    from ..pipeline.strategies import parse_chain, rules_taken_first

    return (
        tree
        and options.verify == "none"
        and not options.want_object
        and sys.getfilesystemencoding() == "utf-8"
        and rules_taken_first(*parse_chain(options.strategy))
    )


class RealPaths(AbstractSet[Path]):
    """The real paths of a tree's sources, which no output may replace: kept as the
    strings the core gave, a ``Path`` made only for a lookup (a tree has thousands)."""

    def __init__(self, reals: Sequence[str]) -> None:
        self._reals = frozenset(reals)

    def __contains__(self, item: object) -> bool:
        return isinstance(item, PurePath) and str(item) in self._reals

    def __iter__(self) -> Iterator[Path]:
        return (Path(r) for r in self._reals)

    def __len__(self) -> int:
        return len(self._reals)


def table_ahead(options: PipelineOptions) -> Callable[[], None]:
    """Starts the core's table (``rules.core_table``: read and unpacked, the GIL released)
    on another thread while the caller lists the tree; the function returned waits for it.
    Should it fail, ``Batch`` builds it again, and raises the error where it always did."""
    import contextlib
    import threading

    from .. import _core  # noqa: F401 - imported here, not by two threads at once
    from .._files import cache_dir, store_quietly  # noqa: F401 - likewise
    from ..rules import core_table

    roc = options.settings.libraries == "roc"

    def build() -> None:
        with contextlib.suppress(Exception):  # raised again by Batch's own call
            core_table(roc=roc)  # as Batch calls it: the same functools.cache entry

    thread = threading.Thread(target=build, name="rule-table-unpack", daemon=True)
    thread.start()
    return thread.join


def _attempts(options: PipelineOptions) -> str:
    """The report's attempts before the rules' turn (``auto``'s model, skipped), as JSON:
    ``chain.Attempt.as_dict`` of each (the tests hold the two to the same entries)."""
    from ..pipeline.strategies import parse_chain, skip_reason

    chain, auto = parse_chain(options.strategy)
    passed = []
    for strategy in chain:  # rules first, bar auto's unverifiable model
        if strategy.name == "rules":
            break
        reason = skip_reason(auto, "none", strategy) or ""
        status = "skipped" if auto else "failed"
        passed.append({"strategy": strategy.name, "status": status, "reason": reason,
                       "messages": [], "seconds": 0.0})  # fmt: skip
    return ", ".join(json.dumps(a) for a in passed)


def out_prefix(out_dir: Path) -> str:
    """What ``str(out_dir / rel)`` puts before ``rel``."""
    out = str(out_dir)
    return "" if out == "." else out if out.endswith("/") else out + "/"


class Batch:
    """The files of a tree done at once: ``items`` in input order (an :data:`Item`, or
    None where Python must do the file), and ``inputs``, the sources' real paths."""

    def __init__(
        self,
        sources: list[str],
        targets: list[str],
        options: PipelineOptions,
        threads: int,
        *,
        out_dir: Path,
        plain: Sequence[bool] | None = None,
        werror: bool = False,
        quiet: bool = False,
        stats: bool = False,
    ) -> None:
        """``targets`` are ``out_prefix(out_dir)`` and each source's path under the tree;
        ``plain``, where given, says which sources the listing found to be plain files
        (no symlinks), whose real paths are then their directories' joined with them."""
        from .. import _core
        from ..rules import core_options, core_table

        settings = options.settings
        out_real = str(out_dir.resolve())
        items, reals = _core.translate_tree(
            sources,
            targets,
            core_table(roc=settings.libraries == "roc"),
            core_options(settings),
            max_bytes=settings.max_bytes,
            threads=threads,
            mirror=[(str(s), str(d)) for s, d in options.mirror],
            out_spelled=out_prefix(out_dir),
            out_real=out_real if out_real.endswith("/") else out_real + "/",
            rename_cu=settings.rename_cu_includes,
            search_dirs=bool(options.include_dirs),
            werror=werror,
            quiet=quiet,
            stats=stats,
            attempts=_attempts(options),
            plain=list(plain) if plain is not None else [False] * len(sources),
        )
        self.items: list[Item | None] = items
        if None in reals:  # the core could not tell: as the per-file run finds them
            from ..pipeline import real_path

            pairs = zip(sources, reals, strict=True)
            reals = [str(real_path(Path(s))) if r is None else r for s, r in pairs]
        self.inputs = RealPaths(reals)
