// SPDX-License-Identifier: Apache-2.0
// guava's false-positive model and statistics (lib/FORMAT.md): the Guava layouts' one
// (kernels/scalar/guava_layout.h), the classic filter's over m = 64 * num_blocks bits.
#include "kernels/guava/spec.h"
#include "kernels/scalar/guava_layout.h"

namespace simdbloom {
namespace detail {
SIMDBLOOM_DEFINE_GUAVA_MODEL(GuavaSpec)
}  // namespace detail
}  // namespace simdbloom
