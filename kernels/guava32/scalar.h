// SPDX-License-Identifier: Apache-2.0
// guava32's scalar one-key code (spec.h): Guava's MITZ_32 probes over 64-bit words
// (scalar::GuavaScalarOf, kernels/scalar/guava_layout.h, shared with the other Guava strategy).
// Production code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions (the
// library's single-key path) and the oracle (kernels/reference.cc) applies it key by key.
#ifndef SIMDBLOOM_KERNELS_GUAVA32_SCALAR_H_
#define SIMDBLOOM_KERNELS_GUAVA32_SCALAR_H_

#include "kernels/guava32/spec.h"
#include "kernels/scalar/guava_layout.h"

namespace simdbloom {
namespace detail {

struct Guava32Scalar : scalar::GuavaScalarOf</*kMitz32=*/true> {};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_GUAVA32_SCALAR_H_
