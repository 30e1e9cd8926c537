# CASS's include route: builds an unmodified CUDA project for AMD GPUs without
# changing the environment. Pass it at the first configure:
#
#   cmake -S . -B build -DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=$(cass --cmakedir)/zero_edit.cmake
#
# CMake reads it inside the first project() call, before any language is enabled, so
# the CUDA language, FindCUDAToolkit and the legacy FindCUDA all find CASS's CUDA
# toolkit stand-in: its bin/nvcc (CASS's nvcc-compatible driver), headers and libraries.
# Values already in the cache (a -DCMAKE_CUDA_COMPILER=... of the user's) are kept; a
# CUDA compiler other than the stand-in's (a build directory configured with nvcc
# before) gets a warning that nothing is built for AMD.
# The environment route does the same with `eval "$(cass env)"`; see docs/zero-edit.md.

include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/CASSFunctions.cmake")

function(_cass_zero_edit)
  _cass_find_python()
  # Asking the interpreter (not a path relative to this file) finds the stand-in in
  # editable installs too, whose package stays in the source tree.
  execute_process(
    COMMAND "${CASS_PYTHON_EXECUTABLE}" -P -c "import cass_build.toolkit as t; print(t.root())"
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE root
    ERROR_VARIABLE err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${root}/bin/nvcc")
    message(FATAL_ERROR "CASS: zero_edit.cmake: ${CASS_PYTHON_EXECUTABLE} found no CUDA toolkit "
                        "stand-in (${err}); reinstall cass-build (pip install cass-build)")
  endif()
  set(doc "set by CASS's zero_edit.cmake: the CUDA toolkit stand-in")
  set(CASS_TOOLKIT_ROOT "${root}" CACHE PATH "CASS's CUDA toolkit stand-in (zero_edit.cmake)")
  set(CMAKE_CUDA_COMPILER "${root}/bin/nvcc" CACHE FILEPATH "CUDA compiler, ${doc}")
  set(CUDAToolkit_ROOT "${root}" CACHE PATH "CUDA toolkit, ${doc}")
  set(CUDA_TOOLKIT_ROOT_DIR "${root}" CACHE PATH "CUDA toolkit for FindCUDA, ${doc}")
  set(CUDA_NVCC_EXECUTABLE "${root}/bin/nvcc" CACHE FILEPATH "nvcc for FindCUDA, ${doc}")
  # A build directory configured with nvcc before keeps it (CMake's cache wins): say so,
  # rather than claim an AMD build that the real nvcc would then compile for NVIDIA.
  get_filename_component(compiler "${CMAKE_CUDA_COMPILER}" REALPATH)
  get_filename_component(stand_in "${root}/bin/nvcc" REALPATH)
  if(NOT compiler STREQUAL stand_in)
    message(
      WARNING
        "CASS: zero_edit.cmake: CMAKE_CUDA_COMPILER is ${CMAKE_CUDA_COMPILER}, kept from this "
        "build directory's cache (or given with -D), so it compiles the CUDA sources, not "
        "CASS: nothing is built for AMD. Configure a new build directory (or delete "
        "${CMAKE_BINARY_DIR}/CMakeCache.txt) with zero_edit.cmake to build for AMD.")
    return()
  endif()
  message(STATUS "CASS: CUDA builds for AMD through ${root}")
endfunction()

_cass_zero_edit()
