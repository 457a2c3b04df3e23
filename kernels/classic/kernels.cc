// SPDX-License-Identifier: Apache-2.0
// classic's per-target compilation unit: its kernel table (simd/pipeline-inl.h over
// classic/kernel-inl.h) compiled once per Highway target, exported (kernels/simd/export.h) and read
// by kernels/dispatch.cc (ClassicSpec::KernelsAt). One unit per layout, so they build in
// parallel.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/classic/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/classic/kernel-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::LayoutKernels* ClassicKernels() { return LayoutKernelsOf<Classic>(); }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::LayoutKernels*, ClassicKernels)
namespace detail {
const LayoutKernels* ClassicSpec::KernelsAt(size_t table_index) {
  return ClassicKernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE
