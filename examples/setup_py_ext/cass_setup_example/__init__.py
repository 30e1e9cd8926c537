"""GPU vector operations from CUDA sources; see examples/setup_py_ext/README.md."""

from ._ops import axpby, device_count, dot, runtime

__all__ = ["axpby", "device_count", "dot", "runtime"]
