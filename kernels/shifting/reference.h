// SPDX-License-Identifier: Apache-2.0
// shifting's literal model (spec.h): one key at a time, pair by pair.
#ifndef SIMDBLOOM_KERNELS_SHIFTING_REFERENCE_H_
#define SIMDBLOOM_KERNELS_SHIFTING_REFERENCE_H_

#include "kernels/shifting/spec.h"

namespace simdbloom {
namespace ref {

// The key's offset o(e) in 1..63: 1 + ((lo32(a * M[8]) * 63) >> 32) (simdbloom/detail/probes.hpp).
using detail::ShiftingOffset;

// Word w = (w0 + i) mod 8 of pair i and its mask: bit lo32(a * M[w]) >> 26, and the same bit
// rotated left by o if the pair has two bits (2i + 1 < k).
inline void ShiftingPair(uint64_t h, uint32_t i, uint32_t k, uint32_t* word, uint64_t* mask) {
  *word = detail::ShiftingWord(h, i);
  *mask = detail::ShiftingPairMask(h, i, k);
}

}  // namespace ref

namespace detail {

inline bool ShiftingSpec::RefInsert(uint64_t* words, const Params& p, uint64_t h) {
  uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
  bool changed = false;
  for (uint32_t i = 0; 2 * i < p.k; ++i) {
    uint32_t w;
    uint64_t mask;
    ref::ShiftingPair(h, i, p.k, &w, &mask);
    changed |= (block[w] & mask) != mask;
    block[w] |= mask;
  }
  return changed;
}

inline bool ShiftingSpec::RefContains(const uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
  for (uint32_t i = 0; 2 * i < p.k; ++i) {
    uint32_t w;
    uint64_t mask;
    ref::ShiftingPair(h, i, p.k, &w, &mask);
    if ((LoadRelaxed(block + w) & mask) != mask) return false;
  }
  return true;
}

inline bool ShiftingSpec::RefInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
  uint64_t clear = 0;
  for (uint32_t i = 0; 2 * i < p.k; ++i) {
    uint32_t w;
    uint64_t mask;
    ref::ShiftingPair(h, i, p.k, &w, &mask);
    clear |= AtomicOr(block + w, mask);
  }
  return clear != 0;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SHIFTING_REFERENCE_H_
