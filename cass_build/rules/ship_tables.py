"""Build step (CMakeLists.txt): the packaged tables parsed, validated and packed for the
core once, for the wheel. ``load_tables`` and ``core_table`` start from this file on an
empty cache instead of parsing the TOML, which costs more than translating a tree of a
thousand files; the file holds the tables' key, so tables edited after the build are
parsed as before.

    python -m cass_build.rules.ship_tables OUT CORE   # CORE: the _core module just built
"""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path
from typing import Any

from . import core_rows_of, row_encoding
from .tables import _tables_key, cached_form, data_dir, parse_tables

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
    packed = {}
    for roc in (False, True):
        rows, names = core_rows_of(families, roc)
        packed[row_encoding(roc)] = core.pack_table([core.Entry(*row) for row in rows], names)
    data = {"key": _tables_key(paths), "tables": cached_form(families), "core": packed}
    out = Path(argv[0])
    partial = out.with_name(out.name + ".tmp")
    partial.write_bytes(marshal.dumps(data))
    partial.replace(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
