// SPDX-License-Identifier: Apache-2.0
// The classic counting filter's per-target unit (kernels/simd/unit.h), beside kernels.cc (the
// blocked one's); kernels/dispatch.cc reads it through detail::CountingClassicKernelsAt.
#define SIMDBLOOM_UNIT_KERNEL "kernels/counting/kernel-inl.h"
#define SIMDBLOOM_UNIT_TYPE CountingKernels
#define SIMDBLOOM_UNIT_TABLE CountingKernelsOf<CountingClassic>()
#define SIMDBLOOM_UNIT_AT CountingClassicKernelsAt
#include "kernels/simd/unit.h"
