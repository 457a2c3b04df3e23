// SPDX-License-Identifier: Apache-2.0
// The per-target unit (kernels/simd/unit.h) of each target's base kernel table
// (base_kernels-inl.h: hashing, block index, word OR/AND), read by kernels/dispatch.cc through
// detail::BaseKernelsAt, which adds the layouts' and kinds' tables.
#define SIMDBLOOM_UNIT_KERNEL "kernels/base_kernels-inl.h"
#define SIMDBLOOM_UNIT_TYPE Kernels
#define SIMDBLOOM_UNIT_TABLE BaseKernels()
#define SIMDBLOOM_UNIT_AT BaseKernelsAt
#include "kernels/simd/unit.h"
