# cmake -DCASS_FUNCTIONS=<CASSFunctions.cmake> -DCASE=<case> -P cass_args.cmake
# Argument parsing of the cass_ functions, without a project: every case either
# prints what was parsed or stops with the one-line error the user would see.
include("${CASS_FUNCTIONS}")

function(show fn)
  _cass_parse_args(${fn} "STATIC;SHARED;ALLOW_UNVERIFIED" "STRATEGY;VERIFY" "ARCHITECTURES" ${ARGN})
  message(STATUS "sources=${_cass_SOURCES}|archs=${_cass_ARCHITECTURES}|strategy=${_cass_STRATEGY}|verify=${_cass_VERIFY}|static=${_cass_STATIC}|allow=${_cass_ALLOW_UNVERIFIED}")
endfunction()

if(CASE STREQUAL "parse")
  show(cass_add_library STATIC STRATEGY rules VERIFY compile ARCHITECTURES gfx90a gfx1030 a.cu b.cu)
elseif(CASE STREQUAL "defaults")
  show(cass_add_library a.cu)
elseif(CASE STREQUAL "unknown_keyword")
  cass_add_library(kernels STATC a.cu)
elseif(CASE STREQUAL "bad_verify")
  cass_add_executable(app VERIFY sometimes main.cu)
elseif(CASE STREQUAL "missing_value")
  cass_add_library(kernels a.cu STRATEGY)
elseif(CASE STREQUAL "two_types")
  set(CASS_BACKEND_USED rocm)
  cass_add_library(kernels STATIC SHARED a.cu)
endif()
