// SPDX-License-Identifier: Apache-2.0
// The shifting layout's specification (ShBF_M, the membership form of the shifting Bloom filter of
// Yang, Liu, Shahzad et al., "A Shifting Bloom Filter Framework for Set Queries", VLDB 2016),
// fitted to the cache-line design: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
//
// The paper sets k/2 bits h_i(e) and k/2 more at h_i(e) + o(e), one offset o(e) per key, so a
// query reads k/2 machine words for k bits. Here the k/2 positions are those of block512 (one word
// of the key's cache line each) and the offset rotates inside that 64-bit word: the second bit is
// (b + o) mod 64 with o in 1..63. Why the word and not the cache line: both bits of a pair then
// come from one load and one mask test (an offset bounded by the line would put them in two words
// and give back block512's k word reads); why the rotation: the paper reads an unaligned window of
// w̄ bits starting at h_i, which aligned words cannot do without bias at the word's end, while
// (b + o) mod 64 keeps both bits uniform over the word and always distinct.
#ifndef SIMDBLOOM_KERNELS_SHBF_M_SPEC_H_
#define SIMDBLOOM_KERNELS_SHBF_M_SPEC_H_

#include <cstdint>

#include "kernels/layout_spec.h"
#include "simdbloom/detail/probes.hpp"

// ceil(k/2) words per key, two bits in each (one in the last if k is odd).
// Pair i < ceil(k/2) of hash h sets bit b = lo32(a * M[w]) >> 26 of u64 word w = (w0 + i) mod 8
// of block hi32(h) * num_blocks >> 32, and (if 2i + 1 < k) bit (b + o) mod 64 of the same word,
// with a = lo32(h), w0 = hi32(h) mod 8, o = 1 + ((lo32(a * M[8]) * 63) >> 32).
SIMDBLOOM_LAYOUT_SPEC(Shifting, "shifting", 5, 512, 1, 16, kXxh3)

namespace simdbloom::detail {

// The kernels' lane masks, for every k: mask[k][w0][0][w] is all ones iff word w of a key whose
// pairs start at word w0 holds a pair (2 ((w - w0) mod 8) < k), mask[k][w0][1][w] iff that pair
// has its shifted bit (2 ((w - w0) mod 8) + 1 < k). Constant, as block512's (kernels/block512/
// spec.h): a bulk call builds nothing (perf/README.md, design note M15).
constexpr uint32_t ShiftingSlot(uint32_t rel, uint32_t r) { return 2 * rel + r; }
inline constexpr LaneMasks<ShiftingSpec::kMaxK, ShiftingSlot> kShiftingLaneMasks{};

// The key's offset o(e) in 1..63: 1 + ((lo32(a * M[8]) * 63) >> 32): detail::ShiftingOffset of
// the installed header's probe math (simdbloom/detail/probes.hpp).
// Word w = (w0 + i) mod 8 of pair i and its mask: bit lo32(a * M[w]) >> 26, and the same bit
// rotated left by o if the pair has two bits (2i + 1 < k).
inline void ShiftingPair(uint64_t h, uint32_t i, uint32_t k, uint32_t* word, uint64_t* mask) {
  *word = ShiftingWord(h, i);
  *mask = ShiftingPairMask(h, i, k);
}

}  // namespace simdbloom::detail

#endif  // SIMDBLOOM_KERNELS_SHBF_M_SPEC_H_
