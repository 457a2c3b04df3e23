// SPDX-License-Identifier: Apache-2.0
// guava32's per-target compilation unit: its kernel table, compiled once per Highway target and
// exported as kernels/simd/layout_unit.h does for every layout (read through
// Guava32Spec::KernelsAt).
#define SIMDBLOOM_UNIT Guava32
#define SIMDBLOOM_UNIT_KERNEL "kernels/guava32/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
