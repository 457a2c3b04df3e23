// SPDX-License-Identifier: Apache-2.0
// Guava32Spec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds.
#include "kernels/guava32/scalar.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(Guava32Spec, Guava32Scalar)
}  // namespace detail
}  // namespace simdbloom
