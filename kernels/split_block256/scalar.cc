// SPDX-License-Identifier: Apache-2.0
// SplitBlock256Spec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once,
// whose addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/split_block256/scalar.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(SplitBlock256Spec, SplitBlock256Scalar)
}  // namespace detail
}  // namespace simdbloom
