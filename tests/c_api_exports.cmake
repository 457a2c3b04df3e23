# SPDX-License-Identifier: Apache-2.0
# The exported-symbol test (ctest: c_api.exports; tests/install/run.cmake runs it on the installed
# library too): every function simdbloom.h declares is exported by libsimdbloom.so, and every C
# symbol it exports is declared there. The declarations are read from the header itself (comments
# removed, then every `simdbloom_name(`; with the C headers it includes), so a function added to a
# header cannot be forgotten.
#   -DHEADER=<simdbloom.h> -DLIB=<libsimdbloom.so> [-DNM=nm]
if(NOT NM)
  set(NM nm)
endif()
file(READ ${HEADER} text)
# The C headers simdbloom.h includes (simdbloom/c_kinds.h, ...) declare C functions too.
get_filename_component(header_dir ${HEADER} DIRECTORY)
string(REGEX MATCHALL "#include \"simdbloom/[a-z0-9_]+\\.h\"" c_includes "${text}")
foreach(inc ${c_includes})
  string(REGEX REPLACE "^#include \"simdbloom/(.*)\"$" "\\1" name "${inc}")
  file(READ ${header_dir}/${name} included)
  string(APPEND text "\n${included}")
endforeach()
# Comments out, /* */ and //, so that a name a comment mentions is not taken for a declaration.
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" " " text "${text}")
string(REGEX REPLACE "//[^\n]*" " " text "${text}")
string(REGEX MATCHALL "simdbloom_[a-z0-9_]+[ \t\n]*\\(" calls "${text}")
set(declared)
foreach(c ${calls})
  string(REGEX REPLACE "[ \t\n]*\\($" "" name "${c}")
  list(APPEND declared ${name})
endforeach()
list(REMOVE_DUPLICATES declared)
list(LENGTH declared n_declared)
# A parse that finds (almost) nothing must fail, not pass: the header declares well over 100.
if(n_declared LESS 100)
  message(FATAL_ERROR "found only ${n_declared} declarations in ${HEADER}: ${declared}")
endif()

execute_process(COMMAND ${NM} -D --defined-only ${LIB} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIB} failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "[0-9a-fA-F]+ T simdbloom_[a-z0-9_]+" lines "${out}")
set(exported)
foreach(l ${lines})
  string(REGEX REPLACE "^.* T " "" name "${l}")
  list(APPEND exported ${name})
endforeach()

set(missing ${declared})
list(REMOVE_ITEM missing ${exported})
set(undeclared ${exported})
list(REMOVE_ITEM undeclared ${declared})
if(missing OR undeclared)
  message(FATAL_ERROR "${LIB} against ${HEADER}:\n  declared, not exported: ${missing}\n"
                      "  exported, not declared: ${undeclared}")
endif()
message(STATUS "${n_declared} functions declared in simdbloom.h, all exported by ${LIB}")
