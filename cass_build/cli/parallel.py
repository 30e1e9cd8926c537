"""Translating many files at once, results in input order.

Verification runs hipcc and the core releases the GIL, so threads overlap those. With
verification off, though, a file costs more Python (reading, include scan, diagnostics)
than core time, and threads only queue on the GIL: forked worker processes share
that work instead, each with the tables the parent has already loaded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

__all__ = ["ordered_map"]

T = TypeVar("T")
R = TypeVar("R")

_WORK: list[Callable[[object], object]] = []  # the function, set in the parent before fork


def _call(item: object) -> object:
    return _WORK[0](item)


def ordered_map(
    fn: Callable[[T], R], items: Sequence[T], jobs: int, *, processes: bool = False
) -> Iterator[R]:
    """``map(fn, items)`` on ``jobs`` workers: threads, or forked processes where asked
    and available (``fn`` then need not pickle; its results must)."""
    if jobs <= 1 or len(items) <= 1:
        yield from map(fn, items)
        return
    if processes and sys.platform == "linux":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        _WORK[:] = [fn]  # type: ignore[list-item]
        # Chunks amortize the pipe round trip; small enough that output starts soon.
        chunk = max(1, min(64, len(items) // (jobs * 4)))
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            yield from pool.map(_call, items, chunksize=chunk)  # type: ignore[misc]
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(fn, items)
