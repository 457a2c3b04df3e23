// SPDX-License-Identifier: Apache-2.0
// A layout's per-target compilation unit, written once. A layout's kernels.cc defines
//   SIMDBLOOM_UNIT         its name N: struct N in its kernel-inl.h, NSpec in its spec.h;
//   SIMDBLOOM_UNIT_KERNEL  the path of its kernel-inl.h, as a string;
// and includes this file, which compiles the layout's kernel table (simd/pipeline-inl.h over
// kernel-inl.h) once per Highway target (layout_unit-inl.h, through hwy/foreach_target.h), exports
// the tables (simd/export.h) and defines NSpec::KernelsAt, which kernels/dispatch.cc reads. One
// unit per layout, so they build in parallel.
#ifndef SIMDBLOOM_KERNELS_SIMD_LAYOUT_UNIT_H_
#define SIMDBLOOM_KERNELS_SIMD_LAYOUT_UNIT_H_

#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif
#if !defined(SIMDBLOOM_UNIT) || !defined(SIMDBLOOM_UNIT_KERNEL)
#error "define SIMDBLOOM_UNIT and SIMDBLOOM_UNIT_KERNEL before including layout_unit.h"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/layout_unit-inl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/layout_unit-inl.h"  // the static target

#if HWY_ONCE
#include "kernels/simd/export.h"

#define SIMDBLOOM_UNIT_CAT_(a, b) a##b
#define SIMDBLOOM_UNIT_CAT(a, b) SIMDBLOOM_UNIT_CAT_(a, b)

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::LayoutKernels*, UnitKernels)
namespace detail {
const LayoutKernels* SIMDBLOOM_UNIT_CAT(SIMDBLOOM_UNIT, Spec)::KernelsAt(size_t table_index) {
  return UnitKernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE

#endif  // SIMDBLOOM_KERNELS_SIMD_LAYOUT_UNIT_H_
