// SPDX-License-Identifier: Apache-2.0
// Block512Spec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once, whose
// addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/block512/scalar.h"

namespace simdbloom {
namespace detail {

bool Block512Spec::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {
  return Block512Scalar::Insert(words, p, h);
}
bool Block512Spec::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) {
  return Block512Scalar::Contains(words, p, h);
}
bool Block512Spec::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return Block512Scalar::InsertAtomic(words, p, h);
}

}  // namespace detail
}  // namespace simdbloom
