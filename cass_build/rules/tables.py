"""Load and check the CUDA→HIP mapping tables in ``cass_build/data/*.toml``.

The schema is documented in ``docs/tables.md``. Loading validates every row so a
bad table fails at load time with the file and row named, never mid-translation.
"""

from __future__ import annotations

import functools
import marshal
import operator
from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import TableError
from ..settings import parse_version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import _Hash
    from typing import Any

__all__ = [
    "KINDS",
    "MATCHES",
    "REWRITES",
    "STATUSES",
    "Family",
    "Row",
    "data_dir",
    "load_tables",
    "parse_version",
    "tables_digest",
]

KINDS = ("function", "type", "enum", "macro", "builtin", "include", "namespace", "member")
STATUSES = ("supported", "unsupported", "deprecated")
REWRITES = (
    "sync-mask",
    "replace-call",
    "prefetch-location",
    "advise-location",
    "symbol-arg",
    "func-arg",
    "arch-macro",
    "version-macro",
    "by-arity",
    "surf-read",
    "hip-macro",
    "void-ptr-arg",
    "legacy-api",
    "device-only",
    "note-if-args",
)
_ROW_KEYS = frozenset(
    {
        "cuda",
        "hip",
        "kind",
        "status",
        "since",
        "legacy",
        "legacy_note",
        "rewrite",
        "arg",
        "note",
        "match",
        "alt",
        "roc",
        "warp",
    }
)
MATCHES = ("any", "template", "method")
_SECTION_KEYS = frozenset({"name", "kind", "rows"})


@dataclass(frozen=True)
class Row:
    """One CUDA name and what CASS emits for it."""

    cuda: str
    hip: str
    kind: str
    status: str
    family: str
    section: str
    since: tuple[int, int] | None = None
    legacy: str = ""
    rewrite: str = ""
    arg: int = -1
    note: str = ""
    match: str = "any"
    alt: str = ""
    roc: str = ""
    """The ROC library's own name (rocBLAS, rocSPARSE, rocRAND), emitted with ``--roc``."""
    warp: str = ""
    """``--warp cuda``: the name emitted instead (``<cass/warp.h>``, docs/warps.md)."""
    legacy_note: str = ""
    """What ``legacy`` does differently at run time: a ``cass-hip-version`` warning where
    it is emitted (older HIP than ``since``)."""


@dataclass(frozen=True)
class Family:
    """One API family: its file's metadata and rows in file order."""

    name: str
    title: str
    hip_headers: tuple[str, ...]
    rows: tuple[Row, ...]
    prefixes: tuple[str, ...] = ()
    roc_headers: tuple[str, ...] = ()
    """Headers that declare the rows' ``roc`` names (checked like ``hip_headers``)."""


def data_dir() -> Path:
    """The directory holding the packaged tables."""
    return Path(__file__).parent.with_name("data")  # importlib.resources would cost an import


def _row(raw: dict[str, Any], *, family: str, section: str, kind: str, where: str) -> Row:
    unknown = set(raw) - _ROW_KEYS
    if unknown:
        msg = f"{where}: unknown row key(s) {sorted(unknown)}"
        raise TableError(msg)
    cuda = raw.get("cuda")
    if not isinstance(cuda, str) or not cuda:
        msg = f"{where}: row without a 'cuda' name"
        raise TableError(msg)
    kind = raw.get("kind", kind)
    status = raw.get("status", "supported")
    hip = raw.get("hip", "")
    if kind not in KINDS:
        msg = f"{where}: {cuda}: unknown kind {kind!r} (one of {', '.join(KINDS)})"
        raise TableError(msg)
    if status not in STATUSES:
        msg = f"{where}: {cuda}: unknown status {status!r} (one of {', '.join(STATUSES)})"
        raise TableError(msg)
    if status != "unsupported" and not hip and not ("hip" in raw and kind == "macro"):
        msg = f"{where}: {cuda}: a {status} row needs a 'hip' name (only macros may be empty)"
        raise TableError(msg)
    rewrite = raw.get("rewrite", "")
    if rewrite and rewrite not in REWRITES:
        msg = f"{where}: {cuda}: unknown rewrite {rewrite!r} (one of {', '.join(REWRITES)})"
        raise TableError(msg)
    match = raw.get("match", "any")
    if match not in MATCHES:
        msg = f"{where}: {cuda}: unknown match {match!r} (one of {', '.join(MATCHES)})"
        raise TableError(msg)
    legacy_note = raw.get("legacy_note", "")
    if legacy_note and not (raw.get("legacy") and raw.get("since")):
        msg = f"{where}: {cuda}: 'legacy_note' needs 'legacy' and 'since'"
        raise TableError(msg)
    since_text = raw.get("since")
    try:
        since = parse_version(since_text) if since_text else None
    except ValueError as exc:
        msg = f"{where}: {cuda}: {exc}"
        raise TableError(msg) from None
    return Row(
        cuda=cuda,
        hip=hip,
        kind=kind,
        status=status,
        family=family,
        section=section,
        since=since,
        legacy=raw.get("legacy", ""),
        rewrite=rewrite,
        arg=int(raw.get("arg", -1)),
        note=raw.get("note", ""),
        match=match,
        alt=raw.get("alt", ""),
        roc=raw.get("roc", ""),
        warp=raw.get("warp", ""),
        legacy_note=legacy_note,
    )


