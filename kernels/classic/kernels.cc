// SPDX-License-Identifier: Apache-2.0
// classic's per-target compilation unit: its kernel table, compiled once per Highway target and
// exported as kernels/simd/layout_unit.h does for every layout (read through
// ClassicSpec::KernelsAt).
#define SIMDBLOOM_UNIT Classic
#define SIMDBLOOM_UNIT_KERNEL "kernels/classic/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
