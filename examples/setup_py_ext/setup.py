"""A classic setup.py CUDA extension: the only CASS lines are the import and cmdclass.

With torch this would read ``from torch.utils.cpp_extension import BuildExtension,
CUDAExtension``; the arguments are the same.
"""

import pybind11
from setuptools import setup

from cass_build.setuptools import BuildExtension, CUDAExtension

setup(
    name="cass-setup-example",
    version="0.1.0",
    packages=["cass_setup_example"],
    ext_modules=[
        CUDAExtension(
            "cass_setup_example._ops",
            ["csrc/ops.cu", "csrc/bindings.cpp"],
            include_dirs=[pybind11.get_include(), "csrc"],
            extra_compile_args={"cxx": ["-O2", "-std=c++17"], "nvcc": ["-O3", "--use_fast_math"]},
        )
    ],
    cmdclass={"build_ext": BuildExtension},
)
