"""A tree with verification off, in one batch: ``cass translate DIR --out-dir OUT --verify none``.

With nothing to verify and the rules' translation taken, a file's work is reading it,
translating it and writing the output: the core does that for all files at once on its
own threads, the GIL released (``_core.translate_files`` and ``_core.write_files``),
and Python only builds each file's :class:`Result` and writes what the core left to
it. The answer is the per-file pipeline's, byte for byte and message for message:

- the core does only the common case; a file it cannot read as UTF-8 text within the
  size limit goes through ``translate_file`` as before, which reports why;
- an output it cannot write plainly (an error, a symlink, an input) is left to
  ``write_if_changed``, which writes it or raises the error it always raised;
- the headers a source reaches under the tree are found as ``local_includes`` finds
  them (the core lists the ``#include`` lines, with the same pattern) and written
  with it, translated once however many sources include them;
- the core's text is the pipeline's: nvcc's implicit runtime include and the CASS
  headers' includes (``rules.warp_include``) are added on the core's threads too, so a
  header's text is the same whether it is written as a source or for its includer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from ..errors import CassError
from ..pipeline import Attempt, PipelineOptions, Result, translate_file, write_if_changed
from ..pipeline.chain import _mirror_target, skip_reason
from ..pipeline.includes import _directives
from ..pipeline.strategies import RulesStrategy, parse_chain
from ..rules import core_options, core_table, family_counts
from ..rules.diagnostics import SEVERITIES, Diagnostic, rule
from ..rules.stats import Stats

__all__ = ["Batch", "lean"]

_Include = tuple[bytes, bool, str | None]
"""An #include line's name, whether quoted, and where the core found it: its real path,
'' (not beside the including file) or None (not looked for)."""


def lean(options: PipelineOptions, tree: bool) -> bool:
    """Whether a run with ``options`` can take the batch: a tree, nothing verified, no
    object, the rules' translation first (``translate_file`` would take it uncached)."""
    from ..pipeline import rules_first

    return tree and options.verify == "none" and not options.want_object and rules_first(options)


