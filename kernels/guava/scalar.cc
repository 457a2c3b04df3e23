// SPDX-License-Identifier: Apache-2.0
// GuavaSpec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds.
#include "kernels/guava/scalar.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(GuavaSpec, GuavaScalar)
}  // namespace detail
}  // namespace simdbloom
