// SPDX-License-Identifier: Apache-2.0
// The blocked counting filter's per-target unit (kernels/simd/unit.h): its kernel table
// (simd/pipeline-inl.h over counting/kernel-inl.h), read by kernels/dispatch.cc through
// detail::CountingBlockedKernelsAt (the kinds' list of kernels/registry.h). The classic counting
// filter's table is kernels_classic.cc: two units that a parallel build compiles at once.
#define SIMDBLOOM_UNIT_KERNEL "kernels/counting/kernel-inl.h"
#define SIMDBLOOM_UNIT_TYPE CountingKernels
#define SIMDBLOOM_UNIT_TABLE CountingKernelsOf<CountingBlocked>()
#define SIMDBLOOM_UNIT_AT CountingBlockedKernelsAt
#include "kernels/simd/unit.h"
