"""Docs that must not drift from the code: diagnostic ids and the mapping tables."""

from __future__ import annotations

import re
from pathlib import Path

from cass_build.rules.diagnostics import table
from cass_build.rules.tables_doc import render_pages

ROOT = Path(__file__).resolve().parents[1]


def test_every_diagnostic_is_documented_in_table_order_with_its_severity() -> None:
    """docs/diagnostics.md has a heading per id of the diagnostic table, in its order,
    each opening with the id's usual severity (``*warning.*``, ``*note, or ...*``)."""
    text = (ROOT / "docs" / "diagnostics.md").read_text()
    documented = re.findall(r"^### (cass-[a-z0-9-]+)\n\*([a-z]+)", text, re.M)
    kinds = table().values()
    assert len(kinds) >= 30
    assert [d[0] for d in documented] == [k.id for k in kinds]
    assert [d[1] for d in documented] == [k.severity for k in kinds]
    assert len(re.findall(r"^### ", text, re.M)) == len(documented)


def test_table_docs_match_the_tables() -> None:
    pages = render_pages()
    out_dir = ROOT / "docs" / "tables"
    stale = [
        name
        for name, text in pages.items()
        if not (out_dir / name).exists() or (out_dir / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"regenerate with: cass tables --out-dir docs/tables ({stale[:5]})"
    extra = {p.name for p in out_dir.glob("*.md")} - set(pages)
    assert not extra, f"pages for removed families: {extra}"


def test_settings_page_is_generated_from_the_settings() -> None:
    from cass_build.settings import render_docs

    assert (ROOT / "docs" / "settings.md").read_text() == render_docs()


def test_only_the_settings_model_reads_cass_variables() -> None:
    """Every ``CASS_*`` variable is a field of ``settings.Environment``, read there only."""
    from cass_build.settings import Environment

    reads = re.compile(r"""environ(?:\.get\(|\[)\s*["']CASS_""")
    readers = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "cass_build").rglob("*.py")
        if p.name != "settings.py" and reads.search(p.read_text())
    ]
    assert readers == []
    page = (ROOT / "docs" / "settings.md").read_text()
    for name in Environment.__dataclass_fields__:
        assert f"`CASS_{name.upper()}`" in page


def test_a_misspelt_variable_is_named_with_the_one_meant() -> None:
    from cass_build.settings import unknown_variables

    env = {"CASS_ARCH": "gfx90a", "CASS_ARCHS": "gfx90a", "CASS_DIR": "/x", "HOME": "/root"}
    assert unknown_variables(env) == ["CASS_ARCH: not a CASS setting; did you mean CASS_ARCHS?"]
