"""The content-addressed translation cache.

An entry is keyed on everything that can change a result: the source and its
resolved includes (their bytes), the options, the strategy chain and each
strategy's fingerprint (tables or model hash), and the toolchain. Entries are
written to a temporary name and renamed into place, so readers never see half
an entry; a per-key ``flock`` makes concurrent builds of the same file wait for
one translation instead of repeating it. Each entry carries a SHA-256 of its
body: a damaged entry is detected, removed and rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import cache_dir, locked, store_quietly

__all__ = ["Cache", "CacheInfo", "cache_dir"]

_MAGIC = b"CASS-CACHE 1\n"
_FORMAT = 1


@dataclass(frozen=True)
class CacheInfo:
    path: Path
    entries: int
    bytes: int


class CorruptEntry(Exception):
    """An entry's checksum or structure is wrong."""


class Cache:
    """Translations on disk under ``root/entries/<k[:2]>/<k>``."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cache_dir()
        self.entries = self.root / "entries"
        self.locks = self.root / "locks"
        self.damaged: list[Path] = []
        """Entries found damaged (and removed) by this object's lookups."""

    @staticmethod
    def key(parts: dict[str, Any]) -> str:
        blob = json.dumps({"format": _FORMAT, **parts}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.entries / key[:2] / key

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry for ``key``; None when missing. A damaged entry is removed."""
        path = self._path(key)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        try:
            return _decode(raw)
        except CorruptEntry:
            self.damaged.append(path)
            with contextlib.suppress(OSError):
                path.unlink()
            return None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` atomically; a cache that cannot be written only costs speed."""
        path = self._path(key)
        body = json.dumps(entry, sort_keys=True).encode()
        blob = _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
        store_quietly(path, blob)

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Hold the lock for ``key``: one process translates, the others then read."""
        with locked(self.locks / f"{key[:16]}.lock"):
            yield

    def info(self) -> CacheInfo:
        count = size = 0
        if self.entries.is_dir():
            for path in self.entries.glob("*/*"):
                if not path.name.startswith("."):
                    count += 1
                    with contextlib.suppress(OSError):
                        size += path.stat().st_size
        return CacheInfo(self.root, count, size)

    def clear(self) -> int:
        """Remove every entry; returns how many there were."""
        count = self.info().entries
        for sub in (self.entries, self.locks):
            # Rename first so that concurrent writers never see a half-removed tree.
            if sub.is_dir():
                doomed = sub.with_name(f".{sub.name}.{os.getpid()}.del")
                try:
                    sub.rename(doomed)
                except OSError:
                    doomed = sub
                shutil.rmtree(doomed, ignore_errors=True)
        return count


def _decode(raw: bytes) -> dict[str, Any]:
    if not raw.startswith(_MAGIC):
        msg = "bad header"
        raise CorruptEntry(msg)
    rest = raw[len(_MAGIC) :]
    digest, sep, body = rest.partition(b"\n")
    if not sep or hashlib.sha256(body).hexdigest().encode() != digest:
        msg = "checksum mismatch"
        raise CorruptEntry(msg)
    try:
        entry = json.loads(body)
    except ValueError:
        msg = "not JSON"
        raise CorruptEntry(msg) from None
    if not isinstance(entry, dict):
        msg = "not an object"
        raise CorruptEntry(msg)
    return entry
