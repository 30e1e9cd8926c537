# CASS functions and toolchain discovery; the reference is at the top of
# CASSConfig.cmake(.in). Names starting with _cass_ are internal.

include_guard(GLOBAL)

# Functions keep the policies in force where they are defined: absolute depfile
# paths as Ninja sees them (CMP0116), IN_LIST, and cmake_path.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)

set(_CASS_FUNCTIONS_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(_CASS_VERIFY_LEVELS auto none syntax compile run)
set(_CASS_DEFAULT_ARCHS gfx90a gfx1030)
# Include directories of a CUDA toolkit (/usr/local/cuda-13.0/targets/x86_64-linux/include,
# its cccl/, /opt/cuda/include, the HPC SDK's .../cuda/12.3/include): never given to hipcc.
set(_CASS_TOOLKIT_INCLUDE_REGEX "/cuda(-[0-9.]+|/[0-9.]+)?/(targets/[^/]+/)?include(/cccl)?/?$")

# ---------------------------------------------------------------------------
# Backend and toolchain discovery
# ---------------------------------------------------------------------------

function(_cass_cache_default var default doc)
  if(NOT DEFINED ${var})
    if(NOT "$ENV{${var}}" STREQUAL "")
      set(default "$ENV{${var}}")
    endif()
    set(${var} "${default}" CACHE STRING "${doc}")
  endif()
endfunction()

function(_cass_find_hipcc)
  if(CASS_HIPCC)
    return()
  endif()
  if(NOT "$ENV{CASS_HIPCC}" STREQUAL "" AND EXISTS "$ENV{CASS_HIPCC}")
    set(CASS_HIPCC "$ENV{CASS_HIPCC}" CACHE FILEPATH "hipcc of the ROCm backend")
    return()
  endif()
  set(hints)
  foreach(var IN ITEMS CASS_ROCM_PATH ROCM_PATH HIP_PATH)
    if(NOT "$ENV{${var}}" STREQUAL "")
      list(APPEND hints "$ENV{${var}}/bin")
    endif()
  endforeach()
  find_program(
    CASS_HIPCC
    NAMES hipcc
    HINTS ${hints}
    PATHS /opt/rocm/bin
    DOC "hipcc of the ROCm backend")
endfunction()

function(_cass_choose_backend)
  _cass_cache_default(CASS_BACKEND auto "CASS backend: auto, rocm or cuda")
  set_property(CACHE CASS_BACKEND PROPERTY STRINGS auto rocm cuda)
  _cass_cache_default(CASS_STRATEGY auto "Default CASS_STRATEGY target property")
  _cass_cache_default(CASS_VERIFY auto "Default CASS_VERIFY target property")
  set_property(CACHE CASS_VERIFY PROPERTY STRINGS ${_CASS_VERIFY_LEVELS})
  _cass_cache_default(CASS_WARP cuda "Default CASS_WARP target property: cuda or native")
  set_property(CACHE CASS_WARP PROPERTY STRINGS cuda native)
  if(NOT CASS_WARP MATCHES "^(cuda|native)$")
    message(FATAL_ERROR "CASS: CASS_WARP is '${CASS_WARP}'; use cuda or native")
  endif()
  if(NOT CASS_BACKEND MATCHES "^(auto|rocm|cuda)$")
    message(FATAL_ERROR "CASS: CASS_BACKEND is '${CASS_BACKEND}'; use auto, rocm or cuda")
  endif()
  if(NOT CASS_VERIFY IN_LIST _CASS_VERIFY_LEVELS)
    message(
      FATAL_ERROR "CASS: CASS_VERIFY is '${CASS_VERIFY}'; use auto, none, syntax, compile or run")
  endif()

  set(used "")
  if(CASS_BACKEND MATCHES "^(auto|rocm)$")
    _cass_find_hipcc()
    if(CASS_HIPCC)
      set(used rocm)
    endif()
  endif()
  if(NOT used AND CASS_BACKEND MATCHES "^(auto|cuda)$")
    include(CheckLanguage)
    check_language(CUDA)
    if(CMAKE_CUDA_COMPILER)
      set(used cuda)
    endif()
  endif()
  if(NOT used)
    if(CASS_BACKEND STREQUAL "cuda")
      set(why "CASS_BACKEND=cuda but CMake found no CUDA compiler (nvcc); set CMAKE_CUDA_COMPILER")
    elseif(CASS_BACKEND STREQUAL "rocm")
      set(why "CASS_BACKEND=rocm but no hipcc was found; install ROCm or set CASS_HIPCC")
    else()
      set(why "found neither hipcc (ROCm) nor nvcc (CUDA); install one or set CASS_HIPCC")
    endif()
    set(_CASS_NOT_FOUND_MESSAGE "${why}" PARENT_SCOPE)
  endif()
  set(CASS_BACKEND_USED "${used}" PARENT_SCOPE)
endfunction()

# Asks hipcc which clang it drives and where its ROCm tree is: the one answer that
# holds for a real ROCm and for Debian's packages alike.
function(_cass_probe_hipcc clang_var rocm_var)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env HIPCC_VERBOSE=1 HIP_PLATFORM=amd "${CASS_HIPCC}"
            --offload-arch=gfx90a --version
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  set(clang "")
  set(rocm "")
  if(rc EQUAL 0 AND "${out}${err}" MATCHES "hipcc-cmd: *\"?([^\" ]+)\"?")
    set(clang "${CMAKE_MATCH_1}")
    if("${out}${err}" MATCHES "--rocm-path=\"?([^\" ]+)\"?")
      set(rocm "${CMAKE_MATCH_1}")
    endif()
  endif()
  if(NOT rocm)
    get_filename_component(real "${CASS_HIPCC}" REALPATH)
    get_filename_component(bin "${real}" DIRECTORY)
    get_filename_component(rocm "${bin}" DIRECTORY)
  endif()
  if(NOT EXISTS "${clang}")
    set(clang "")
    foreach(candidate IN ITEMS "${rocm}/llvm/bin/clang++" "${rocm}/lib/llvm/bin/clang++")
      if(EXISTS "${candidate}")
        set(clang "${candidate}")
        break()
      endif()
    endforeach()
  endif()
  set(${clang_var} "${clang}" PARENT_SCOPE)
  set(${rocm_var} "${rocm}" PARENT_SCOPE)
endfunction()

function(_cass_prepare_hip_language)
  if(NOT DEFINED CASS_ROCM_PATH OR NOT DEFINED _CASS_HIP_CLANG)
    _cass_probe_hipcc(clang rocm)
    set(CASS_ROCM_PATH "${rocm}" CACHE PATH "ROCm tree of the HIP toolchain")
    set(_CASS_HIP_CLANG "${clang}" CACHE INTERNAL "clang driven by hipcc")
  endif()
  set(rocm "${CASS_ROCM_PATH}")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("HIP" IN_LIST languages)
    return()
  endif()

  # hipconfig --platform answers nvidia wherever nvcc is installed (CMake >= 3.28).
  if(NOT DEFINED CMAKE_HIP_PLATFORM)
    set(CMAKE_HIP_PLATFORM amd CACHE STRING "HIP platform")
  endif()
  if(NOT CMAKE_HIP_COMPILER AND "$ENV{HIPCXX}" STREQUAL "")
    if(NOT _CASS_HIP_CLANG)
      message(
        FATAL_ERROR
          "CASS: cannot tell which clang ${CASS_HIPCC} drives; set CMAKE_HIP_COMPILER to it")
    endif()
    set(CMAKE_HIP_COMPILER "${_CASS_HIP_CLANG}" CACHE FILEPATH "HIP compiler (clang)")
  endif()

  if(EXISTS "${rocm}/lib/cmake/hip-lang/hip-lang-config.cmake")
    return() # a ROCm tree CMake understands as it is
  endif()
  # Debian's multiarch layout: hip-lang under lib/<triplet>/cmake, device
  # libraries under lib/<triplet>/amdgcn, neither where CMake or clang look.
  file(GLOB hip_lang "${rocm}/lib/*/cmake/hip-lang/hip-lang-config.cmake")
  if(NOT hip_lang)
    message(
      FATAL_ERROR
        "CASS: no hip-lang CMake package under ${rocm}; install it (Debian: libamdhip64-dev)")
  endif()
  list(GET hip_lang 0 hip_lang)
  get_filename_component(hip_lang_dir "${hip_lang}" DIRECTORY)
  get_filename_component(packages_dir "${hip_lang_dir}" DIRECTORY)
  set(forward "${CMAKE_BINARY_DIR}/CMakeFiles/cass-rocm-root")
  # CMake <= 3.27 reads <root>/lib/cmake/hip-lang only; forward to the real one and
  # show it its sibling packages, which the try_compile projects cannot find.
  set(content "# Written by CASS: forwards to ${hip_lang_dir}\n")
  foreach(dep IN ITEMS AMDDeviceLibs amd_comgr hsa-runtime64 hip)
    if(IS_DIRECTORY "${packages_dir}/${dep}")
      string(APPEND content
             "if(NOT DEFINED ${dep}_DIR)\n  set(${dep}_DIR \"${packages_dir}/${dep}\")\nendif()\n")
    endif()
  endforeach()
  string(APPEND content "include(\"${hip_lang}\")\n")
  file(CONFIGURE OUTPUT "${forward}/lib/cmake/hip-lang/hip-lang-config.cmake" CONTENT "${content}"
       @ONLY)
  if(NOT CMAKE_HIP_COMPILER_ROCM_ROOT)
    set(CMAKE_HIP_COMPILER_ROCM_ROOT "${forward}" CACHE PATH "ROCm root as CMake's HIP sees it")
  endif()

  set(flags "--rocm-path=${rocm}")
  file(GLOB bitcode LIST_DIRECTORIES true "${rocm}/lib/*/amdgcn/bitcode" "${rocm}/amdgcn/bitcode")
  if(bitcode)
    list(GET bitcode 0 bitcode)
    string(APPEND flags " --rocm-device-lib-path=${bitcode}")
  endif()
  if(NOT "${CMAKE_HIP_FLAGS} $ENV{HIPFLAGS}" MATCHES "--rocm-path")
    string(STRIP "${flags} ${CMAKE_HIP_FLAGS}" flags)
    set(CMAKE_HIP_FLAGS "${flags}" CACHE STRING "Flags used by the HIP compiler" FORCE)
  endif()
endfunction()

# Before enable_language(HIP), which would otherwise fall back to the compiler's
# default (gfx803) where no GPU answers: the environment's archs, else the GPUs
# rocm_agent_enumerator sees, else the pair CASS verifies for by default.
function(_cass_default_hip_architectures)
  if(DEFINED CMAKE_HIP_ARCHITECTURES)
    return()
  endif()
  set(archs "")
  foreach(var IN ITEMS CASS_ARCHS PYTORCH_ROCM_ARCH)
    if(NOT "$ENV{${var}}" STREQUAL "")
      string(REGEX REPLACE "[ ,;]+" ";" archs "$ENV{${var}}")
      break()
    endif()
  endforeach()
  if(NOT archs)
    find_program(enumerator NAMES rocm_agent_enumerator HINTS "${CASS_ROCM_PATH}/bin" NO_CACHE)
    if(enumerator)
      execute_process(
        COMMAND "${enumerator}" -t GPU
        RESULT_VARIABLE rc
        OUTPUT_VARIABLE found
        ERROR_QUIET)
      if(rc EQUAL 0)
        string(REGEX MATCHALL "gfx[0-9a-f]+" found "${found}")
        list(REMOVE_ITEM found gfx000)
        list(REMOVE_DUPLICATES found)
        set(archs "${found}")
      endif()
    endif()
  endif()
  if(NOT archs)
    set(archs "${_CASS_DEFAULT_ARCHS}")
  endif()
  set(CMAKE_HIP_ARCHITECTURES "${archs}" CACHE STRING "AMD GPU architectures to compile for")
endfunction()

# The interpreter whose cass_build installed this very file comes first: a venv's
# python3 next to its site-packages, else Python_EXECUTABLE, Python3_EXECUTABLE or
# python3 on PATH. Any interpreter that imports cass_build will do after that.
function(_cass_find_python)
  if(CASS_PYTHON_EXECUTABLE)
    return()
  endif()
  # <prefix>/lib/pythonX.Y/site-packages/cass_build/share/cmake/CASS
  get_filename_component(prefix "${_CASS_FUNCTIONS_DIR}/../../../../../../.." ABSOLUTE)
  find_program(python3 NAMES python3 python NO_CACHE)
  set(candidates)
  foreach(candidate IN ITEMS "${prefix}/bin/python3" "${Python_EXECUTABLE}" "${Python3_EXECUTABLE}"
                             "${python3}")
    if(candidate AND EXISTS "${candidate}" AND NOT candidate IN_LIST candidates)
      list(APPEND candidates "${candidate}")
    endif()
  endforeach()
  get_filename_component(here "${_CASS_FUNCTIONS_DIR}" REALPATH)
  set(fallback "")
  foreach(candidate IN LISTS candidates)
    # The real interpreter, not a shim script: it starts once per translated file.
    execute_process(
      COMMAND "${candidate}" -c
              "import sys, cass_build; print(sys.executable); print(cass_build.get_cmake_dir())"
      RESULT_VARIABLE rc
      OUTPUT_VARIABLE out
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT rc EQUAL 0)
      continue()
    endif()
    string(REPLACE "\n" ";" out "${out}")
    list(GET out 0 exe)
    list(GET out -1 dir)
    get_filename_component(dir "${dir}" REALPATH)
    if(dir STREQUAL here)
      set(fallback "${exe}")
      break()
    elseif(NOT fallback)
      set(fallback "${exe}")
    endif()
  endforeach()
  if(NOT fallback)
    message(FATAL_ERROR "CASS: no Python interpreter imports cass_build (tried: ${candidates}); "
                        "set CASS_PYTHON_EXECUTABLE")
  endif()
  set(CASS_PYTHON_EXECUTABLE "${fallback}" CACHE FILEPATH "Python that runs cass translate")
endfunction()

# ---------------------------------------------------------------------------
# Argument parsing
# ---------------------------------------------------------------------------

# Checks what cmake_parse_arguments(PARSE_ARGV <n> ARG ...) left in the calling
# function, whose keywords are <keywords>, and sets ARG_SOURCES there. PARSE_ARGV
# keeps an empty argument in its place and an argument with a ';' whole, where a
# macro over ${ARGN} dropped the one (the next value shifted into its keyword) and
# split the other. An upper-case word that is no keyword and no file is a
# misspelled keyword, not a source.
function(_cass_check_args fn keywords)
  set(sources)
  set(archs)
  # ARCHITECTURES gfx90a a.cu: the list ends where the archs do.
  foreach(item IN LISTS ARG_ARCHITECTURES)
    if(item MATCHES "^(gfx[0-9a-fA-F]+(:[a-z0-9+:-]+)?|native|all)$")
      list(APPEND archs "${item}")
    elseif(NOT item STREQUAL "")
      string(REPLACE ";" "\\;" item "${item}")
      list(APPEND sources "${item}")
    endif()
  endforeach()
  foreach(item IN LISTS ARG_UNPARSED_ARGUMENTS)
    if(item STREQUAL "")
      continue() # an empty variable's expansion: no source
    endif()
    if(item MATCHES "^[A-Z][A-Z0-9_]*$" AND NOT EXISTS "${item}"
       AND NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${item}")
      set(hint "")
      string(SUBSTRING "${item}" 0 3 head)
      foreach(known IN LISTS keywords)
        if(known MATCHES "^${head}")
          set(hint " (did you mean ${known}?)")
        endif()
      endforeach()
      message(FATAL_ERROR "${fn}: unknown keyword '${item}'${hint}")
    endif()
    string(REPLACE ";" "\\;" item "${item}")
    list(APPEND sources "${item}")
  endforeach()
  # STRATEGY "${empty}" means the default, whichever way CMP0174 reads it.
  foreach(item IN ITEMS STRATEGY VERIFY)
    if(DEFINED ARG_${item} AND ARG_${item} STREQUAL "")
      unset(ARG_${item})
      unset(ARG_${item} PARENT_SCOPE)
    endif()
  endforeach()
  if(DEFINED ARG_VERIFY AND NOT ARG_VERIFY IN_LIST _CASS_VERIFY_LEVELS)
    message(
      FATAL_ERROR "${fn}: VERIFY '${ARG_VERIFY}' is not one of auto, none, syntax, compile, run")
  endif()
  foreach(item IN ITEMS STRATEGY VERIFY)
    if(item IN_LIST ARG_KEYWORDS_MISSING_VALUES)
      message(FATAL_ERROR "${fn}: ${item} needs a value")
    endif()
  endforeach()
  set(ARG_SOURCES "${sources}" PARENT_SCOPE)
  set(ARG_ARCHITECTURES "${archs}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------

function(cass_add_library name)
  set(options STATIC SHARED MODULE OBJECT EXCLUDE_FROM_ALL ALLOW_UNVERIFIED)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "STRATEGY;VERIFY" "ARCHITECTURES")
  _cass_check_args(cass_add_library "${options};STRATEGY;VERIFY;ARCHITECTURES")
  set(type)
  foreach(kind IN ITEMS STATIC SHARED MODULE OBJECT)
    if(ARG_${kind})
      list(APPEND type ${kind})
    endif()
  endforeach()
  list(LENGTH type count)
  if(count GREATER 1)
    string(REPLACE ";" ", " type "${type}")
    message(FATAL_ERROR "cass_add_library: give at most one of ${type}")
  endif()
  if(ARG_EXCLUDE_FROM_ALL)
    list(APPEND type EXCLUDE_FROM_ALL)
  endif()
  add_library(${name} ${type})
  _cass_set_target_options(${name})
  cass_target_sources(${name} PRIVATE ${ARG_SOURCES})
endfunction()

function(cass_add_executable name)
  set(options WIN32 MACOSX_BUNDLE EXCLUDE_FROM_ALL ALLOW_UNVERIFIED)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "STRATEGY;VERIFY" "ARCHITECTURES")
  _cass_check_args(cass_add_executable "${options};STRATEGY;VERIFY;ARCHITECTURES")
  set(flags)
  foreach(flag IN ITEMS WIN32 MACOSX_BUNDLE EXCLUDE_FROM_ALL)
    if(ARG_${flag})
      list(APPEND flags ${flag})
    endif()
  endforeach()
  add_executable(${name} ${flags})
  _cass_set_target_options(${name})
  cass_target_sources(${name} PRIVATE ${ARG_SOURCES})
endfunction()

# Target-level keywords of cass_add_library/cass_add_executable, parsed in the caller.
macro(_cass_set_target_options target)
  if(DEFINED ARG_STRATEGY)
    set_property(TARGET ${target} PROPERTY CASS_STRATEGY "${ARG_STRATEGY}")
  endif()
  if(DEFINED ARG_VERIFY)
    set_property(TARGET ${target} PROPERTY CASS_VERIFY "${ARG_VERIFY}")
  endif()
  if(ARG_ALLOW_UNVERIFIED)
    set_property(TARGET ${target} PROPERTY CASS_ALLOW_UNVERIFIED ON)
  endif()
  if(ARG_ARCHITECTURES AND CASS_BACKEND_USED STREQUAL "rocm")
    set_property(TARGET ${target} PROPERTY HIP_ARCHITECTURES "${ARG_ARCHITECTURES}")
  endif()
  # Keyword values now live on the target; sources added next must not see them.
  unset(ARG_STRATEGY)
  unset(ARG_VERIFY)
  unset(ARG_ALLOW_UNVERIFIED)
endmacro()

function(cass_target_sources target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "cass_target_sources: '${target}' is not a target")
  endif()
  set(options PRIVATE PUBLIC INTERFACE ALLOW_UNVERIFIED)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "STRATEGY;VERIFY" "")
  _cass_check_args(cass_target_sources "${options};STRATEGY;VERIFY")
  set(scope PRIVATE)
  foreach(kind IN ITEMS PUBLIC INTERFACE)
    if(ARG_${kind})
      set(scope ${kind})
    endif()
  endforeach()

  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_source_file_property(translate "${src}" CASS_TRANSLATE)
    get_filename_component(ext "${src}" LAST_EXT)
    if(translate STREQUAL "NOTFOUND")
      set(translate OFF)
      if(ext STREQUAL ".cu")
        set(translate ON)
      endif()
    elseif(ext STREQUAL ".cu" AND NOT translate AND CASS_BACKEND_USED STREQUAL "rocm")
      set_source_files_properties("${src}" PROPERTIES LANGUAGE HIP) # opted out: portable
    endif()
    if(NOT translate)
      target_sources(${target} ${scope} "${src}")
    elseif(CASS_BACKEND_USED STREQUAL "cuda")
      if(NOT ext STREQUAL ".cu")
        set_source_files_properties("${src}" PROPERTIES LANGUAGE CUDA)
      endif()
      target_sources(${target} ${scope} "${src}")
    else()
      _cass_translate_source(${target} "${abs}" obj)
      target_sources(${target} ${scope} "${obj}")
      get_target_property(type ${target} TYPE)
      if(type STREQUAL "OBJECT_LIBRARY")
        # $<TARGET_OBJECTS> leaves external objects out; targets that link it get them.
        target_sources(${target} INTERFACE "${obj}")
      endif()
    endif()
  endforeach()
  _cass_register_target(${target})
