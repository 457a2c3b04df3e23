// SPDX-License-Identifier: Apache-2.0
// register64's per-target compilation unit: its kernel table (simd/pipeline-inl.h over
// register64/kernel-inl.h) compiled once per Highway target, exported (kernels/simd/export.h) and
// read by kernels/dispatch.cc (Register64Spec::KernelsAt). One unit per layout, so they build in
// parallel.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/register64/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/register64/kernel-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::LayoutKernels* Register64Kernels() { return LayoutKernelsOf<Register64>(); }
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::LayoutKernels*, Register64Kernels)
namespace detail {
const LayoutKernels* Register64Spec::KernelsAt(size_t table_index) {
  return Register64KernelsTable[table_index]();
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE
