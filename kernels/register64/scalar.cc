// SPDX-License-Identifier: Apache-2.0
// Register64Spec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once,
// whose addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/register64/scalar.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(Register64Spec, Register64Scalar)
}  // namespace detail
}  // namespace simdbloom
