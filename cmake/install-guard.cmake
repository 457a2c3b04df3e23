# SPDX-License-Identifier: Apache-2.0
# Runs first in `cmake --install` (install(CODE), every component; ../CMakeLists.txt): every built
# file the install copies must exist, else it stops before writing anything, so that a build
# directory that built only some targets (the README's demo command builds simdbloom-bench alone)
# leaves no half-installed prefix. _sb_guard_files: "component|file" entries; a whole install
# checks them all, `--component C` those of C (devel: those of the libraries, which its CMake
# package and .pc files describe). Once per install run.
if(_sb_guard_done)
  return()
endif()
set(_sb_guard_done TRUE)
set(_sb_guard_missing "")
foreach(_sb_entry IN LISTS _sb_guard_files)
  string(REPLACE "|" ";" _sb_entry "${_sb_entry}")
  list(GET _sb_entry 0 _sb_component)
  list(GET _sb_entry 1 _sb_file)
  set(_sb_wanted FALSE)
  if(NOT CMAKE_INSTALL_COMPONENT OR CMAKE_INSTALL_COMPONENT STREQUAL _sb_component)
    set(_sb_wanted TRUE)
  elseif(CMAKE_INSTALL_COMPONENT STREQUAL "devel" AND _sb_component MATCHES "^(static|shared)$")
    set(_sb_wanted TRUE)
  endif()
  if(_sb_wanted AND NOT EXISTS "${_sb_file}")
    string(APPEND _sb_guard_missing "\n  ${_sb_file} (component ${_sb_component})")
  endif()
endforeach()
if(_sb_guard_missing)
  message(FATAL_ERROR "simdbloom: nothing installed: these files are not built yet:"
    "${_sb_guard_missing}\n"
    "Build them first (this build directory may have built one target only, e.g. the demo's "
    "simdbloom-bench):\n  cmake --build ${_sb_guard_build} -j2")
endif()
