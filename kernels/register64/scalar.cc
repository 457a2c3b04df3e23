// SPDX-License-Identifier: Apache-2.0
// Register64Spec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once,
// whose addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/register64/scalar.h"

namespace simdbloom {
namespace detail {

bool Register64Spec::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {
  return Register64Scalar::Insert(words, p, h);
}
bool Register64Spec::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) {
  return Register64Scalar::Contains(words, p, h);
}
bool Register64Spec::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return Register64Scalar::InsertAtomic(words, p, h);
}

}  // namespace detail
}  // namespace simdbloom
