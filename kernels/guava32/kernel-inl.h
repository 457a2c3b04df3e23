// SPDX-License-Identifier: Apache-2.0
// Per-target guava32 kernel: Guava's MITZ_32 in the tiled pipeline (kernels/simd/guava-inl.h,
// shared with the other Guava strategy). Re-included per target.
#if defined(SIMDBLOOM_KERNELS_GUAVA32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_GUAVA32_INL_H_
#undef SIMDBLOOM_KERNELS_GUAVA32_INL_H_
#else
#define SIMDBLOOM_KERNELS_GUAVA32_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/guava32/spec.h"
#include "kernels/simd/guava-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {

struct Guava32 : GuavaKernel<true> {};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
