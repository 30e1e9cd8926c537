"""What a cached translation depends on in CASS itself: its code and its data, by content.

Cache keys hold ``code_digest()``: a hash of every Python module of the installed
package (its path inside the package and its bytes) and of the C++ core's bytes.
No module is named here, so moving, adding or splitting a module changes the key
(once) and can never leave a stale placeholder in it. The table and model files are
keyed by their own digests (``tables_digest``, ``model_digest``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from pathlib import Path

__all__ = ["code_digest", "files_digest"]

_PACKAGE = Path(__file__).resolve().parents[1]


def files_digest(root: Path, paths: list[Path]) -> str:
    """A hash of ``paths`` (relative to ``root``, with their bytes), in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _python_files(root: Path) -> list[Path]:
    # The headers translations include (include/cass) decide whether they compile too;
    # the diagnostic table (data/diagnostics/ids.toml) holds messages that results carry.
    code = [p for p in root.rglob("*.py") if "__pycache__" not in p.parts]
    return code + sorted((root / "include").rglob("*.h")) + sorted(root.glob("data/diagnostics/*"))


def code_digest(root: Path | None = None) -> str:
    """The package's Python code and compiled core, by content (3 ms, once per process).

    ``root`` names another copy of the package (tests); its core is not part of it.
    """
    return _installed() if root is None else _digest(root, None)


@functools.cache
def _installed() -> str:
    """The installed package's digest, remembered under the cache by its files' names,
    sizes and mtimes (as ``tables_digest`` keys the tables): a build step is a process
    of its own, and reading every module costs it more than listing them."""
    spec = importlib.util.find_spec(f"{_PACKAGE.name}._core")
    core = Path(spec.origin) if spec is not None and spec.origin else None
    files = _python_files(_PACKAGE)
    stamps = hashlib.sha256()
    for path in [*files, *([core] if core else [])]:
        try:
            st = path.stat()
        except OSError:
            return _digest(_PACKAGE, core)
        stamps.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    from .._files import cache_dir, store_quietly

    memo = cache_dir() / "code" / f"{stamps.hexdigest()[:32]}.txt"
    try:
        found = memo.read_text(encoding="ascii").strip()
        if len(found) == 24:
            return found
    except (OSError, UnicodeDecodeError):
        pass
    digest = _digest(_PACKAGE, core)
    store_quietly(memo, digest.encode())
    return digest


def _digest(root: Path, core: Path | None) -> str:
    digest = hashlib.sha256(files_digest(root, _python_files(root)).encode())
    if core is not None:
        digest.update(b"\0core\0" + hashlib.sha256(core.read_bytes()).digest())
    return digest.hexdigest()[:24]