class Batch:
    """The files of a tree translated at once; ``results`` in input order, and a
    ``write`` that does what ``write_if_changed`` would, with the core's writes done."""

    def __init__(self, sources: Sequence[Path], options: PipelineOptions, threads: int) -> None:
        from .. import _core

        self.options = options
        self.threads = threads
        settings = options.settings
        chain, auto = parse_chain(options.strategy)
        passed: list[Attempt] = []
        for strategy in chain:  # rules first, bar auto's unverifiable model
            if strategy.name == "rules":
                break
            reason = skip_reason(auto, "none", strategy) or ""
            passed.append(Attempt(strategy.name, "skipped" if auto else "failed", reason))
        self._passed = tuple(passed)
        names = [str(p) for p in sources]
        found = _core.translate_files(
            names,
            [p.suffix == ".cu" for p in sources],
            core_table(),
            core_options(settings),
            settings.max_bytes,
            threads,
            Diagnostic,
            SEVERITIES,
        )
        # The core's translation of each file, by its real path, for its includers.
        self._texts: dict[Path, tuple[bytes, list[_Include], str]] = {}
        self._resolved: dict[tuple[Path, str, bool], Path | None] = {}
        self._paths: dict[str, Path] = {}
        self._directives: dict[Path, list[_Include] | None] = {}
        self._targets: dict[Path, Path | None] = {}
        self._header_data: dict[Path, bytes] = {}
        from ..pipeline import real_path

        reals = []
        for source, item in zip(sources, found, strict=True):
            real = real_path(source) if item is None or item[8] is None else Path(item[8])
            reals.append(real)
            if item is not None:
                self._texts.setdefault(real, (item[0], item[6], source.suffix))
        self.inputs = frozenset(reals)
        """The real paths of the sources: outputs never replace them."""
        self.results: list[Result | CassError] = []
        for source, real, item in zip(sources, reals, found, strict=True):
            self.results.append(self._result(source, real, item))
        self._status: dict[Path, int] = {}

    # -- translation ---------------------------------------------------------------

    def _result(
        self, source: Path, real: Path, item: tuple[object, ...] | None
    ) -> Result | CassError:
        if item is None:  # unreadable, too big, binary or not UTF-8: as before
            try:
                return translate_file(source, self.options)
            except CassError as exc:
                return exc
        text, diagnostics, counts, lines, size, blank, includes, seconds, _ = item
        assert isinstance(text, bytes) and isinstance(diagnostics, list)
        assert isinstance(size, int) and isinstance(seconds, float)
        assert isinstance(lines, int) and isinstance(includes, list)
        extra = (rule("empty-input").at(str(source), 1, 1),) if blank else ()
        deps = self._local_includes(real, includes)
        headers = {}
        for header in deps:
            target = self._target(header)
            if target is not None:
                headers[target] = self._header_text(header)
        attempt = Attempt("rules", "unverified", "", (), seconds)
        return Result(
            path=str(source),
            data=text,  # with its runtime and CASS header includes (python/batch.cpp)
            strategy="rules",
            level="none",
            verified=False,
            attempts=(*self._passed, attempt),
            evidence=(),
            diagnostics=extra + tuple(diagnostics),
            stats=Stats(family_counts(counts), lines, size),  # type: ignore[arg-type]
            depends=(real, *deps),
            headers=headers,
            seconds=seconds,
        )

    def _local_includes(self, origin: Path, includes: list[_Include]) -> list[Path]:
        """``includes.local_includes`` of a source, minus the headers that cannot be read
        (``chain._plan`` drops those), with what was resolved and read kept for the next."""
        dirs = [d.resolve() for d in self.options.include_dirs]
        seen: dict[Path, None] = {}
        pending: list[tuple[Path, list[_Include]]] = [(origin, includes)]
        while pending:
            path, directives = pending.pop()
            for raw, quoted, beside in directives:
                if not quoted and not dirs:
                    continue
                try:
                    name = raw.decode("utf-8")
                except UnicodeDecodeError:
                    continue
                found: Path | None
                if beside:  # the core found it beside the file
                    found = self._paths.get(beside)
                    if found is None:
                        found = self._paths[beside] = Path(beside)
                elif beside is None or dirs:
                    found = self._resolve(name, path.parent, quoted, dirs)
                else:
                    found = None  # not beside the file, and nowhere else to look
                if found is None or found in seen or found == origin:
                    continue
                seen[found] = None
                listed = self._header_directives(found)
                if listed is not None:
                    pending.append((found, listed))
        return [h for h in seen if self._header_directives(h) is not None]

    def _resolve(self, name: str, here: Path, quoted: bool, dirs: list[Path]) -> Path | None:
        key = (here, name, quoted)
        if key not in self._resolved:
            from ..pipeline.includes import _resolve

            self._resolved[key] = _resolve(name, here, quoted, dirs)
        return self._resolved[key]

    def _header_directives(self, header: Path) -> list[_Include] | None:
        """A header's include lines, or None when it cannot be read."""
        if header in self._directives:
            return self._directives[header]
        known = self._texts.get(header)
        listed: list[_Include] | None
        if known is not None:
            listed = known[1]
        else:
            try:
                data = header.read_bytes()
            except OSError:
                listed = None
            else:
                self._header_data[header] = data
                listed = [(q, True, None) if q else (a, False, None) for q, a in _directives(data)]
        self._directives[header] = listed
        return listed

    def _target(self, header: Path) -> Path | None:
        if header not in self._targets:
            mirror = self.options.mirror
            if _mirror_target(header, mirror) is None:
                self._targets[header] = None
            else:
                rename = self.options.settings.rename_cu_includes
                self._targets[header] = _mirror_target(header, mirror, rename)
        return self._targets[header]

    def _header_text(self, header: Path) -> bytes:
        """The header translated as the chain translates a mirrored header."""
        known = self._texts.get(header)
        if known is not None and known[2] == header.suffix:  # the same implicit runtime
            return known[0]
        if header not in self._header_data:
            self._header_data[header] = header.read_bytes()
        data = self._header_data[header]
        translated = RulesStrategy().translate(header, data, self.options.settings).data
        self._texts[header] = (translated, self._directives.get(header) or [], header.suffix)
        return translated

    # -- writing -----------------------------------------------------------------

    def _outputs(
        self, targets: Sequence[Path | None], names: Sequence[str | None]
    ) -> Iterator[tuple[Path, str | None, bytes]]:
        for result, target, name in zip(self.results, targets, names, strict=True):
            if isinstance(result, Result) and target is not None:
                yield target, name, result.data
                for header, data in result.headers.items():
                    yield header, None, data

    def plan(
        self,
        targets: Sequence[Path | None],
        inputs: frozenset[Path],
        names: Sequence[str | None] | None = None,
    ) -> None:
        """Write every output the core can write plainly, before the results are shown;
        ``names``, where given, are ``str(target)`` of each, already built."""
        from .. import _core

        unique: dict[Path, tuple[str | None, bytes | None]] = {}
        for target, name, data in self._outputs(targets, names or [None] * len(targets)):
            known = unique.get(target, (name, data))[1]
            # Two different texts for one path: that path is left to write_if_changed,
            # in order, as before.
            unique[target] = (name, data if known is not None and known == data else None)
        batch = [(t, n, d) for t, (n, d) in unique.items() if d is not None]
        done = _core.write_files(
            [str(t) if n is None else n for t, n, _ in batch], [d for _, _, d in batch],
            [str(p) for p in inputs], self.threads,
        )  # fmt: skip
        self._status = {t: s for (t, _, _), s in zip(batch, done, strict=True) if s != 2}

    def write(self, target: Path, data: bytes, inputs: frozenset[Path]) -> None:
        """``write_if_changed(target, data, inputs)``, skipped where the core wrote it."""
        if target not in self._status:
            write_if_changed(target, data, inputs)
