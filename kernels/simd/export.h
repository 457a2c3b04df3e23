// SPDX-License-Identifier: Apache-2.0
// HWY_EXPORT without libhwy. HWY_EXPORT(FUNC) fills slot 0 of its table with an initializer that
// calls libhwy (hwy::GetChosenTarget, hwy::SupportedTargets); the library detects the CPU itself
// (kernels/cpu.cc), so each per-target unit lays out the same table with slot 0 unused: then the
// compiled targets (HWY_CHOOSE_TARGET_LIST) and the fallback, and Highway's index arithmetic
// (TableIndex in kernels/dispatch.cc) applies. Used in the HWY_ONCE part of the per-target unit
// (kernels/simd/unit.h), inside namespace simdbloom. Not per-target itself.
#ifndef SIMDBLOOM_KERNELS_SIMD_EXPORT_H_
#define SIMDBLOOM_KERNELS_SIMD_EXPORT_H_

#include "hwy/highway.h"

#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
#define SIMDBLOOM_SINGLE_TARGET 1
// One target compiled (e.g. HWY_COMPILE_ONLY_STATIC): a one-entry table.
#define SIMDBLOOM_EXPORT_TABLE(TYPE, FUNC) \
  static TYPE (*const FUNC##Table[])() = {&HWY_STATIC_DISPATCH(FUNC)};
#else
#define SIMDBLOOM_SINGLE_TARGET 0
#define SIMDBLOOM_EXPORT_TABLE(TYPE, FUNC)                            \
  static TYPE (*const FUNC##Table[HWY_MAX_DYNAMIC_TARGETS + 2])() = { \
      nullptr, HWY_CHOOSE_TARGET_LIST(FUNC), HWY_CHOOSE_FALLBACK(FUNC)};
#endif

#endif  // SIMDBLOOM_KERNELS_SIMD_EXPORT_H_
