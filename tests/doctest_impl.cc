// SPDX-License-Identifier: Apache-2.0
// doctest's implementation, compiled once (at -O1) for every test executable that uses doctest:
// each of them compiled it itself before, the one-key tests three times at -O3 (about 8 s each).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
