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


def test_ship_tables_writes_the_key_the_cached_form_and_the_packed_tables(
    tmp_path: Path,
) -> None:
    from cass_build import _core
    from cass_build.rules import core_rows_of, row_encoding

    out = tmp_path / "tables.marshal"
    stale = tmp_path / tables.shipped_core_name("0" * 24, "older")  # an older build's
    stale.write_bytes(b"")
    argv = [sys.executable, "-m", "cass_build.rules.ship_tables", str(out), _core.__file__]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    shipped = marshal.loads(out.read_bytes())
    families = tables.parse_tables(_packaged())
    key = tables._tables_key(_packaged())
    assert shipped == {"key": key, "tables": shipped["tables"]}
    assert tables._from_raw(shipped["tables"]) == families
    source = b"cublasHandle_t h; cudaStream_t s; __shfl_down_sync(0xffffffff, v, 1);\n"
    options = _core.Options()
    names_written = {out.name}
    for roc in (False, True):
        rows, names = core_rows_of(families, roc)
        want = _core.Table([_core.Entry(*row) for row in rows], names)
        packed = tmp_path / tables.shipped_core_name(key, row_encoding(roc))
        names_written.add(packed.name)
        got = _core.Table.unpack(packed.read_bytes())
        assert len(got) == len(want) and got.family_names == want.family_names
        assert _core.translate(source, got, options) == _core.translate(source, want, options)
    assert {p.name for p in tmp_path.iterdir()} == names_written  # nothing else, nothing stale


def test_the_build_shipped_the_packed_core_tables_beside_them() -> None:
    from cass_build.rules import row_encoding

    for roc in (False, True):
        packed = tables.shipped_core(row_encoding(roc))
        assert packed is not None, "pip install -e . builds them beside the core"
        assert len(_core_table_of(packed)) > 5000


def _core_table_of(packed: bytes) -> object:
    from cass_build import _core

    return _core.Table.unpack(packed)


def test_shipped_core_tables_of_other_bytes_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    # Their names hold the key: tables edited after the build find none.
    from cass_build.rules import row_encoding

    monkeypatch.setattr(tables, "_packaged_key", lambda: "0" * 24)
    assert tables.shipped_core(row_encoding(False)) is None


def test_an_empty_cache_takes_the_core_table_from_them(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import cass_build.rules as rules

    def unbuilt(*args: object) -> None:
        raise AssertionError("built the table from rows")

    monkeypatch.setattr(rules, "_core_input", unbuilt)
    rules.core_table.cache_clear()
    try:
        table = rules.core_table()
    finally:
        rules.core_table.cache_clear()
    assert len(table) > 5000
    (packed,) = cache_dir.glob("core-table-*.bin")  # and the cache has it from now on
    assert packed.read_bytes() == tables.shipped_core(rules.row_encoding(False))
