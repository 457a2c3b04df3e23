// SPDX-License-Identifier: Apache-2.0
// register64's literal model (spec.h): one u64 word per key.
#ifndef SIMDBLOOM_KERNELS_REGISTER64_REFERENCE_H_
#define SIMDBLOOM_KERNELS_REGISTER64_REFERENCE_H_

#include "kernels/register64/spec.h"

namespace simdbloom {
namespace ref {

// The key's word mask: bit lo32(a * M[i]) >> 26 for every probe i < k
// (simdbloom/detail/probes.hpp).
inline uint64_t Register64Mask(uint64_t h, uint32_t k) { return detail::Register64Mask(h, k); }

}  // namespace ref

namespace detail {

inline bool Register64Spec::RefInsert(uint64_t* words, const Params& p, uint64_t h) {
  uint64_t& word = words[BlockIndex(h, p.num_blocks)];
  const uint64_t mask = ref::Register64Mask(h, p.k);
  const bool changed = (word & mask) != mask;
  word |= mask;
  return changed;
}

inline bool Register64Spec::RefContains(const uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t mask = ref::Register64Mask(h, p.k);
  return (LoadRelaxed(words + BlockIndex(h, p.num_blocks)) & mask) == mask;
}

inline bool Register64Spec::RefInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  return AtomicOr(words + BlockIndex(h, p.num_blocks), ref::Register64Mask(h, p.k)) != 0;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REGISTER64_REFERENCE_H_