endfunction()

# ---------------------------------------------------------------------------
# Translation commands
# ---------------------------------------------------------------------------

function(_cass_roots root_var out_var)
  if(NOT CASS_SOURCE_ROOT)
    set(CASS_SOURCE_ROOT "${CMAKE_SOURCE_DIR}")
  endif()
  get_filename_component(root "${CASS_SOURCE_ROOT}" ABSOLUTE)
  set(${root_var} "${root}" PARENT_SCOPE)
  set(${out_var} "${CMAKE_BINARY_DIR}/cass" PARENT_SCOPE)
endfunction()

# Uses ARG_STRATEGY, ARG_VERIFY and ARG_ALLOW_UNVERIFIED of the calling
# cass_target_sources: per-source values win over the target's properties.
function(_cass_translate_source target abs out_var)
  _cass_roots(root out_root)
  cmake_path(IS_PREFIX root "${abs}" NORMALIZE inside)
  # k.cu -> k.hip; a translated k.cpp -> k.cpp.hip, apart from a k.cu beside it.
  get_filename_component(stem "${abs}" NAME_WLE)
  if(NOT abs MATCHES "\\.cu$")
    get_filename_component(stem "${abs}" NAME)
  endif()
  if(inside)
    file(RELATIVE_PATH rel "${root}" "${abs}")
    get_filename_component(rel_dir "${rel}" DIRECTORY)
    if(rel_dir)
      set(out "${out_root}/${rel_dir}/${stem}.hip")
    else()
      set(out "${out_root}/${stem}.hip")
    endif()
  else()
    # Outside the mirrored tree (generated, or another checkout): a stable private spot.
    string(SHA1 key "${abs}")
    string(SUBSTRING "${key}" 0 12 key)
    set(rel "${abs}")
    set(out "${out_root}/_outside/${key}/${stem}.hip")
  endif()

  # The object sits in the target's own directory: the flags below are the target's.
  file(RELATIVE_PATH obj "${out_root}" "${out}")
  set(own "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${target}.dir/cass/${obj}")
  set(obj "${own}.o")
  # A source in a second target: that target's translation goes beside its object.
  get_property(claimed GLOBAL PROPERTY _CASS_OUTPUTS)
  if(out IN_LIST claimed)
    set(out "${own}")
  endif()
  set_property(GLOBAL APPEND PROPERTY _CASS_OUTPUTS "${out}")

  # Generator expressions: the target's properties as they are once configured.
  set(tp "$<TARGET_PROPERTY:${target},")
  if(DEFINED ARG_STRATEGY)
    set(strategy "${ARG_STRATEGY}")
  else()
    set(strategy "$<IF:$<BOOL:${tp}CASS_STRATEGY>>,${tp}CASS_STRATEGY>,${CASS_STRATEGY}>")
  endif()
  if(DEFINED ARG_VERIFY)
    set(verify "${ARG_VERIFY}")
  else()
    set(verify "$<IF:$<BOOL:${tp}CASS_VERIFY>>,${tp}CASS_VERIFY>,${CASS_VERIFY}>")
  endif()
  set(warp "$<IF:$<BOOL:${tp}CASS_WARP>>,${tp}CASS_WARP>,${CASS_WARP}>")
  if(ARG_ALLOW_UNVERIFIED)
    set(allow --allow-unverified)
  else()
    set(allow "$<$<BOOL:${tp}CASS_ALLOW_UNVERIFIED>>:--allow-unverified>")
  endif()
  # $<COMPILE_LANGUAGE:...> entries read as empty here: the mirrored include
  # directories (HIP only) never reach the translator, which must read originals.
  set(archs "$<FILTER:${tp}HIP_ARCHITECTURES>,EXCLUDE,^$>")
  # The CUDA toolkit's headers (CUDA::cudart's include directories) must never reach
  # hipcc: found there, cuda_runtime.h and friends pull in CUDA's own libcu++.
  set(incs "$<FILTER:${tp}INCLUDE_DIRECTORIES>,EXCLUDE,^$|${_CASS_TOOLKIT_INCLUDE_REGEX}>")
  set(defs "$<FILTER:${tp}COMPILE_DEFINITIONS>,EXCLUDE,^$>")
  # Local include directories outside the source root, mirrored by _cass_finalize.
  set(mirrors "${tp}_CASS_MIRRORS>")
  _cass_hip_flags(${target} flags)

  add_custom_command(
    OUTPUT "${out}" "${obj}"
    COMMAND
      "${CASS_PYTHON_EXECUTABLE}" -m cass_build translate "${abs}" -o "${out}" --object "${obj}"
      --depfile "${out}.d" --mirror "${root}=${out_root}"
      "$<$<BOOL:${mirrors}>:--mirror=$<JOIN:${mirrors},;--mirror=>>" --strategy "${strategy}"
      --verify "${verify}" --warp "${warp}" ${allow}
      "$<$<BOOL:${archs}>:--offload-arch=$<JOIN:${archs},;--offload-arch=>>"
      "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>" "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>" ${flags}
    DEPENDS "${abs}"
    DEPFILE "${out}.d"
    COMMENT "CASS translating ${rel} (compiled for AMD by the same step)"
    COMMAND_EXPAND_LISTS VERBATIM)
  set_source_files_properties("${obj}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(${out_var} "${obj}" PARENT_SCOPE)
endfunction()

# The hipcc flags CMake's HIP language would have compiled the translation with,
# as --hip-flags=<flag> arguments: build type, standard, PIC, visibility, options.
function(_cass_hip_flags target out_var)
  set(tp "$<TARGET_PROPERTY:${target},")
  # hipcc finds its own ROCm tree; these are what CASS gave clang for Debian.
  set(base "${CMAKE_HIP_FLAGS}")
  string(REGEX REPLACE "--rocm(-device-lib)?-path=[^ ]*" "" base "${base}")
  separate_arguments(base UNIX_COMMAND "${base}")
  set(flags)
  foreach(flag IN LISTS base)
    list(APPEND flags "--hip-flags=${flag}")
  endforeach()
  foreach(config IN ITEMS Debug Release RelWithDebInfo MinSizeRel)
    string(TOUPPER "${config}" upper)
    separate_arguments(config_flags UNIX_COMMAND "${CMAKE_HIP_FLAGS_${upper}}")
    list(REMOVE_DUPLICATES config_flags) # CMake's own "-g -g"
    foreach(flag IN LISTS config_flags)
      list(APPEND flags "$<$<CONFIG:${config}>:--hip-flags=${flag}>")
    endforeach()
  endforeach()
  # hipcc defaults to C++11; CUDA sources are written for nvcc's C++17. HIP_STANDARD,
  # else CUDA_STANDARD (what nvcc would have used), else the highest cxx_std_,
  # cuda_std_ or hip_std_ compile feature above 17 wins.
  set(features "${tp}COMPILE_FEATURES>")
  set(std 17)
  foreach(level IN ITEMS 20 23 26)
    set(found)
    foreach(lang IN ITEMS cxx cuda hip)
      list(APPEND found "$<IN_LIST:${lang}_std_${level},${features}>")
    endforeach()
    string(REPLACE ";" "," found "${found}")
    set(std "$<IF:$<OR:${found}>,${level},${std}>")
  endforeach()
  set(std "$<IF:$<BOOL:${tp}CUDA_STANDARD>>,${tp}CUDA_STANDARD>,${std}>")
  set(std "$<IF:$<BOOL:${tp}HIP_STANDARD>>,${tp}HIP_STANDARD>,${std}>")
  list(APPEND flags "--hip-flags=-std=c++${std}")
  set(shared "$<OR:$<STREQUAL:${tp}TYPE>,SHARED_LIBRARY>,$<STREQUAL:${tp}TYPE>,MODULE_LIBRARY>>")
  list(APPEND flags "$<$<OR:$<BOOL:${tp}POSITION_INDEPENDENT_CODE>>,${shared}>:--hip-flags=-fPIC>")
  # Separable compilation: relocatable device code, linked by _cass_device_link.
  list(APPEND flags "$<$<BOOL:${tp}CUDA_SEPARABLE_COMPILATION>>:--hip-flags=-fgpu-rdc>")
  set(symbol "$<MAKE_C_IDENTIFIER:${target}>_EXPORTS")
  set(symbol "$<IF:$<BOOL:${tp}DEFINE_SYMBOL>>,${tp}DEFINE_SYMBOL>,${symbol}>")
  list(APPEND flags "$<${shared}:-D${symbol}>")
  # pybind11 sets the CXX and CUDA presets; a .cu file would have used CUDA's.
  set(visibility "$<IF:$<BOOL:${tp}HIP_VISIBILITY_PRESET>>,${tp}HIP_VISIBILITY_PRESET>,"
                 "${tp}CUDA_VISIBILITY_PRESET>>")
  string(REPLACE ";" "" visibility "${visibility}")
  list(APPEND flags "$<$<BOOL:${visibility}>:--hip-flags=-fvisibility=${visibility}>")
  # Host LTO (pybind11's -flto=auto) would put LLVM bitcode where the host linker,
  # GCC's, expects machine code.
  set(opts "$<FILTER:${tp}COMPILE_OPTIONS>,EXCLUDE,^$|^-flto|^-fno-fat-lto-objects$>")
  list(APPEND flags "$<$<BOOL:${opts}>:--hip-flags=$<JOIN:${opts},$<SEMICOLON>--hip-flags=>>")
  set(${out_var} "${flags}" PARENT_SCOPE)
endfunction()

function(_cass_register_target target)
  get_property(targets GLOBAL PROPERTY _CASS_TARGETS)
  if(target IN_LIST targets OR NOT CASS_BACKEND_USED STREQUAL "rocm")
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _CASS_TARGETS ${target})
  get_property(deferred GLOBAL PROPERTY _CASS_DEFERRED)
  if(NOT deferred)
    set_property(GLOBAL PROPERTY _CASS_DEFERRED ON)
    # Include directories are complete only once every directory is configured.
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cass_finalize)
  endif()
