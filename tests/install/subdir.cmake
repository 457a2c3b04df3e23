# SPDX-License-Identifier: Apache-2.0
# The add_subdirectory test (ctest: install.subdir): configures tests/install/subdir, a parent
# project that adds the source tree, once without a build type and once through FetchContent
# (configure only: the assertions live in its CMakeLists.txt), then with CMAKE_BUILD_TYPE=Debug,
# builds the parent's default target, runs its consumer and checks that of simdbloom only
# libsimdbloom.a was built.
# To keep this fast the parent's flags say -O0 and HWY_COMPILE_ONLY_STATIC (one SIMD target): a
# parent's own global flags do reach simdbloom's sources, as they should.
cmake_minimum_required(VERSION 3.16)
file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../script_util.cmake)
set(common -DSIMDBLOOM_SOURCE_DIR=${SIMDBLOOM_SOURCE_DIR} -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_C_COMPILER=${CC} -DCMAKE_CXX_FLAGS=-Wno-unused -DCMAKE_C_FLAGS=-Wno-unused)
# The calling build's compiler launcher (ccache): the library is compiled again here.
if(CXX_LAUNCHER)
  list(APPEND common "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}")
endif()
if(C_LAUNCHER)
  list(APPEND common "-DCMAKE_C_COMPILER_LAUNCHER=${C_LAUNCHER}")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/nobuildtype ${common})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/fetchcontent ${common}
    -DSIMDBLOOM_VIA_FETCHCONTENT=ON)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/debug ${common} -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -DHWY_COMPILE_ONLY_STATIC" -DCMAKE_C_FLAGS_DEBUG=-O0)
file(READ ${WORK_DIR}/debug/simdbloom/cmake_install.cmake inst)
if(inst MATCHES "libsimdbloom|simdbloomConfig|include/simdbloom")
  message(FATAL_ERROR "simdbloom as a subproject generated install rules")
endif()
if(EXISTS ${WORK_DIR}/debug/simdbloom/CTestTestfile.cmake)
  message(FATAL_ERROR "simdbloom as a subproject added tests")
endif()
include(ProcessorCount)
ProcessorCount(jobs)
# The parent's whole default build: the consumer and, of simdbloom, the static library alone.
run(${CMAKE_COMMAND} --build ${WORK_DIR}/debug -j ${jobs})
run(${WORK_DIR}/debug/consumer)
file(GLOB_RECURSE built ${WORK_DIR}/debug/simdbloom/*.a ${WORK_DIR}/debug/simdbloom/*.so*)
file(GLOB_RECURSE programs LIST_DIRECTORIES false ${WORK_DIR}/debug/simdbloom/*)
foreach(f ${programs})
  if(IS_SYMLINK ${f} OR NOT f MATCHES "/[^/.]+$")
    continue()
  endif()
  file(READ ${f} head LIMIT 4 HEX)
  if(head STREQUAL "7f454c46")  # an ELF file with no extension: a program
    list(APPEND built ${f})
  endif()
endforeach()
if(NOT built STREQUAL "${WORK_DIR}/debug/simdbloom/libsimdbloom.a")
  message(FATAL_ERROR "simdbloom as a subproject built more than its static library: ${built}")
endif()
