// SPDX-License-Identifier: Apache-2.0
// split_block256's per-target compilation unit: its kernel table, compiled once per Highway target
// and exported as kernels/simd/layout_unit.h does for every layout (read through
// SplitBlock256Spec::KernelsAt).
#define SIMDBLOOM_UNIT SplitBlock256
#define SIMDBLOOM_UNIT_KERNEL "kernels/split_block256/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
