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

TYPE_CHECKING = False


if TYPE_CHECKING:
    from typing import Any

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

# Loaded on first use (PEP 562): a submodule (strategies, toolchain) needs none of the
# chain's imports, and a tree with verification off never runs the chain.
_LAZY = {name: "chain" for name in __all__} | {
    "translate_to": "outputs",
    "write_depfile": "outputs",
    "write_if_changed": "outputs",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
