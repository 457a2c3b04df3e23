// SPDX-License-Identifier: Apache-2.0
// The per-target unit (kernels/simd/unit.h) of the shifting set filters' candidates kernel
// (kernel-inl.h), read by kernels/dispatch.cc through detail::ShiftingSetKernelsAt.
#define SIMDBLOOM_UNIT_KERNEL "kernels/shbf_ax/kernel-inl.h"
#define SIMDBLOOM_UNIT_TYPE ShiftingSetKernels
#define SIMDBLOOM_UNIT_TABLE SetKernels()
#define SIMDBLOOM_UNIT_AT ShiftingSetKernelsAt
#include "kernels/simd/unit.h"
