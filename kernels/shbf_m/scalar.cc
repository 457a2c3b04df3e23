// SPDX-License-Identifier: Apache-2.0
// ShiftingSpec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/shbf_m/scalar.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(ShiftingSpec, ShiftingScalar)
}  // namespace detail
}  // namespace simdbloom
