// SPDX-License-Identifier: Apache-2.0
// one_key.odr, unit B: compiled with -march=x86-64-v3 (see odr_main.cc).
#define SIMDBLOOM_ODR_UNIT B
#include "odr_unit.h"
