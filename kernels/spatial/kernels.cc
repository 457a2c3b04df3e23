// SPDX-License-Identifier: Apache-2.0
// The spatial filter's per-target unit (kernels/simd/unit.h): its kernel table (kernel-inl.h),
// read by kernels/dispatch.cc (Kernels::spatial, through the kinds' list of kernels/registry.h).
// The reference target's table is in reference.cc.
#define SIMDBLOOM_UNIT_KERNEL "kernels/spatial/kernel-inl.h"
#define SIMDBLOOM_UNIT_TYPE SpatialKernels
#define SIMDBLOOM_UNIT_TABLE SpatialKernelTable()
#define SIMDBLOOM_UNIT_AT SpatialKernelsAt
#include "kernels/simd/unit.h"
