"""Build step (CMakeLists.txt): the packaged tables parsed and validated once, for the
wheel. ``load_tables`` starts from this file on an empty cache instead of parsing the
TOML, which costs more than translating a tree of a thousand files; the file holds the
tables' key, so tables edited after the build are parsed as before.

    python -m cass_build.rules.ship_tables OUT
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

from .tables import _tables_key, cached_form, data_dir, parse_tables

__all__ = ["main"]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m cass_build.rules.ship_tables OUT", file=sys.stderr)
        return 2
    paths = sorted(data_dir().glob("*.toml"))
    data = marshal.dumps((_tables_key(paths), cached_form(parse_tables(paths))))
    out = Path(argv[0])
    partial = out.with_name(out.name + ".tmp")
    partial.write_bytes(data)
    partial.replace(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