endfunction()

# The link graph from ${target}, breadth first: the targets it links, directly or
# through others, in ${out_var} (names only, ${target} first). With INCLUDES <var>,
# the walk is the compile's: ${target}'s own include directories and links, then
# the INTERFACE_ ones of what it links, never past an imported target (outside the
# project: nothing there is mirrored); <var> gets the include directories met.
# Without it, the walk is the linker's: every target's private and interface links.
function(_cass_link_graph target out_var)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "INCLUDES" "")
  set(seen)
  set(queue ${target})
  set(dirs)
  while(queue)
    list(POP_FRONT queue t)
    if(t IN_LIST seen OR NOT TARGET ${t})
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(aliased ${t} ALIASED_TARGET)
    if(aliased)
      list(APPEND queue ${aliased})
      continue()
    endif()
    if(NOT ARG_INCLUDES)
      get_target_property(links ${t} LINK_LIBRARIES)
      get_target_property(iface ${t} INTERFACE_LINK_LIBRARIES)
      list(APPEND links ${iface})
    else()
      get_target_property(imported ${t} IMPORTED)
      if(imported)
        continue()
      endif()
      set(prefix INTERFACE_)
      if(t STREQUAL target)
        set(prefix "")
      endif()
      get_target_property(found ${t} ${prefix}INCLUDE_DIRECTORIES)
      get_target_property(links ${t} ${prefix}LINK_LIBRARIES)
      if(found)
        list(APPEND dirs ${found})
      endif()
    endif()
    foreach(link IN LISTS links)
      if(link MATCHES "^\\$<LINK_ONLY:([^>$]+)>$")
        list(APPEND queue "${CMAKE_MATCH_1}")
      elseif(NOT link MATCHES "^(::@|\\$<)" AND TARGET "${link}")
        list(APPEND queue "${link}")
      endif()
    endforeach()
  endwhile()
  set(${out_var} "${seen}" PARENT_SCOPE)
  if(ARG_INCLUDES)
    set(${ARG_INCLUDES} "${dirs}" PARENT_SCOPE)
  endif()
