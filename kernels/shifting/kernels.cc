// SPDX-License-Identifier: Apache-2.0
// shifting's per-target compilation unit: its kernel table (simd/pipeline-inl.h over
// shifting/kernel-inl.h) compiled once per Highway target, exported (kernels/simd/export.h) and
// read by kernels/dispatch.cc (ShiftingSpec::KernelsAt). One unit per layout, so they build in
// parallel.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/shifting/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/shifting/kernel-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::LayoutKernels* ShiftingKernels() { return LayoutKernelsOf<Shifting>(); }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::LayoutKernels*, ShiftingKernels)
namespace detail {
const LayoutKernels* ShiftingSpec::KernelsAt(size_t table_index) {
  return ShiftingKernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE
