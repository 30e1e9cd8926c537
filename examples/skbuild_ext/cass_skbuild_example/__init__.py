"""1-D heat equation on the GPU; see examples/skbuild_ext/README.md."""

from ._stencil import device_count, heat, runtime

__all__ = ["device_count", "heat", "runtime"]