endfunction()

# Compile options a target (or a project target whose interface it uses) gives only
# under $<COMPILE_LANGUAGE:CUDA> (--use_fast_math, -lineinfo, --expt-relaxed-constexpr):
# a generator expression of the compile's language reads as empty in the translate
# step's command, so they would be dropped without a word. One warning per target.
function(_cass_warn_cuda_options target)
  _cass_link_graph(${target} graph INCLUDES unused)
  set(found)
  foreach(t IN LISTS graph)
    set(props INTERFACE_COMPILE_OPTIONS)
    if(t STREQUAL target)
      set(props COMPILE_OPTIONS)
    endif()
    get_target_property(imported ${t} IMPORTED)
    if(imported)
      continue()
    endif()
    get_target_property(opts ${t} ${props})
    if(NOT opts)
      continue()
    endif()
    # `$<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math -lineinfo>` is two list items, the
    # expression open in the first: collect items until it closes.
    set(depth 0)
    set(item)
    foreach(opt IN LISTS opts)
      if(depth EQUAL 0 AND NOT opt MATCHES "COMPILE_LANG(UAGE|_AND_ID):([A-Za-z_]+,)*CUDA[,>]")
        continue()
      endif()
      list(APPEND item "${opt}")
      string(REGEX MATCHALL "\\$<" opens "${opt}")
      string(REGEX MATCHALL ">" closes "${opt}")
      list(LENGTH opens n_open)
      list(LENGTH closes n_close)
      math(EXPR depth "${depth} + ${n_open} - ${n_close}")
      if(depth LESS_EQUAL 0)
        list(JOIN item " " item)
        list(APPEND found "${item}")
        set(depth 0)
        set(item)
      endif()
    endforeach()
  endforeach()
  if(found)
    list(REMOVE_DUPLICATES found)
    list(JOIN found " " shown)
    message(
      AUTHOR_WARNING
        "CASS: target '${target}': compile options under $<COMPILE_LANGUAGE:CUDA> do not "
        "reach its translate step, which compiles with hipcc: ${shown}. Give them as hipcc "
        "flags (--use_fast_math is -ffast-math, -lineinfo -gline-tables-only) outside that "
        "generator expression, e.g. under if(CASS_BACKEND_USED STREQUAL \"rocm\").")
  endif()
