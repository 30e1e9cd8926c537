"""CASS: a build-time CUDA to HIP transpiler."""
