// SPDX-License-Identifier: Apache-2.0
// block512's per-target compilation unit: its kernel table, compiled once per Highway target and
// exported as kernels/simd/layout_unit.h does for every layout (read through
// Block512Spec::KernelsAt).
#define SIMDBLOOM_UNIT Block512
#define SIMDBLOOM_UNIT_KERNEL "kernels/block512/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
