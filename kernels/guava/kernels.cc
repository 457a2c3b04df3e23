// SPDX-License-Identifier: Apache-2.0
// guava's per-target compilation unit: its kernel table, compiled once per Highway target and
// exported as kernels/simd/layout_unit.h does for every layout (read through
// GuavaSpec::KernelsAt).
#define SIMDBLOOM_UNIT Guava
#define SIMDBLOOM_UNIT_KERNEL "kernels/guava/kernel-inl.h"
#include "kernels/simd/layout_unit.h"
