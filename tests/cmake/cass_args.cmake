# cmake -DCASS_FUNCTIONS=<CASSFunctions.cmake> -DCASE=<case> -P cass_args.cmake
# Argument parsing of the cass_ functions, without a project: every case either
# prints what was parsed or stops with the one-line error the user would see.
include("${CASS_FUNCTIONS}")

# The first lines of cass_add_library, which -P mode cannot run further (no targets).
function(show fn)
  set(options STATIC SHARED ALLOW_UNVERIFIED)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "STRATEGY;VERIFY" "ARCHITECTURES")
  _cass_check_args(${fn} "${options};STRATEGY;VERIFY;ARCHITECTURES")
  list(LENGTH ARG_SOURCES count)
  message(STATUS "sources=${ARG_SOURCES}|archs=${ARG_ARCHITECTURES}|strategy=${ARG_STRATEGY}|verify=${ARG_VERIFY}|static=${ARG_STATIC}|allow=${ARG_ALLOW_UNVERIFIED}|count=${count}")
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