endfunction()

# Runs once every directory is configured.
function(_cass_finalize)
  get_property(targets GLOBAL PROPERTY _CASS_TARGETS)
  foreach(target IN LISTS targets)
    _cass_warn_cuda_options(${target})
    _cass_mirror_includes(${target})
    _cass_link_with_cxx(${target})
  endforeach()
  _cass_device_link("${targets}")
endfunction()

# Every target of the project, in every directory.
function(_cass_all_targets dir out_var)
  get_property(found DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _cass_all_targets("${sub}" more)
    list(APPEND found ${more})
  endforeach()
  set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# CUDA_SEPARABLE_COMPILATION: the translations were compiled with -fgpu-rdc, so their
# device code is bitcode until a device link. Every executable and shared library that
# links one (itself, or through static libraries) is linked by the HIP compiler with
# -fgpu-rdc --hip-link for its archs, as nvcc's device link would have done.
function(_cass_device_link cass_targets)
  set(rdc)
  foreach(target IN LISTS cass_targets)
    get_target_property(separable ${target} CUDA_SEPARABLE_COMPILATION)
    if(separable)
      list(APPEND rdc ${target})
    endif()
  endforeach()
  if(NOT rdc)
    return()
  endif()
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "HIP" IN_LIST languages)
    message(FATAL_ERROR "CASS: CUDA_SEPARABLE_COMPILATION on ${rdc} needs a device link by the "
                        "HIP compiler; enable the HIP language (find_package(CASS) does on ROCm)")
  endif()
  _cass_all_targets("${CMAKE_SOURCE_DIR}" all)
  foreach(target IN LISTS all)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      continue()
    endif()
    _cass_link_graph(${target} closure)
    set(needs OFF)
    set(archives)
    foreach(t IN LISTS rdc)
      if(t IN_LIST closure)
        set(needs ON)
        get_target_property(kind ${t} TYPE)
        if(kind STREQUAL "STATIC_LIBRARY" AND NOT t STREQUAL target)
          # clang's device link reads device code from archives named with -l only.
          list(APPEND archives "-L$<TARGET_LINKER_FILE_DIR:${t}>"
               "-l$<TARGET_LINKER_FILE_BASE_NAME:${t}>")
        endif()
      endif()
    endforeach()
    if(NOT needs)
      continue()
    endif()
    get_target_property(archs ${target} HIP_ARCHITECTURES)
    if(NOT archs)
      set(archs "${CMAKE_HIP_ARCHITECTURES}")
    endif()
    set(offload)
    foreach(arch IN LISTS archs)
      list(APPEND offload "--offload-arch=${arch}")
    endforeach()
    set_property(TARGET ${target} PROPERTY LINKER_LANGUAGE HIP)
    # The object clang assembles around the linked device code has no .note.GNU-stack:
    # without -z noexecstack, GNU ld warns and makes the program's stack executable.
    target_link_options(${target} PRIVATE -fgpu-rdc --hip-link ${offload} -Wl,-z,noexecstack
                        ${archives})
  endforeach()
