// SPDX-License-Identifier: Apache-2.0
// The classic counting filter's per-target compilation unit, beside kernels.cc (the blocked one's):
// its kernel table compiled once per Highway target and exported; kernels/dispatch.cc reads it
// through detail::CountingClassicKernelsAt.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/counting/kernels_classic.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/counting/kernel-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::CountingKernels* CountingClassicKernels() {
  return CountingKernelsOf<CountingClassic>();
}
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_KIND(CountingKernels, CountingClassicKernels, CountingClassicKernelsAt)
}  // namespace simdbloom
#endif  // HWY_ONCE
