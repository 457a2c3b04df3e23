// SPDX-License-Identifier: Apache-2.0
// ClassicSpec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/classic/scalar.h"

namespace simdbloom {
namespace detail {

bool ClassicSpec::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {
  return ClassicScalar::Insert(words, p, h);
}
bool ClassicSpec::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) {
  return ClassicScalar::Contains(words, p, h);
}
bool ClassicSpec::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return ClassicScalar::InsertAtomic(words, p, h);
}

}  // namespace detail
}  // namespace simdbloom
