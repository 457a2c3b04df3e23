// SPDX-License-Identifier: Apache-2.0
// shifting's per-target compilation unit: its kernel table, compiled once per Highway target and
// exported as kernels/simd/layout_unit.h does for every layout (read through
// ShiftingSpec::KernelsAt).
#define SIMDBLOOM_UNIT Shifting
#define SIMDBLOOM_UNIT_KERNEL "kernels/shbf_m/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
