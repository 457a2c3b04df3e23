// SPDX-License-Identifier: Apache-2.0
// Scalar bit helpers of the layouts' probe math: the bit-selection multipliers, an unaligned u64
// load, the block index of every blocked layout and a bit set that reports a clear bit.
#ifndef SIMDBLOOM_KERNELS_BITS_H_
#define SIMDBLOOM_KERNELS_BITS_H_

#include <cstdint>
#include <cstring>

#include "simdbloom/detail/probes.hpp"

namespace simdbloom {
namespace detail {

// M[t] = 0x9E3779B9^(t+1) mod 2^32 (FORMAT.md): block512 and register64 bit selection, defined
// once with each layout's probe math in the installed header (simdbloom/detail/probes.hpp).
inline constexpr const BitMultipliers& kMultipliers = kBitMultipliers;

inline uint64_t LoadU64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Block (or word) index of every blocked layout: (hi32(h) * num_blocks) >> 32.
inline uint64_t BlockIndex(uint64_t h, uint64_t num_blocks) { return BlockOf(h, num_blocks); }

// Sets bit `bit` of *word; returns true if it was clear.
inline bool SetBit(uint64_t* word, uint32_t bit) {
  const bool was_clear = ((*word >> bit) & 1) == 0;
  *word |= uint64_t{1} << bit;
  return was_clear;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_BITS_H_
