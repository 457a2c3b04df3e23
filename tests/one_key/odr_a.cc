// SPDX-License-Identifier: Apache-2.0
// one_key.odr, unit A: compiled with the toolchain's default flags (see odr_main.cc).
#define SIMDBLOOM_ODR_UNIT A
#include "odr_unit.h"

#if defined(SIMDBLOOM_EXPECT_NEON)  // one_key.neon.compile: this unit for AArch64
static_assert(simdbloom::detail::OneKey::kName[0] == 'n', "the NEON path (one_key/neon.hpp)");
#endif
