"""Test-wide environment: a private cache, and no verification unless a test asks.

The ``cass`` CLI verifies with hipcc by default (``--verify auto``). Most tests
are about translation, so they run with ``CASS_VERIFY=none``; the tests of the
verification gates pass ``--verify`` (or ``PipelineOptions.verify``) themselves.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cass_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    saved = {
        k: os.environ.get(k) for k in ("CASS_VERIFY", "CASS_CACHE_DIR", "CASS_NVCC_SERVER_IDLE")
    }
    os.environ["CASS_VERIFY"] = "none"
    # Builds through the stand-in start translation servers: let them go soon after.
    os.environ.setdefault("CASS_NVCC_SERVER_IDLE", "30")
    if "CASS_CACHE_DIR" not in os.environ:
        os.environ["CASS_CACHE_DIR"] = str(tmp_path_factory.mktemp("cass-cache"))
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty cache for one test."""
    root = tmp_path / "cache"
    monkeypatch.setenv("CASS_CACHE_DIR", str(root))
    return root
