// SPDX-License-Identifier: Apache-2.0
// block512's literal model (spec.h): one key at a time, probe by probe.
#ifndef SIMDBLOOM_KERNELS_BLOCK512_REFERENCE_H_
#define SIMDBLOOM_KERNELS_BLOCK512_REFERENCE_H_

#include "kernels/block512/spec.h"

namespace simdbloom {
namespace ref {

// Probe i of hash h: word (w0 + i) mod 8, bit lo32(a * M[8r + w]) >> 26 (the installed header's
// probe math, simdbloom/detail/probes.hpp).
inline void Block512Probe(uint64_t h, uint32_t i, uint32_t* word, uint32_t* bit) {
  *word = detail::Block512Word(h, i);
  *bit = detail::Block512Bit(h, i);
}

}  // namespace ref

namespace detail {

inline bool Block512Spec::RefInsert(uint64_t* words, const Params& p, uint64_t h) {
  uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
  bool changed = false;
  for (uint32_t i = 0; i < p.k; ++i) {
    uint32_t w, b;
    ref::Block512Probe(h, i, &w, &b);
    changed |= SetBit(&block[w], b);
  }
  return changed;
}

inline bool Block512Spec::RefContains(const uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
  for (uint32_t i = 0; i < p.k; ++i) {
    uint32_t w, b;
    ref::Block512Probe(h, i, &w, &b);
    if (((LoadRelaxed(block + w) >> b) & 1) == 0) return false;
  }
  return true;
}

inline bool Block512Spec::RefInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
  uint64_t mask[8] = {};
  for (uint32_t i = 0; i < p.k; ++i) {
    uint32_t w, b;
    ref::Block512Probe(h, i, &w, &b);
    mask[w] |= uint64_t{1} << b;
  }
  uint64_t clear = 0;
  for (int w = 0; w < 8; ++w) clear |= AtomicOr(block + w, mask[w]);
  return clear != 0;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_BLOCK512_REFERENCE_H_
