"""CASS: a build-time CUDA to HIP transpiler.

``import cass_build`` is cheap: the C++ extension, the tables and everything
else load on first use, since build hooks import this package on every configure.
"""

from __future__ import annotations

from ._version import __version__

TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from .api import Translation, translate, translate_file
    from .errors import CassError
    from .settings import Settings

__all__ = [
    "CassError",
    "Settings",
    "Translation",
    "__version__",
    "get_cmake_dir",
    "include_dir",
    "translate",
    "translate_file",
]

_LAZY = {
    "translate": "api",
    "translate_file": "api",
    "Translation": "api",
    "Settings": "settings",
    "CassError": "errors",
}


def get_cmake_dir() -> str:
    """The directory holding ``CASSConfig.cmake``, for ``-DCASS_DIR=...``."""
    from pathlib import Path

    here = Path(__file__).parent / "share" / "cmake" / "CASS"
    if (here / "CASSConfig.cmake").is_file():
        return str(here)
    # An editable install keeps what CMake built in site-packages, apart from the sources.
    from importlib import metadata

    try:
        found = metadata.distribution("cass-build").locate_file("cass_build/share/cmake/CASS")
    except metadata.PackageNotFoundError:
        found = None
    if found is not None and (Path(str(found)) / "CASSConfig.cmake").is_file():
        return str(found)
    msg = "cass_build has no CMake files here; install it with pip (pip install .) first."
    raise ImportError(msg)


def include_dir() -> str:
    """The directory to put on the include path of every compile of CASS output: its
    ``cass/`` headers (the logical-warp operations, ...) are what translations include."""
    from pathlib import Path

    return str(Path(__file__).parent / "include")


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module 'cass_build' has no attribute {name!r}"
        raise AttributeError(msg)
    import importlib

    return getattr(importlib.import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return list(__all__)
