# cmake -DCASS_FUNCTIONS=<CASSFunctions.cmake> [-DCASE=unknown_keyword] -P test_parse_args.cmake
# The cass_ functions parse with cmake_parse_arguments(PARSE_ARGV ...): an empty
# argument keeps its place (STRATEGY "" leaves the next word a source) and an
# argument holding a ';' stays one source. Prints "parse-args: ok" when every
# check holds; a failed check stops with FATAL_ERROR naming it.
cmake_minimum_required(VERSION 3.25)
include("${CASS_FUNCTIONS}")

function(expect what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "parse-args: ${what} is [${got}], expected [${want}]")
  endif()
endfunction()

# cass_add_library's own parsing, up to the add_library that -P mode has no use for.
function(parsed out)
  set(options STATIC SHARED MODULE OBJECT EXCLUDE_FROM_ALL ALLOW_UNVERIFIED)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "STRATEGY;VERIFY" "ARCHITECTURES")
  _cass_check_args(cass_add_library "${options};STRATEGY;VERIFY;ARCHITECTURES")
  list(LENGTH ARG_SOURCES count)
  set(first "")
  if(count GREATER 0)
    list(GET ARG_SOURCES 0 first)
  endif()
  set(${out}_COUNT "${count}" PARENT_SCOPE)
  set(${out}_FIRST "${first}" PARENT_SCOPE)
  set(${out}_STRATEGY "${ARG_STRATEGY}" PARENT_SCOPE)
  set(${out}_VERIFY "${ARG_VERIFY}" PARENT_SCOPE)
  set(${out}_ARCHS "${ARG_ARCHITECTURES}" PARENT_SCOPE)
endfunction()

if(CASE STREQUAL "unknown_keyword")
  cass_add_library(kernels STATIC ARCHITECTUERS gfx90a a.cu)
  return()
endif()

# An empty value: the default strategy, and a.cu is still the one source (a macro
# over ${ARGN} made "a.cu" the strategy and left no source).
set(empty "")
parsed(r STRATEGY "${empty}" a.cu)
expect("STRATEGY \"\" a.cu: strategy" "${r_STRATEGY}" "")
expect("STRATEGY \"\" a.cu: source count" "${r_COUNT}" "1")
expect("STRATEGY \"\" a.cu: source" "${r_FIRST}" "a.cu")

parsed(r VERIFY "" STRATEGY rules "" b.cu)
expect("VERIFY \"\": verify" "${r_VERIFY}" "")
expect("VERIFY \"\": strategy" "${r_STRATEGY}" "rules")
expect("VERIFY \"\": sources" "${r_COUNT}:${r_FIRST}" "1:b.cu")

# A ';' inside one argument: one source, the ';' kept.
parsed(r "dir;with;semicolons/k.cu")
expect("a source with ';': count" "${r_COUNT}" "1")
expect("a source with ';': name" "${r_FIRST}" "dir;with;semicolons/k.cu")

parsed(r ARCHITECTURES gfx90a "odd;name.cu" gfx1030)
expect("ARCHITECTURES then a ';' source: archs" "${r_ARCHS}" "gfx90a;gfx1030")
expect("ARCHITECTURES then a ';' source: source" "${r_COUNT}:${r_FIRST}" "1:odd;name.cu")

# The keyword values of one call never leak into the next.
parsed(r a.cu)
expect("a plain call after STRATEGY rules: strategy" "${r_STRATEGY}" "")

message(STATUS "parse-args: ok")
