// SPDX-License-Identifier: Apache-2.0
// ClassicSpec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/classic/scalar.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(ClassicSpec, ClassicScalar)
}  // namespace detail
}  // namespace simdbloom
