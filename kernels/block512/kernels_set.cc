// SPDX-License-Identifier: Apache-2.0
// The per-target unit (kernels/simd/unit.h) of FilterSet's fused block512 probe (set_kernel-inl.h),
// read by kernels/dispatch.cc through detail::Block512SetKernelsAt (kernels/registry.h's kinds).
#define SIMDBLOOM_UNIT_KERNEL "kernels/block512/set_kernel-inl.h"
#define SIMDBLOOM_UNIT_TYPE Block512SetKernels
#define SIMDBLOOM_UNIT_TABLE SetKernelTable()
#define SIMDBLOOM_UNIT_AT Block512SetKernelsAt
#include "kernels/simd/unit.h"
