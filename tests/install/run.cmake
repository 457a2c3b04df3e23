# SPDX-License-Identifier: Apache-2.0
# The packaging test (ctest: install.consumer). With the project built in BUILD_DIR:
#  - installs the static variant (components static + devel) into WORK_DIR/prefix and checks that
#    libsimdbloom.a references no Highway symbol and the package names no Highway dependency;
#    builds a C99 consumer with `cc` and `pkg-config --static` (runs it, no libhwy in its NEEDED
#    entries), and a fully static C++ consumer with `g++ -static` (runs it);
#  - then installs the shared variant into the same prefix (side by side: both export files and
#    both libraries stay), checks its SONAME and file name, that it exports only simdbloom_* /
#    simdbloom:: symbols (nm -D) including the typeinfo of simdbloom::Error and every function
#    the installed simdbloom.h declares (no C function more: tests/c_api_exports.cmake), needs no
#    libhwy, and that find_package (Highway not findable) picks static by default (the consumer
#    runs and needs neither libhwy nor libsimdbloom) and shared with -Dsimdbloom_SHARED_LIBS=ON
#    (runs, needs the SONAME, not libhwy). Without SHARED, only the static part runs;
#  - a C-only CMake project (tests/install/c: project(... C), no CXX) links simdbloom::simdbloom,
#    static (the package adds the C++ runtime) and shared, and runs;
#  - the documents (LICENSE, README.md, API.md, FORMAT.md) lie in share/doc/simdbloom, no .md
#    file among the headers.
cmake_minimum_required(VERSION 3.16)
file(REMOVE_RECURSE ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/../script_util.cmake)
function(needed var file)  # NEEDED entries of an ELF file
  capture(out readelf -d ${file})
  string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" n "${out}")
  set(${var} "${n}" PARENT_SCOPE)
endfunction()
function(expect_no_hwy what needed_list)
  if(needed_list MATCHES "hwy")
    message(FATAL_ERROR "${what} needs libhwy: ${needed_list}")
  endif()
endfunction()
function(build_consumer dir)  # the CMake consumer, then run it
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${dir} -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_DISABLE_FIND_PACKAGE_hwy=ON ${ARGN})
  run(${CMAKE_COMMAND} --build ${dir})
  run(${dir}/consumer)
endfunction()
function(build_c_consumer dir)  # the C-only CMake consumer (tests/install/c), then run it
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/c -B ${dir} -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_C_COMPILER=${CC_PROG} -DCMAKE_DISABLE_FIND_PACKAGE_hwy=ON ${ARGN})
  run(${CMAKE_COMMAND} --build ${dir})
  run(${dir}/consumer_c)
endfunction()

set(prefix ${WORK_DIR}/prefix)
find_program(PKG_CONFIG pkg-config REQUIRED)
find_program(CC_PROG cc REQUIRED)

# ---- static variant
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component static)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component devel)
file(GLOB archive ${prefix}/lib*/libsimdbloom.a ${prefix}/lib/*/libsimdbloom.a)
file(GLOB shared_files ${prefix}/lib*/libsimdbloom.so* ${prefix}/lib/*/libsimdbloom.so*)
if(NOT archive OR shared_files)
  message(FATAL_ERROR "static install: archive '${archive}', shared files '${shared_files}'")
endif()
get_filename_component(libdir ${archive} DIRECTORY)
capture(undef nm -u ${archive})
if(undef MATCHES "_ZN[0-9a-zA-Z]*3hwy|_ZN3hwy")
  string(REGEX MATCHALL "[^\n]*3hwy[^\n]*" bad "${undef}")
  message(FATAL_ERROR "libsimdbloom.a references Highway: ${bad}")
endif()
file(READ ${libdir}/pkgconfig/simdbloom.pc pc)
file(READ ${libdir}/cmake/simdbloom/simdbloomConfig.cmake cfg)
if(pc MATCHES "hwy" OR cfg MATCHES "find_dependency\\(hwy")
  message(FATAL_ERROR "the installed package still depends on Highway")
endif()

# The documents lie under share/doc/simdbloom, not among the headers.
foreach(doc LICENSE README.md API.md FORMAT.md)
  if(NOT EXISTS ${prefix}/share/doc/simdbloom/${doc})
    message(FATAL_ERROR "not installed: share/doc/simdbloom/${doc}")
  endif()
endforeach()
file(GLOB_RECURSE stray RELATIVE ${prefix}/include ${prefix}/include/*.md)
if(stray)
  message(FATAL_ERROR "documents installed among the headers: ${stray}")
endif()
# A C-only CMake project (project(app C)) links the static library: the package names the C++
# runtime its C driver leaves out.
build_c_consumer(${WORK_DIR}/build_c_static -DEXPECT_VARIANT=static)
needed(n ${WORK_DIR}/build_c_static/consumer_c)
if(n MATCHES "simdbloom")
  message(FATAL_ERROR "the static C consumer needs a shared simdbloom: ${n}")
endif()

set(ENV{PKG_CONFIG_PATH} "${libdir}/pkgconfig")
capture(flags ${PKG_CONFIG} --cflags --libs --static simdbloom)
separate_arguments(flags UNIX_COMMAND "${flags}")
# A C program links the C++ library through pkg-config --static alone.
run(${CC_PROG} -std=c99 -Wall -Wextra -pedantic ${SOURCE_DIR}/main.c ${flags}
    -o ${WORK_DIR}/consumer_c)
run(${WORK_DIR}/consumer_c)
needed(n ${WORK_DIR}/consumer_c)
expect_no_hwy("the C consumer" "${n}")
# Fully static C++ program.
run(${CXX} -std=c++17 -static ${SOURCE_DIR}/main.cc ${flags} -o ${WORK_DIR}/consumer_static)
run(${WORK_DIR}/consumer_static)
capture(dyn readelf -d ${WORK_DIR}/consumer_static)
if(NOT dyn MATCHES "no dynamic section")
  message(FATAL_ERROR "g++ -static consumer is dynamic:\n${dyn}")
endif()

# ---- shared variant, installed next to the static one
if(NOT SHARED)
  return()
endif()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component shared)
foreach(f ${archive} ${libdir}/cmake/simdbloom/simdbloom-static-targets.cmake
        ${libdir}/cmake/simdbloom/simdbloom-shared-targets.cmake)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "missing after installing both variants: ${f}")
  endif()
endforeach()
# SONAME: libsimdbloom.so.0.MINOR while the major version is 0, else libsimdbloom.so.MAJOR.
string(REPLACE "." ";" v "${VERSION}")
list(GET v 0 major)
list(GET v 1 minor)
if(major EQUAL 0)
  set(soname libsimdbloom.so.0.${minor})
else()
  set(soname libsimdbloom.so.${major})
endif()
set(so ${libdir}/libsimdbloom.so.${VERSION})
if(NOT EXISTS ${so} OR NOT EXISTS ${libdir}/${soname} OR NOT EXISTS ${libdir}/libsimdbloom.so)
  message(FATAL_ERROR "expected ${so}, ${soname} and libsimdbloom.so in ${libdir}")
endif()
capture(dyn readelf -d ${so})
if(NOT dyn MATCHES "Library soname: \\[${soname}\\]")
  message(FATAL_ERROR "SONAME of ${so} is not ${soname}:\n${dyn}")
endif()
needed(n ${so})
expect_no_hwy("libsimdbloom.so" "${n}")
# Exports: only simdbloom_* and the simdbloom namespace (functions, typeinfo, vtables).
capture(syms nm -D --defined-only ${so})
string(REGEX REPLACE "\n" ";" syms "${syms}")
set(count 0)
foreach(line ${syms})
  string(REGEX REPLACE "^[0-9a-f]* +[A-Za-z] +" "" sym "${line}")
  if(NOT sym MATCHES "^(simdbloom_|_ZNK?9simdbloom|_ZT[ISV]N9simdbloom)")
    message(FATAL_ERROR "libsimdbloom.so exports ${line}")
  endif()
  math(EXPR count "${count} + 1")
endforeach()
foreach(must simdbloom_create _ZTIN9simdbloom5ErrorE
                _ZN9simdbloom6Filter6createEmdNS_6LayoutEmNS_7KeyTypeE)
  if(NOT ";${syms};" MATCHES " ${must};")
    message(FATAL_ERROR "libsimdbloom.so does not export ${must}")
  endif()
endforeach()
message(STATUS "libsimdbloom.so: SONAME ${soname}, ${count} symbols, all simdbloom")
# The installed C header's functions are exactly the library's C exports (c_api_exports.cmake).
set(header ${prefix}/include/simdbloom/simdbloom.h)
if(NOT EXISTS ${header})
  message(FATAL_ERROR "the C header is not installed as ${header}")
endif()
run(${CMAKE_COMMAND} -DHEADER=${header} -DLIB=${so} -P ${SOURCE_DIR}/../c_api_exports.cmake)

build_consumer(${WORK_DIR}/build_static -DEXPECT_VARIANT=static)
needed(n ${WORK_DIR}/build_static/consumer)
expect_no_hwy("the CMake consumer" "${n}")
if(n MATCHES "simdbloom")
  message(FATAL_ERROR "static consumer needs a shared simdbloom: ${n}")
endif()
build_consumer(${WORK_DIR}/build_shared -Dsimdbloom_SHARED_LIBS=ON -DEXPECT_VARIANT=shared)
needed(n ${WORK_DIR}/build_shared/consumer)
expect_no_hwy("the shared consumer" "${n}")
if(NOT n MATCHES "\\[${soname}\\]")
  message(FATAL_ERROR "the shared consumer does not need ${soname}: ${n}")
endif()
build_c_consumer(${WORK_DIR}/build_c_shared -Dsimdbloom_SHARED_LIBS=ON -DEXPECT_VARIANT=shared)
needed(n ${WORK_DIR}/build_c_shared/consumer_c)
if(NOT n MATCHES "\\[${soname}\\]")
  message(FATAL_ERROR "the shared C consumer does not need ${soname}: ${n}")
endif()
