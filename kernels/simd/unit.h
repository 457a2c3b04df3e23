// SPDX-License-Identifier: Apache-2.0
// A per-target compilation unit, written once. Every per-target unit of kernels/ (a layout's
// kernels.cc through layout_unit.h, a kind's kernels*.cc, base_kernels.cc) defines
//   SIMDBLOOM_UNIT_KERNEL  the path of the header that defines its table, as a string (re-included
//                          once per target: it has the per-target include guard of a -inl.h);
//   SIMDBLOOM_UNIT_TYPE    the table's type in namespace detail (LayoutKernels,
//   CountingKernels...); SIMDBLOOM_UNIT_TABLE   an expression, in namespace HWY_NAMESPACE, of type
//                          const detail::SIMDBLOOM_UNIT_TYPE*: this target's table;
//   SIMDBLOOM_UNIT_AT      the accessor it defines in namespace detail: <Name>Spec::KernelsAt, or
//                          the one kernels/registry.h's kinds' list names;
// optionally SIMDBLOOM_UNIT_PIPELINE (1: the table needs simd/pipeline-inl.h), and includes this
// file, which compiles the table once per Highway target (unit-inl.h, through
// hwy/foreach_target.h), exports the tables (simd/export.h) and defines SIMDBLOOM_UNIT_AT
// (table_index), which kernels/dispatch.cc reads. One unit per table, so they build in parallel.
#ifndef SIMDBLOOM_KERNELS_SIMD_UNIT_H_
#define SIMDBLOOM_KERNELS_SIMD_UNIT_H_

// The kernels get their target flags from Highway, per target, never from the build.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif
#if !defined(SIMDBLOOM_UNIT_KERNEL) || !defined(SIMDBLOOM_UNIT_TYPE) || \
    !defined(SIMDBLOOM_UNIT_TABLE) || !defined(SIMDBLOOM_UNIT_AT)
#error "define SIMDBLOOM_UNIT_KERNEL, _TYPE, _TABLE and _AT before including kernels/simd/unit.h"
#endif
#ifndef SIMDBLOOM_UNIT_PIPELINE
#define SIMDBLOOM_UNIT_PIPELINE 0
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/simd/unit-inl.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/unit-inl.h"  // the static target

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::SIMDBLOOM_UNIT_TYPE*, UnitKernels)
namespace detail {
const SIMDBLOOM_UNIT_TYPE* SIMDBLOOM_UNIT_AT(size_t table_index) {
  return UnitKernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE

#endif  // SIMDBLOOM_KERNELS_SIMD_UNIT_H_
