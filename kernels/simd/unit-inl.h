// SPDX-License-Identifier: Apache-2.0
// The per-target part of a per-target unit (unit.h): re-included once per Highway target, it
// compiles the table SIMDBLOOM_UNIT_TABLE of SIMDBLOOM_UNIT_KERNEL for that target. Internal
// linkage: every unit defines its own UnitKernels.
#include SIMDBLOOM_UNIT_KERNEL
#if SIMDBLOOM_UNIT_PIPELINE
#include "kernels/simd/pipeline-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
static const detail::SIMDBLOOM_UNIT_TYPE* UnitKernels() { return SIMDBLOOM_UNIT_TABLE; }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();
