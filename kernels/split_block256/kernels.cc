// SPDX-License-Identifier: Apache-2.0
// split_block256's per-target compilation unit: its kernel table (simd/pipeline-inl.h over
// split_block256/kernel-inl.h) compiled once per Highway target, exported (kernels/simd/export.h)
// and read by kernels/dispatch.cc (SplitBlock256Spec::KernelsAt). One unit per layout, so they
// build in parallel.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/split_block256/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd/pipeline-inl.h"
#include "kernels/split_block256/kernel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::LayoutKernels* SplitBlock256Kernels() { return LayoutKernelsOf<SplitBlock256>(); }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::LayoutKernels*, SplitBlock256Kernels)
namespace detail {
const LayoutKernels* SplitBlock256Spec::KernelsAt(size_t table_index) {
  return SplitBlock256KernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE
