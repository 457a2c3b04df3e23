# SPDX-License-Identifier: Apache-2.0
# Helpers of the test scripts run with `cmake -P` (install/run.cmake, install/subdir.cmake,
# c_api_clang.cmake): run a command or fail the test with its exit status; capture its output.

# Runs the command; a non-zero exit fails the script, naming the command.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

# Runs the command and sets `var` to its standard output (trailing whitespace stripped); a
# non-zero exit fails the script with the command and its standard error.
function(capture var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${err}")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()
