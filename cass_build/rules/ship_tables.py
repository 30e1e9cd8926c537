"""Build step (CMakeLists.txt): the packaged tables parsed, validated and packed for the
core once, for the wheel. ``load_tables`` and ``core_table`` start from these files on an
empty cache instead of parsing the TOML, which costs more than translating a tree of a
thousand files; they hold the tables' key, so tables edited after the build are parsed
as before. OUT (``tables.marshal``: the key and the validated tables) and, beside it, the
core's packed table for each row encoding (``tables.shipped_core_name``: the key in the
name); the folder is installed whole, so an older build's packed tables are removed.

    python -m cass_build.rules.ship_tables OUT CORE   # CORE: the _core module just built
"""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path
from typing import Any

from . import core_rows_of, row_encoding
from .tables import _tables_key, cached_form, data_dir, parse_tables, shipped_core_name

__all__ = ["main"]


def _core(path: Path) -> Any:
    """The core module at ``path`` (built, not yet installed in the package)."""
    spec = importlib.util.spec_from_file_location("cass_build._core", path)
    if spec is None or spec.loader is None:
        msg = f"{path}: not a Python extension module"
        raise SystemExit(msg)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m cass_build.rules.ship_tables OUT CORE", file=sys.stderr)
        return 2
    core = _core(Path(argv[1]))
    paths = sorted(data_dir().glob("*.toml"))
    families = parse_tables(paths)
    key = _tables_key(paths)
    out = Path(argv[0])
    files = {out.name: marshal.dumps({"key": key, "tables": cached_form(families)})}
    for roc in (False, True):
        rows, names = core_rows_of(families, roc)
        packed = core.pack_table([core.Entry(*row) for row in rows], names)
        files[shipped_core_name(key, row_encoding(roc))] = packed
    out.parent.mkdir(parents=True, exist_ok=True)
    for old in out.parent.glob(shipped_core_name("*", "*")):
        if old.name not in files:
            old.unlink()
    for name, data in files.items():
        partial = out.with_name(name + ".tmp")
        partial.write_bytes(data)
        partial.replace(out.with_name(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
