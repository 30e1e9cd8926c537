"""The CUDA libraries and their HIP stand-ins (``cass_build/data/nvcc/libraries.toml``).

One table, two readers: the toolkit stand-in's generator writes ``lib64/`` ld scripts
from the ``stand_in`` column, and ``cass nvcc``'s link maps ``-lNAME`` through the
``driver`` column. The parsed table is kept as JSON in the cache (as the flag table
is): the driver reads it on every link, and tomllib costs several times what json does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import TableError

__all__ = ["Library", "driver_map", "libraries", "table_path"]


@dataclass(frozen=True)
class Library:
    """One CUDA library and what each link uses instead."""

    cuda: str
    driver: str
    """What ``cass nvcc``'s link passes for it: a HIP library name, or "" (dropped)."""
    stand_in: tuple[str, ...] | None = None
    """The HIP libraries the stand-in's ld script names; None: the stand-in has no file."""
    static: bool = False
    static_only: bool = False
    package: str = ""


def table_path() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "nvcc" / "libraries.toml"


def load_toml_cached(path: Path) -> dict[str, Any]:
    """``path`` parsed, through a JSON copy in the cache named by its size and mtime."""
    import json

    from .._files import cache_dir, store_quietly

    st = path.stat()
    cached = cache_dir() / "nvcc" / f"{path.stem}-{st.st_size}-{st.st_mtime_ns}.json"
    try:
        return dict(json.loads(cached.read_bytes()))
    except (OSError, ValueError):
        pass
    import tomllib

    table = tomllib.loads(path.read_text(encoding="utf-8"))
    store_quietly(cached, json.dumps(table).encode())
    return table


@functools.cache
def libraries() -> tuple[Library, ...]:
    """Every row, in the table's order."""
    path = table_path()
    rows = []
    for raw in load_toml_cached(path).get("library", []):
        try:
            stand_in = raw.get("stand_in")
            rows.append(
                Library(
                    cuda=str(raw["cuda"]),
                    driver=str(raw["driver"]),
                    stand_in=None if stand_in is None else tuple(map(str, stand_in)),
                    static=bool(raw.get("static", False)),
                    static_only=bool(raw.get("static_only", False)),
                    package=str(raw.get("package", "")),
                )
            )
        except KeyError as exc:
            name = raw.get("cuda", "?")
            msg = f"{path}: library {name!r} has no {exc.args[0]!r}"
            raise TableError(msg, hint="every row needs cuda and driver") from None
    return tuple(rows)


@functools.cache
def driver_map() -> dict[str, str]:
    """``-lNAME`` for each CUDA library name (``NAME_static`` too, where CUDA ships it)
    -> the HIP library the driver links instead ("" drops it)."""
    out: dict[str, str] = {}
    for lib in libraries():
        out[lib.cuda] = lib.driver
        if lib.static:
            out[f"{lib.cuda}_static"] = lib.driver
    return out
