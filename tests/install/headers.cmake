# SPDX-License-Identifier: Apache-2.0
# ctest headers.<compiler>.<std>: the public headers as a user's strict build sees them (with -I,
# not as system headers: under add_subdirectory they are not). Each installed C++ header alone,
# simdbloom.hpp again at -march=x86-64-v3 and -v4 (the inline AVX2 and AVX-512 single-key paths,
# x86 only), and tests/install/strict_use.cc (every inline single-key path instantiated, at -O2 for
# the warnings that come after inlining, at each level) are compiled by CXX at STD; the C header
# alone as C11 by CC. Flags: -Wall -Wextra -Wpedantic
# -Wconversion -Wsign-conversion -Wshadow -Werror. The headers are listed from the source tree.
#   cmake -DCXX=... -DCC=... -DSTD=17 -DINCLUDE=<lib/include> -DSOURCE=<strict_use.cc> -DX86=ON|OFF
#         -DWORK_DIR=... -P headers.cmake
cmake_minimum_required(VERSION 3.16)
set(strict -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Werror)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(failures "")
set(count 0)
function(compile what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  math(EXPR n "${count} + 1")
  set(count ${n} PARENT_SCOPE)
  if(NOT rc EQUAL 0)
    set(failures "${failures}\n--- ${what}: ${ARGN}\n${out}" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE headers RELATIVE ${INCLUDE} ${INCLUDE}/simdbloom/*.hpp)
list(SORT headers)
if(NOT "simdbloom/simdbloom.hpp" IN_LIST headers OR NOT "simdbloom/detail/probes.hpp" IN_LIST headers)
  message(FATAL_ERROR "no public headers found under ${INCLUDE}")
endif()
foreach(h ${headers})
  string(MAKE_C_IDENTIFIER ${h} id)
  file(WRITE ${WORK_DIR}/${id}.cc "#include <${h}>\n")
  compile("${h} alone" ${CXX} -std=c++${STD} ${strict} -I${INCLUDE} -fsyntax-only
          ${WORK_DIR}/${id}.cc)
endforeach()
if(X86)
  foreach(level x86-64-v3 x86-64-v4)
    compile("simdbloom.hpp at ${level}" ${CXX} -std=c++${STD} ${strict} -march=${level}
            -I${INCLUDE} -fsyntax-only ${WORK_DIR}/simdbloom_simdbloom_hpp.cc)
    compile("strict_use.cc at ${level}, -O2" ${CXX} -std=c++${STD} ${strict} -O2 -march=${level}
            -I${INCLUDE} -c ${SOURCE} -o ${WORK_DIR}/use_${level}.o)
  endforeach()
endif()
compile("strict_use.cc, -O2" ${CXX} -std=c++${STD} ${strict} -O2 -I${INCLUDE} -c ${SOURCE}
        -o ${WORK_DIR}/use.o)
file(WRITE ${WORK_DIR}/c_header.c "#include <simdbloom/simdbloom.h>\n")
compile("simdbloom.h as C11" ${CC} -std=c11 ${strict} -I${INCLUDE} -fsyntax-only
        ${WORK_DIR}/c_header.c)
if(failures)
  message(FATAL_ERROR "the public headers are not warning-free:${failures}")
endif()
list(LENGTH headers nh)
message(STATUS "${count} compilations (${nh} C++ headers, C++${STD}, ${CXX}; C11, ${CC}): no warning")
