// SPDX-License-Identifier: Apache-2.0
// The per-target part of a layout's compilation unit (layout_unit.h): re-included once per Highway
// target, it compiles the table of layout SIMDBLOOM_UNIT (from SIMDBLOOM_UNIT_KERNEL) for that
// target. Internal linkage: every layout's unit defines its own UnitKernels.
#include SIMDBLOOM_UNIT_KERNEL
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
static const detail::LayoutKernels* UnitKernels() { return LayoutKernelsOf<SIMDBLOOM_UNIT>(); }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();