endfunction()

# Translations reach the target as objects, so CMake sees no HIP source in it and
# adds neither the HIP runtime nor clang's builtins (half-precision conversions on
# the host side): link both here. The host C++ compiler links (objects built
# without -fgpu-rdc carry their device code already, as torch's ROCm builds rely
# on); clang could not read the LTO objects GCC writes for pybind11 modules.
function(_cass_link_with_cxx target)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  if(TARGET hip-lang::amdhip64)
    target_link_libraries(${target} PRIVATE hip-lang::amdhip64)
  else()
    find_library(CASS_AMDHIP64 amdhip64 HINTS "${CASS_ROCM_PATH}/lib" "${CASS_ROCM_PATH}/lib64"
                 DOC "HIP runtime library")
    if(CASS_AMDHIP64)
      target_link_libraries(${target} PRIVATE "${CASS_AMDHIP64}")
    endif()
  endif()
  if(CLANGRT_BUILTINS) # found by hip-lang
    target_link_libraries(${target} PRIVATE "${CLANGRT_BUILTINS}")
  endif()
  get_target_property(language ${target} LINKER_LANGUAGE)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT language AND "CXX" IN_LIST languages)
    set_property(TARGET ${target} PROPERTY LINKER_LANGUAGE CXX)
  endif()
