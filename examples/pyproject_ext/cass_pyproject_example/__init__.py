"""Row-wise softmax on the GPU; see examples/pyproject_ext/README.md."""

from ._softmax import runtime, softmax

__all__ = ["runtime", "softmax"]
