"""The build path: intercept → translate → verify → fall back → cache → compile.

``chain`` runs the stages for one file; each stage has its own module here:
``includes`` (the local headers a source reaches), ``strategies`` (model, rules,
HIPIFY, ``exec:``), ``verify`` (the syntax and compile gates, through ``_driver``),
``cache`` (content-addressed results keyed with ``fingerprint``), ``toolchain``
(hipcc, nvcc, clang, HIPIFY and the target archs) and ``outputs`` (what is written).
Nothing here imports the tooling (``runcheck``, ``asm``, ``train``) or rich; the model's
runtime (onnxruntime) loads only when a file is translated with it.
"""

from __future__ import annotations

from .chain import (
    HEADER_SUFFIXES,
    Attempt,
    PipelineOptions,
    Result,
    options_from_env,
    real_path,
    rules_first,
    translate_file,
)
from .outputs import translate_to, write_depfile, write_if_changed

__all__ = [
    "HEADER_SUFFIXES",
    "Attempt",
    "PipelineOptions",
    "Result",
    "options_from_env",
    "real_path",
    "rules_first",
    "translate_file",
    "translate_to",
    "write_depfile",
    "write_if_changed",
]