endfunction()

# Whether ${dir} holds system or toolchain headers (the compilers' own directories,
# ROCm, the Python installation), which are never translated.
function(_cass_is_system_dir dir out_var)
  set(system OFF)
  set(roots /usr/include /usr/local/include "${CASS_ROCM_PATH}")
  foreach(lang IN ITEMS CXX C HIP CUDA)
    list(APPEND roots ${CMAKE_${lang}_IMPLICIT_INCLUDE_DIRECTORIES})
  endforeach()
  get_filename_component(python "${CASS_PYTHON_EXECUTABLE}" DIRECTORY)
  get_filename_component(python "${python}" DIRECTORY)
  list(APPEND roots "${python}/lib" "${python}/include")
  foreach(r IN LISTS roots)
    if(r)
      cmake_path(IS_PREFIX r "${dir}" NORMALIZE under)
      if(under)
        set(system ON)
        break()
      endif()
    endif()
  endforeach()
  set(${out_var} ${system} PARENT_SCOPE)
endfunction()

# Translated headers live under ${CMAKE_BINARY_DIR}/cass at their original
# relative path; each include directory under the source root gets its mirror in
# front of it, for HIP compiles only.
function(_cass_mirror_includes target)
  _cass_roots(root out_root)
  _cass_link_graph(${target} walked INCLUDES dirs)
  set(mirrored)
  set(extra)
  foreach(dir IN LISTS dirs)
    if(dir MATCHES "COMPILE_LANGUAGE:HIP" OR NOT dir MATCHES "^(\\$<[A-Z_]+:)?/")
      continue()
    endif()
    string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" path "${dir}")
    cmake_path(IS_PREFIX root "${path}" NORMALIZE inside)
    cmake_path(IS_PREFIX out_root "${path}" NORMALIZE in_output)
    if(in_output OR path MATCHES "[$<>]")
      continue()
    endif()
    if(inside)
      file(RELATIVE_PATH rel "${root}" "${path}")
      list(APPEND mirrored "$<$<COMPILE_LANGUAGE:HIP>:${out_root}/${rel}>")
    elseif(IS_DIRECTORY "${path}" AND NOT path MATCHES "${_CASS_TOOLKIT_INCLUDE_REGEX}")
      _cass_is_system_dir("${path}" system)
      if(NOT system)
        # A local directory outside the root (a sibling Common/): its headers are
        # translated into a private mirror that comes first, as those under the root.
        cmake_path(NORMAL_PATH path)
        string(REGEX REPLACE "/$" "" path "${path}")
        string(SHA1 key "${path}")
        string(SUBSTRING "${key}" 0 12 key)
        set(mirror "${out_root}/_include/${key}")
        list(APPEND mirrored "$<$<COMPILE_LANGUAGE:HIP>:${mirror}>")
        list(APPEND extra "${path}=${mirror}")
      endif()
    endif()
  endforeach()
  if(extra)
    list(REMOVE_DUPLICATES extra)
    set_property(TARGET ${target} PROPERTY _CASS_MIRRORS "${extra}")
  endif()
  if(mirrored)
    list(REMOVE_DUPLICATES mirrored)
    get_target_property(own ${target} INCLUDE_DIRECTORIES)
    if(NOT own)
      set(own)
    endif()
    set_property(TARGET ${target} PROPERTY INCLUDE_DIRECTORIES ${mirrored} ${own})
  endif()
endfunction()

cmake_policy(POP)
