// SPDX-License-Identifier: Apache-2.0
// SplitBlock256Spec's one-key functions (spec.h) out of line: the code of scalar.h, compiled once,
// whose addresses the registry's LayoutInfo holds (the library's out-of-line single-key path).
#include "kernels/split_block256/scalar.h"

namespace simdbloom {
namespace detail {

bool SplitBlock256Spec::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {
  return SplitBlock256Scalar::Insert(words, p, h);
}
bool SplitBlock256Spec::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) {
  return SplitBlock256Scalar::Contains(words, p, h);
}
bool SplitBlock256Spec::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return SplitBlock256Scalar::InsertAtomic(words, p, h);
}

}  // namespace detail
}  // namespace simdbloom
