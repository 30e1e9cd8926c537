"""Tooling that runs programs: ``cass compare`` (a HIP translation against its CUDA original),
the HIP-on-CUDA header layer it runs HIP with on NVIDIA GPUs (``hip_on_cuda``, ``wave64``)
and ``cass bench``. The build path never imports it, except ``--verify run``.
"""
