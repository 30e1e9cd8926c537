"""``cass dataset asm``: aligned assembly records for every kernel of a corpus, as JSONL.

One line per kernel (matched across vendors by mangled name)::

    {"id": "dir/file.cu::_Z6kernelPf", "source": "dir/file.cu", "kernel": "_Z6kernelPf",
     "names": {target: mangled name there}, "demangled": "kernel(float*)",
     "cuda": "...", "hip": "...",
     "sass": {"sm_90": "..."}, "amdgpu": {"gfx90a": "...", "gfx942": "..."},
     "meta": {"cass_version": "...", "archs": {"nvidia": [...], "amd": [...]},
              "kinds": {"sm_90": "sass", ...}, "tools": {"sm_90": "nvcc 13.0 + ...", ...},
              "resources": {target: {...}}, "occupancy": {target: {...}}, "block": 256,
              "flags": [{"target": ..., "reasons": [...], ...}],
              "missing": {target: "why this kernel has no listing there"}}}

``cuda`` and ``hip`` are whole translation units (a kernel needs its helpers and
types). A file that cannot be translated writes no record and is counted; a target that
fails for a file leaves that target out of its records, with the reason in ``missing``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .._version import __version__
from ..errors import CassError, InputError
from .build import build_file
from .report import analyse
from .targets import AmdArch, NvidiaArch

__all__ = ["DatasetSummary", "corpus_files", "records_for", "summary_markdown", "write_dataset"]


@dataclass
class DatasetSummary:
    files: int = 0
    with_records: int = 0
    """Files that gave at least one record."""
    kernels: int = 0
    records: int = 0
    complete: int = 0
    """Records with a listing on every requested target."""
    failed_files: dict[str, str] = field(default_factory=dict)
    target_failures: dict[str, int] = field(default_factory=dict)


def corpus_files(inputs: Sequence[Path]) -> list[tuple[Path, str]]:
    """``(path, name in the records)`` for each ``.cu`` under the inputs, sorted."""
    found: list[tuple[Path, str]] = []
    for item in inputs:
        if item.is_dir():
            for path in sorted(item.rglob("*.cu")):
                found.append((path, path.relative_to(item).as_posix()))
        elif item.is_file():
            found.append((item, item.name))
        else:
            msg = f"{item}: no such file or directory"
            raise InputError(msg, hint="pass .cu files or directories holding them")
    return found


def records_for(
    path: Path,
    name: str,
    nvidia: Sequence[NvidiaArch],
    amd: Sequence[AmdArch],
    *,
    backend: str = "auto",
    block: int = 256,
    std: str = "c++17",
    jobs: int = 2,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The records of one file, and the targets that failed for it (with why)."""
    build = build_file(path, nvidia, amd, backend=backend, std=std, jobs=jobs)
    report = analyse(build, block=block)
    asked = [a.name for a in nvidia] + [a.name for a in amd]
    by_target = {t.target: t for t in build.targets}
    records: list[dict[str, Any]] = []
    for row in report.kernels:
        sass: dict[str, str] = {}
        amdgpu: dict[str, str] = {}
        missing: dict[str, str] = {}
        for target in asked:
            produced = by_target.get(target)
            if produced is None:
                missing[target] = build.errors.get(target, "not produced")
            elif target not in row.names:
                missing[target] = "no kernel of this name in the code object"
            else:
                listing = produced.kernels[row.names[target]].text
                (sass if produced.vendor == "nvidia" else amdgpu)[target] = listing
        records.append(
            {
                "id": f"{name}::{row.name}",
                "source": name,
                "kernel": row.name,
                "names": row.names,
                "demangled": row.demangled,
                "cuda": build.cuda,
                "hip": build.hip,
                "sass": sass,
                "amdgpu": amdgpu,
                "meta": {
                    "cass_version": __version__,
                    "archs": {"nvidia": [a.name for a in nvidia], "amd": [a.name for a in amd]},
                    "kinds": {t: by_target[t].kind for t in (*sass, *amdgpu)},
                    "tools": {t: by_target[t].tool for t in (*sass, *amdgpu)},
                    "resources": {t: r.as_dict() for t, (r, _) in row.per_target.items()},
                    "occupancy": {t: o.as_dict() for t, (_, o) in row.per_target.items()},
                    "block": row.block,
                    "flags": [f.as_dict() for f in row.flags],
                    "missing": missing,
                },
            }
        )
    return records, build.errors


def _lines(
    files: list[tuple[Path, str]],
    nvidia: Sequence[NvidiaArch],
    amd: Sequence[AmdArch],
    summary: DatasetSummary,
    progress: TextIO | None,
    **options: Any,
) -> Iterator[str]:
    wanted = len(nvidia) + len(amd)
    for index, (path, name) in enumerate(files, 1):
        summary.files += 1
        try:
            records, errors = records_for(path, name, nvidia, amd, **options)
        except CassError as exc:
            summary.failed_files[name] = str(exc)
            if progress is not None:
                print(f"cass dataset: [{index}/{len(files)}] {name}: {exc}", file=progress)
            continue
        for target in errors:
            summary.target_failures[target] = summary.target_failures.get(target, 0) + 1
        summary.kernels += len(records)
        summary.with_records += bool(records)
        for record in records:
            summary.records += 1
            summary.complete += len(record["sass"]) + len(record["amdgpu"]) == wanted
            yield json.dumps(record, ensure_ascii=False) + "\n"
        if progress is not None:
            failed = f", failed: {', '.join(sorted(errors))}" if errors else ""
            print(f"cass dataset: [{index}/{len(files)}] {name}: {len(records)} kernel(s){failed}",
                  file=progress)  # fmt: skip


def write_dataset(
    inputs: Sequence[Path],
    output: Path,
    nvidia: Sequence[NvidiaArch],
    amd: Sequence[AmdArch],
    *,
    progress: TextIO | None = None,
    limit: int | None = None,
    **options: Any,
) -> DatasetSummary:
    """Write the records of every ``.cu`` under ``inputs`` to ``output`` (JSONL), atomically:
    the file appears only once it is complete."""
    files = corpus_files(inputs)[:limit]
    summary = DatasetSummary()
    from .._files import atomic_text

    with atomic_text(output) as out:
        for line in _lines(files, nvidia, amd, summary, progress, **options):
            out.write(line)
    return summary


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def summary_markdown(records: Sequence[dict[str, Any]], summary: DatasetSummary) -> str:
    """A Markdown page about a dataset: per target, what was produced and how it fares."""
    targets: list[str] = []
    for record in records:
        for name in (*record["meta"]["archs"]["nvidia"], *record["meta"]["archs"]["amd"]):
            if name not in targets:
                targets.append(name)
    lines = [
        f"{summary.records} kernel record(s) from {summary.with_records} of {summary.files} "
        f"file(s); {summary.complete} have a listing on every target.",
        "",
        "| target | kernels | median registers | spills or scratch | median occupancy "
        "| flagged | files failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for target in targets:
        figures = [
            r["meta"]["resources"][target] for r in records if target in r["meta"]["resources"]
        ]
        occupancy = [r["meta"]["occupancy"][target]["effective"] for r in records
                     if target in r["meta"]["occupancy"]]  # fmt: skip
        regs = [f.get("registers", f.get("vgprs", 0)) for f in figures]
        spilled = sum(
            1 for f in figures
            if f.get("stack", 0) or f.get("spill_stores", 0) or f.get("scratch", 0)
            or f.get("vgpr_spills", 0)
        )  # fmt: skip
        flagged = sum(1 for r in records for f in r["meta"]["flags"] if f["target"] == target)
        med_regs, med_occ = _median([float(x) for x in regs]), _median(occupancy)
        lines.append(
            f"| {target} | {len(figures)} | {'-' if med_regs is None else f'{med_regs:g}'} "
            f"| {spilled} | {'-' if med_occ is None else f'{med_occ:.0%}'} | {flagged} "
            f"| {summary.target_failures.get(target, 0)} |"
        )
    flags = [f for r in records for f in r["meta"]["flags"]]
    if flags:
        lines += ["", "Flagged kernels (AMD occupancy below half of the NVIDIA reference):", ""]
        lines += ["| kernel | target | AMD | NVIDIA | reasons |", "|---|---|---|---|---|"]
        for r in records:
            for f in r["meta"]["flags"]:
                lines.append(
                    f"| `{r['source']}` {r['demangled'].replace('|', '/')} | {f['target']} "
                    f"| {f['amd_effective']:.0%} | {f['nvidia_effective']:.0%} "
                    f"| {'; '.join(f['reasons']).replace('|', '/')} |"
                )
    if summary.failed_files:
        lines += ["", "Files with no record:", ""]
        lines += [f"- `{name}`: {why}" for name, why in sorted(summary.failed_files.items())]
    return "\n".join(lines) + "\n"
