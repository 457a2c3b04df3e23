// SPDX-License-Identifier: Apache-2.0
// ShiftingSpec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/shifting/scalar.h"

namespace simdbloom {
namespace detail {

bool ShiftingSpec::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {
  return ShiftingScalar::Insert(words, p, h);
}
bool ShiftingSpec::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) {
  return ShiftingScalar::Contains(words, p, h);
}
bool ShiftingSpec::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return ShiftingScalar::InsertAtomic(words, p, h);
}

}  // namespace detail
}  // namespace simdbloom
