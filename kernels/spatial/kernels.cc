// SPDX-License-Identifier: Apache-2.0
// The spatial filter's per-target compilation unit: its kernel table (kernel-inl.h) compiled once
// per Highway target and exported (kernels/simd/export.h), read by kernels/dispatch.cc
// (Kernels::spatial, through the kinds' list of kernels/registry.h). The reference target's table
// is in reference.cc.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/spatial/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/spatial/kernel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::SpatialKernels* SpatialKernels() {
  static constexpr detail::SpatialKernels kernels = {&SpatialInsert, &SpatialClassify,
                                                     kSpatialClassifyOne};
  return &kernels;
}
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_KIND(SpatialKernels, SpatialKernels, SpatialKernelsAt)
}  // namespace simdbloom
#endif  // HWY_ONCE