def load_family(path: Path) -> Family:
    """Read and validate one table file."""
    import tomllib  # only when the parsed-table cache misses: build steps skip it

    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        msg = f"{path}: cannot read mapping table: {exc}"
        raise TableError(msg) from None
    meta = doc.get("family", {})
    name = meta.get("name", "")
    if name != path.stem:
        msg = f"{path}: [family] name {name!r} must equal the file name {path.stem!r}"
        raise TableError(msg)
    rows: list[Row] = []
    for index, section in enumerate(doc.get("section", [])):
        unknown = set(section) - _SECTION_KEYS
        if unknown:
            msg = f"{path}: section {index}: unknown key(s) {sorted(unknown)}"
            raise TableError(msg)
        sname = section.get("name", f"section {index}")
        for rindex, raw in enumerate(section.get("rows", [])):
            where = f"{path.name}: [{sname}] row {rindex + 1}"
            rows.append(
                _row(raw, family=name, section=sname, kind=section.get("kind", ""), where=where)
            )
    return Family(
        name=name,
        title=meta.get("title", name),
        hip_headers=tuple(meta.get("hip_headers", ())),
        rows=tuple(rows),
        prefixes=tuple(meta.get("prefixes", ())),
        roc_headers=tuple(meta.get("roc_headers", ())),
    )


def sha256(data: bytes = b"") -> _Hash:
    """``sha256(data)``, the same digest, from the interpreter's built-in module
    where it has one: every run keys its caches with it, and hashlib's import loads
    OpenSSL's library (3-4 ms of a tree run's start)."""
    found: _Hash = _sha256_type()(data)
    return found


@functools.cache
def _sha256_type() -> Any:
    """The built-in sha256 (``_sha256`` to 3.11, ``_sha2`` from 3.12), else hashlib's:
    looked up once, since a failed import searches every finder again."""
    try:
        from _sha256 import sha256 as builtin  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256 as builtin  # type: ignore[import-not-found]
        except ImportError:
            from hashlib import sha256 as builtin
    return builtin


_CACHE_FORMAT = 3  # 2: rows gained `roc`; 3: and `warp`


def _tables_key(paths: list[Path]) -> str:
    """A hash of the tables' bytes and of the cached form's layout: BLAKE2b, which hashes
    the 730 KB of TOML in a third of SHA-256's time (an empty cache's first run computes
    it to know the shipped tables for the packaged ones)."""
    digest = _blake2b_type()(str(_CACHE_FORMAT).encode(), digest_size=12)
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return str(digest.hexdigest())


@functools.cache
def _blake2b_type() -> Any:
    """The built-in blake2b (``_blake2``), else hashlib's, whose import loads OpenSSL."""
    try:
        from _blake2 import blake2b
    except ImportError:
        from hashlib import blake2b
    return blake2b


@functools.cache
def _packaged_key() -> str:
    """``_tables_key`` of the packaged tables, computed once a process."""
    return _tables_key(sorted(data_dir().glob("*.toml")))


def _cache_path(key: str) -> Path:
    """Where the validated tables are cached, keyed by the tables' bytes."""
    from .._files import cache_dir

    return cache_dir() / f"tables-{key}.marshal"


SHIPPED = "tables.marshal"
"""The packaged tables, parsed and validated when the package is built (ship_tables.py),
installed in the core module's ``data`` directory: a first run on an empty cache starts
from them instead of parsing the TOML. A dict: the tables' ``key`` (``_tables_key``) and
their cached form (``tables``)."""


def shipped_core_name(key: str, encoding: str) -> str:
    """The name of the core's packed table of the packaged tables (``key``, as
    ``_tables_key`` hashes them) for a row encoding (``rules.row_encoding``), as the build
    writes it beside ``SHIPPED``: the file is ``pack_table``'s bytes alone, and its name says
    whose, so an empty cache's first run reads the one it needs and loads nothing else."""
    return f"core-table-{key}-{encoding}.bin"


def _shipped_dir() -> Path | None:
    """The ``data`` directory beside the core module, where the build installs its files."""
    import sys

    core = sys.modules.get("cass_build._core")  # imported already by whoever needs these
    origin = getattr(core, "__file__", None)
    if origin is None:
        import importlib.util

        spec = importlib.util.find_spec("cass_build._core")
        origin = None if spec is None else spec.origin
    return None if origin is None else Path(origin).parent / "data"


