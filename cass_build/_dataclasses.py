"""``dataclasses``, imported without ``inspect``.

The standard library's ``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``,
``tokenize`` and ``linecache``: 5-6 ms, a seventh of a tree run's time before the core's
call) for one call, ``inspect.signature``, made only for a dataclass without a docstring.
Here ``dataclasses`` is imported with its global ``inspect`` bound to a stand-in that
imports the real module at its first attribute lookup and answers from it from then on.
Nothing else sees the stand-in: it is in ``sys.modules`` only while ``dataclasses`` is
imported, and where either module is loaded already, nothing changes. ``settings``, the
first module of every command to define a dataclass, imports them from here.
"""

from __future__ import annotations

import sys
from types import ModuleType


class _Inspect(ModuleType):
    """``inspect`` for ``dataclasses``: the real module, imported when first used."""

    def __getattr__(self, name: str) -> object:
        import inspect  # the real one: the stand-in left sys.modules with the import

        return getattr(inspect, name)


def _import_without_inspect() -> None:
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    stand_in = _Inspect("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses  # noqa: F401 - its `import inspect` binds the stand-in
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]


_import_without_inspect()

import dataclasses  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

__all__ = ["dataclass", "dataclasses", "field"]
