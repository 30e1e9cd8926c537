"""The tables the build parsed (rules/ship_tables.py, run by CMakeLists.txt): a first run
on an empty cache starts from them, and never from tables that are not the packaged ones."""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from cass_build.rules import tables


def _packaged() -> list[Path]:
    return sorted(tables.data_dir().glob("*.toml"))


def test_the_build_shipped_the_packaged_tables() -> None:
    paths = _packaged()
    data = tables._shipped(tables._tables_key(paths))
    assert data is not None, "pip install -e . builds it beside the core"
    assert tables._from_raw(data) == tables.parse_tables(paths)


def test_an_empty_cache_starts_from_them(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unparsed(paths: list[Path]) -> None:
        raise AssertionError("parsed the TOML")

    monkeypatch.setattr(tables, "parse_tables", unparsed)
    tables.load_tables.cache_clear()
    try:
        families = tables.load_tables()
    finally:
        tables.load_tables.cache_clear()
    assert [f.name for f in families] == [p.stem for p in _packaged()]
    (cached,) = cache_dir.glob("tables-*.marshal")  # and the cache has them from now on
    assert tables._from_cache(cached) == families


def test_shipped_tables_of_other_bytes_are_not_used() -> None:
    # The key is the tables' bytes: an edited table (or another directory) parses again.
    key = tables._tables_key(_packaged())
    assert tables._shipped(key[::-1]) is None


def test_ship_tables_writes_the_key_and_the_cached_form(tmp_path: Path) -> None:
    out = tmp_path / "tables.marshal"
    argv = [sys.executable, "-m", "cass_build.rules.ship_tables", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    key, data = marshal.loads(out.read_bytes())
    assert key == tables._tables_key(_packaged())
    assert tables._from_raw(data) == tables.parse_tables(_packaged())