@functools.cache
def _shipped_file() -> dict[str, Any] | None:
    """The build's file, when it holds the packaged tables as they are now."""
    import mmap

    folder = _shipped_dir()
    if folder is None:
        return None
    try:
        # Loaded from the file's pages where they are: read into a bytes object first,
        # its megabytes were copied once more.
        with (
            (folder / SHIPPED).open("rb") as file,
            mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as m,
        ):
            found = marshal.loads(m)
    except (OSError, EOFError, ValueError, TypeError):  # ValueError: also an empty file
        return None
    if not isinstance(found, dict):
        return None
    return found if found.get("key") == _packaged_key() else None


def _shipped(key: str) -> bytes | None:
    """The cached form of the packaged tables shipped with the build, if it is theirs."""
    found = _shipped_file()
    if found is None or found.get("key") != key:
        return None
    data = found.get("tables")
    return data if isinstance(data, bytes) else None


def shipped_core(encoding: str) -> bytes | None:
    """The core's packed table of the packaged tables for a row encoding, as the build
    packed it (``shipped_core_name``), if it is theirs (``Table.unpack`` checks the bytes)."""
    folder = _shipped_dir()
    if folder is None:
        return None
    try:
        return (folder / shipped_core_name(_packaged_key(), encoding)).read_bytes()
    except OSError:
        return None


def _from_cache(path: Path) -> tuple[Family, ...] | None:
    try:
        return _from_raw(path.read_bytes())
    except OSError:
        return None


def _from_raw(data: bytes) -> tuple[Family, ...] | None:
    try:
        raw = marshal.loads(data)
        return tuple(
            Family(
                name,
                title,
                tuple(headers),
                tuple(Row(*row) for row in rows),
                tuple(prefixes),
                tuple(roc),
            )
            for name, title, headers, rows, prefixes, roc in raw
        )
    except (EOFError, ValueError, TypeError):
        return None


# A row's fields in order, as Row(*fields) takes them: shallow, since every field is a
# str, an int or a tuple of ints (dataclasses.astuple deep-copies each value, which cost
# more than parsing the TOML on a cold start).
row_fields = operator.attrgetter(*(f.name for f in fields(Row)))


def cached_form(families: tuple[Family, ...]) -> bytes:
    """The families as the cache holds them (``_from_raw`` reads them back)."""
    raw = [
        (
            f.name,
            f.title,
            list(f.hip_headers),
            [row_fields(r) for r in f.rows],
            list(f.prefixes),
            list(f.roc_headers),
        )
        for f in families
    ]
    return marshal.dumps(raw)


def _to_cache(path: Path, data: bytes) -> None:
    from .._files import store_quietly

    store_quietly(path, data)  # read-only: the tables are parsed next time


@functools.cache
def tables_digest(directory: str | None = None) -> str:
    """Changes whenever a table file changes (name, size, mtime), like make's staleness test.

    Cheap on purpose: every cache lookup computes it, and a cache hit must cost
    milliseconds. The tables' content hash keys the parsed-table cache instead.
    """
    root = Path(directory) if directory else data_dir()
    digest = sha256(str(root.resolve()).encode())
    for path in sorted(root.glob("*.toml")):
        st = path.stat()
        digest.update(f"{path.name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:24]


@functools.cache
def load_tables(directory: str | None = None) -> tuple[Family, ...]:
    """Load every family, checking that no CUDA name is mapped twice.

    Parsing and validating the TOML takes a third of a second; the result is
    cached (``CASS_CACHE_DIR`` or the user cache dir) under a hash of the files.
    """
    root = Path(directory) if directory else data_dir()
    paths = sorted(root.glob("*.toml"))
    key = _tables_key(paths)
    cache = _cache_path(key)
    if cache.exists() and (cached := _from_cache(cache)) is not None:
        return cached
    shipped = _shipped(key) if directory is None else None
    if shipped is not None and (families := _from_raw(shipped)) is not None:
        _to_cache(cache, shipped)
        return families
    families = parse_tables(paths)
    _to_cache(cache, cached_form(families))
    return families


def parse_tables(paths: list[Path]) -> tuple[Family, ...]:
    """The families of the table files ``paths``, validated (no CUDA name mapped twice)."""
    families = tuple(load_family(p) for p in paths)
    seen: dict[tuple[str, bool], Row] = {}
    for family in families:
        for row in family.rows:
            key = (row.cuda, row.kind == "include")
            other = seen.get(key)
            if other is not None:
                msg = (
                    f"{row.family}.toml: {row.cuda} is mapped twice "
                    f"(also in {other.family}.toml [{other.section}])"
                )
                raise TableError(msg)
            seen[key] = row
    return families
