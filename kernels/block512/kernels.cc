// SPDX-License-Identifier: Apache-2.0
// block512's per-target compilation unit: its kernel table (simd/pipeline-inl.h over
// block512/kernel-inl.h) compiled once per Highway target, exported (kernels/simd/export.h) and
// read by kernels/dispatch.cc (Block512Spec::KernelsAt). One unit per layout, so they build in
// parallel.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/block512/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/block512/kernel-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::LayoutKernels* Block512Kernels() { return LayoutKernelsOf<Block512>(); }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::LayoutKernels*, Block512Kernels)
namespace detail {
const LayoutKernels* Block512Spec::KernelsAt(size_t table_index) {
  return Block512KernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE
