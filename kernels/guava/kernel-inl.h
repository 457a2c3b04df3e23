// SPDX-License-Identifier: Apache-2.0
// Per-target guava kernel: Guava's MITZ_64 in the tiled pipeline (kernels/simd/guava-inl.h,
// shared with the other Guava strategy). Re-included per target.
#if defined(SIMDBLOOM_KERNELS_GUAVA_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_GUAVA_INL_H_
#undef SIMDBLOOM_KERNELS_GUAVA_INL_H_
#else
#define SIMDBLOOM_KERNELS_GUAVA_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/guava/spec.h"
#include "kernels/simd/guava-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {

struct Guava : GuavaKernel<false> {};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
