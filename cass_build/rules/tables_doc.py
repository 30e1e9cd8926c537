"""Render the mapping tables as Markdown or CSV: ``cass tables`` and ``docs/tables/``."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from .tables import Family, Row, load_tables

__all__ = ["render_family_markdown", "render_pages", "render_tables"]


def _since(row: Row) -> str:
    return f"{row.since[0]}.{row.since[1]}" if row.since else ""


def _status(row: Row) -> str:
    parts = [row.status]
    if row.rewrite:
        parts.append(f"rewrite: {row.rewrite}")
    return ", ".join(parts)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_family_markdown(family: Family) -> str:
    """One family as a Markdown page, sections in file order."""
    total = len(family.rows)
    unsupported = sum(r.status == "unsupported" for r in family.rows)
    out = [
        f"# {family.title}\n",
        "Generated from `cass_build/data/" + family.name + ".toml` by `cass tables`; "
        "do not edit by hand.\n",
        f"{total} names, {total - unsupported} with a HIP counterpart, "
        f"{unsupported} unsupported.\n",
    ]
    section = None
    for row in family.rows:
        if row.section != section:
            section = row.section
            out.append(f"\n## {section}\n")
            out.append("| CUDA | HIP | kind | status | HIP since | older HIP | note |")
            out.append("|---|---|---|---|---|---|---|")
        out.append(
            f"| `{_cell(row.cuda)}` | {'`' + _cell(row.hip) + '`' if row.hip else ''} | "
            f"{row.kind} | {_status(row)} | {_since(row)} | "
            f"{'`' + _cell(row.legacy) + '`' if row.legacy else ''} | {_cell(_note(row))} |"
        )
    return "\n".join(out) + "\n"


def _note(row: Row) -> str:
    """The row's note, and what its older-HIP form does differently (``legacy_note``)."""
    older = f"Older HIP: {row.legacy_note}." if row.legacy_note else ""
    return " ".join(n for n in (row.note, older) if n)


def render_tables(fmt: str = "markdown", families: Sequence[str] | None = None) -> str:
    chosen = [f for f in load_tables() if not families or f.name in families]
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(
            [
                "family",
                "section",
                "cuda",
                "hip",
                "kind",
                "status",
                "since",
                "legacy",
                "rewrite",
                "note",
            ]
        )
        for f in chosen:
            for r in f.rows:
                writer.writerow(
                    [
                        f.name,
                        r.section,
                        r.cuda,
                        r.hip,
                        r.kind,
                        r.status,
                        _since(r),
                        r.legacy,
                        r.rewrite,
                        r.note,
                    ]
                )
        return buf.getvalue()
    return "\n".join(render_family_markdown(f) for f in chosen)


def render_pages() -> dict[str, str]:
    """``docs/tables/``: an index page and one page per family, by file name."""
    families = load_tables()
    pages = {f"{f.name}.md": render_family_markdown(f) for f in families}
    index = [
        "# CUDA to HIP mapping tables\n",
        "Generated from `cass_build/data/*.toml` by `cass tables --out-dir docs/tables`; "
        "a test fails when they drift. The schema is in [../tables.md](../tables.md).\n",
        "| family | names | supported | unsupported | gated by HIP version |",
        "|---|---|---|---|---|",
    ]
    for f in families:
        unsupported = sum(r.status == "unsupported" for r in f.rows)
        gated = sum(r.since is not None for r in f.rows)
        index.append(
            f"| [{f.title}]({f.name}.md) | {len(f.rows)} | {len(f.rows) - unsupported} | "
            f"{unsupported} | {gated} |"
        )
    pages["README.md"] = "\n".join(index) + "\n"
    return pages
