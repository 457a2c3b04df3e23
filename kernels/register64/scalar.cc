// SPDX-License-Identifier: Apache-2.0
// register64's scalar one-key code (spec.h): one u64 word per key.
// Production code: the library's out-of-line single-key path (LayoutInfo::scalar_*, registry.h)
// and the model the oracle (kernels/reference.cc) applies key by key. Plain C++, no target flags.
#include "kernels/register64/spec.h"
#include "kernels/scalar/probes.h"

namespace simdbloom {
namespace detail {

bool Register64Spec::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {
  uint64_t& word = words[BlockIndex(h, p.num_blocks)];
  const uint64_t mask = scalar::Register64Mask(h, p.k);
  const bool changed = (word & mask) != mask;
  word |= mask;
  return changed;
}

bool Register64Spec::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t mask = scalar::Register64Mask(h, p.k);
  return (LoadRelaxed(words + BlockIndex(h, p.num_blocks)) & mask) == mask;
}

bool Register64Spec::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return AtomicOr(words + BlockIndex(h, p.num_blocks), scalar::Register64Mask(h, p.k)) != 0;
}

}  // namespace detail
}  // namespace simdbloom
