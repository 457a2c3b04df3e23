// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): target selection, over the kernel tables of kernels/table.h.
#ifndef SIMDBLOOM_KERNELS_DISPATCH_H_
#define SIMDBLOOM_KERNELS_DISPATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/table.h"

namespace simdbloom {
namespace detail {

// The kernels bulk calls use now (see simdbloom::set_target). Throws simdbloom::Error if
// SIMDBLOOM_TARGET names an unknown target.
const Kernels& Active();
// The same, or nullptr where Active() would throw (for single-key paths that cannot throw: they
// then take their scalar loops).
const Kernels* ActiveOrNull() noexcept;
// The compiled Highway target `hwy_target`, or nullptr if it was not compiled or this CPU lacks it.
const Kernels* ForHwyTarget(int64_t hwy_target);
// Every usable target, best first, the reference last.
std::vector<const Kernels*> Available();

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_DISPATCH_H_
