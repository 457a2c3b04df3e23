// SPDX-License-Identifier: Apache-2.0
// The blocked counting filter's per-target compilation unit: its kernel table (simd/pipeline-inl.h
// over counting/kernel-inl.h) compiled once per Highway target, exported (kernels/simd/export.h)
// and read by kernels/dispatch.cc (detail::CountingBlockedKernelsAt, through the kinds' list of
// kernels/registry.h). The classic counting filter's table is compiled beside it, in
// kernels_classic.cc: two units that a parallel build compiles at once.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/counting/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/counting/kernel-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::CountingKernels* CountingBlockedKernels() {
  return CountingKernelsOf<CountingBlocked>();
}
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_KIND(CountingKernels, CountingBlockedKernels, CountingBlockedKernelsAt)
}  // namespace simdbloom
#endif  // HWY_ONCE
