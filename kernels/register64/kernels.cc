// SPDX-License-Identifier: Apache-2.0
// register64's per-target compilation unit: its kernel table, compiled once per Highway target and
// exported as kernels/simd/layout_unit.h does for every layout (read through
// Register64Spec::KernelsAt).
#define SIMDBLOOM_UNIT Register64
#define SIMDBLOOM_UNIT_KERNEL "kernels/register64/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
