"""Where the model's files are, without loading its runtime.

Every cache key of the ``auto`` chain asks this (the model strategy's fingerprint is
the files' sizes and times), and a build asks it once per file: importing
``cass_build.model`` for it would load the decoder's code, its guards and their
dataclasses on every cache hit.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .settings import environment

__all__ = ["FILES", "OPTIONAL", "model_dir"]

FILES = ("encoder.onnx", "decoder.onnx", "tokenizer.json", "config.json")
# Models from v10 on; it changes what the model reads, so it is in the cache key too.
OPTIONAL = ("placeholders.json",)


def model_dir() -> Path:
    """Where the packaged model lives (``CASS_MODEL_DIR`` overrides it)."""
    if override := environment().model_dir:
        return Path(override)
    return _packaged_dir()


@functools.cache
def _packaged_dir() -> Path:
    return Path(__file__).resolve().parent / "models"  # once: every file's key asks
