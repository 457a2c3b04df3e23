# SPDX-License-Identifier: Apache-2.0
# The C API test compiled by clang (C99, -Wall -Wextra -Werror -pedantic): the header and the
# byte-string calls must be warning-free under a second compiler too. The object is linked by the
# project's C++ compiler with its own flags (so a sanitizer build links its sanitizer runtime),
# then run.
#   -DCLANG= -DSOURCE= -DINCLUDE= -DWORK_DIR= -DCXX= -DCXX_FLAGS= -DLINK_FLAGS= -DLIBS=
include(${CMAKE_CURRENT_LIST_DIR}/script_util.cmake)
file(MAKE_DIRECTORY ${WORK_DIR})
separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
separate_arguments(link_flags UNIX_COMMAND "${LINK_FLAGS}")
run(${CLANG} -std=c99 -Wall -Wextra -Werror -pedantic -I${INCLUDE} -c ${SOURCE}
    -o ${WORK_DIR}/c_api_test.o)
run(${CXX} ${cxx_flags} ${link_flags} ${WORK_DIR}/c_api_test.o ${LIBS} -o ${WORK_DIR}/c_api_test)
run(${WORK_DIR}/c_api_test)
