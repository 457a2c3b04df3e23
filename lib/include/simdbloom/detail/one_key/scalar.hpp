// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because Filter's single-key calls are inline: the single-key path's
// scalar part, bit-exact with the reference (kernels/reference.h) and libxxhash: the hashes of 4-
// and 8-byte keys, the relaxed word loads, and the probe loops of block512 and split_block256 (the
// library's one-key table's scalar entries, one_key/table.hpp). The probe math itself is
// probes.hpp's. Not an API of its own (names and signatures may change in any release).
//
// Why inline: a service checks one key per request or packet, and an out-of-line call, a call to
// libxxhash and a per-probe early exit (a mispredicted branch on most absent keys) cost several
// times the probe itself. Here the hash of a 4- or 8-byte key is a dozen instructions, the block
// is located with one multiply, and the probes are tested branch-free (build the block's masks,
// compare once). classic (k random lines) stays out of line: its k cache misses dwarf a call.
#ifndef SIMDBLOOM_DETAIL_ONE_KEY_SCALAR_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_SCALAR_HPP_

#include <cstdint>
#include <cstring>

#include "simdbloom/detail/compiler.hpp"
#include "simdbloom/detail/probes.hpp"

namespace simdbloom {
namespace detail {

// ---- Hashes of 4- and 8-byte keys (xxHash 0.8 XXH3_64bits_withSeed, XXH64), as libxxhash ----

constexpr uint64_t kXxh3Prime = 0x9FB21C651E98DF25ULL;  // XXH3's rrmxmx multiplier
constexpr uint64_t kXxh64P1 = 0x9E3779B185EBCA87ULL, kXxh64P2 = 0xC2B2AE3D27D4EB4FULL,
                   kXxh64P3 = 0x165667B19E3779F9ULL, kXxh64P4 = 0x85EBCA77C2B2AE63ULL,
                   kXxh64P5 = 0x27D4EB2F165667C5ULL;

constexpr uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// XXH3's bitflip of the 4..8-byte path: (kSecret[8..15] ^ kSecret[16..23]) - mixed seed.
SIMDBLOOM_INLINE uint64_t Xxh3Bitflip(uint64_t seed) {
  const uint32_t s = static_cast<uint32_t>(seed);
  const uint32_t swapped = (s >> 24) | ((s >> 8) & 0xFF00u) | ((s << 8) & 0xFF0000u) | (s << 24);
  return (0x1CAD21F72C81017CULL ^ 0xDB979083E96DD4DEULL) -
         (seed ^ (static_cast<uint64_t>(swapped) << 32));
}

SIMDBLOOM_INLINE uint64_t Xxh3Rrmxmx(uint64_t h, uint64_t len) {
  h ^= Rotl64(h, 49) ^ Rotl64(h, 24);
  h *= kXxh3Prime;
  h ^= (h >> 35) + len;
  h *= kXxh3Prime;
  return h ^ (h >> 28);
}

// XXH3_64bits_withSeed of the 8 / 4 little-endian bytes of key, from bitflip = Xxh3Bitflip(seed)
// (a filter computes it once, not per key: 6 of the path's ~20 instructions).
SIMDBLOOM_INLINE uint64_t Xxh3U64Flip(uint64_t key, uint64_t bitflip) {
  return Xxh3Rrmxmx(Rotl64(key, 32) ^ bitflip, 8);
}
SIMDBLOOM_INLINE uint64_t Xxh3U32Flip(uint32_t key, uint64_t bitflip) {
  return Xxh3Rrmxmx((key + (static_cast<uint64_t>(key) << 32)) ^ bitflip, 4);
}
// XXH3_64bits_withSeed of the 8 little-endian bytes of key.
SIMDBLOOM_INLINE uint64_t Xxh3U64(uint64_t key, uint64_t seed) {
  return Xxh3U64Flip(key, Xxh3Bitflip(seed));
}
// ... of the 4 little-endian bytes of key.
SIMDBLOOM_INLINE uint64_t Xxh3U32(uint32_t key, uint64_t seed) {
  return Xxh3U32Flip(key, Xxh3Bitflip(seed));
}

SIMDBLOOM_INLINE uint64_t Xxh64Avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= kXxh64P2;
  h ^= h >> 29;
  h *= kXxh64P3;
  return h ^ (h >> 32);
}
// XXH64 of the 8 little-endian bytes of key.
SIMDBLOOM_INLINE uint64_t Xxh64U64(uint64_t key, uint64_t seed) {
  uint64_t k1 = key * kXxh64P2;
  k1 = Rotl64(k1, 31) * kXxh64P1;
  uint64_t h = (seed + kXxh64P5 + 8) ^ k1;
  h = Rotl64(h, 27) * kXxh64P1 + kXxh64P4;
  return Xxh64Avalanche(h);
}
// ... of the 4 little-endian bytes of key.
SIMDBLOOM_INLINE uint64_t Xxh64U32(uint32_t key, uint64_t seed) {
  uint64_t h = (seed + kXxh64P5 + 4) ^ (static_cast<uint64_t>(key) * kXxh64P1);
  h = Rotl64(h, 23) * kXxh64P2 + kXxh64P3;
  return Xxh64Avalanche(h);
}

// ---- Probes (lib/FORMAT.md) ----

// Words are read with relaxed atomic loads (a plain load on x86 and Arm): queries may run while
// other threads insert_concurrent (atomic ORs) into the same words, and that is then no data race.
SIMDBLOOM_INLINE uint64_t LoadWord(const uint64_t* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
SIMDBLOOM_INLINE uint32_t LoadWord32(const uint32_t* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

// block512, k <= 16: probe i of hash h sets bit lo32(a * M[8r + w]) >> 26 of word w = (w0 + i) & 7,
// r = i >> 3 (a = lo32(h), w0 = hi32(h) & 7). All k probes are tested, without an early exit
// (the first clear bit of an absent key is unpredictable); the loop runs k times for every key of
// a filter, which the branch predictor learns. (Masks for all 8 words, branch-free, were slower:
// 8 variable shifts through CL on baseline x86-64.)
SIMDBLOOM_INLINE bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
  uint64_t missing = 0;
  for (uint32_t i = 0; i < k; ++i) {
    missing |= ~LoadWord(block + Block512Word(h, i)) >> Block512Bit(h, i);
  }
  return (missing & 1) == 0;
}
// Sets the probes; returns true iff one of them was clear.
SIMDBLOOM_INLINE bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
  uint64_t missing = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t w = Block512Word(h, i), bit = Block512Bit(h, i);
    const uint64_t old = block[w];
    missing |= ~old >> bit;
    block[w] = old | (uint64_t{1} << bit);
  }
  return (missing & 1) != 0;
}

// register64: Register64Mask (probes.hpp) ORed into / tested against the key's word.

// split_block256 (Parquet): 32-bit word i of the block gets bit (lo32(h) * salt[i]) >> 27.
SIMDBLOOM_INLINE bool SplitBlock256Contains(const uint8_t* block, uint64_t h) {
  const uint32_t* words = reinterpret_cast<const uint32_t*>(block);  // 32-byte aligned
  uint32_t missing = 0;
  SIMDBLOOM_UNROLL8
  for (uint32_t i = 0; i < 8; ++i) {
    missing |= (uint32_t{1} << SplitBlock256Bit(h, i)) & ~LoadWord32(words + i);
  }
  return missing == 0;
}
SIMDBLOOM_INLINE bool SplitBlock256Insert(uint8_t* block, uint64_t h) {
  uint32_t missing = 0;
  SIMDBLOOM_UNROLL8
  for (uint32_t i = 0; i < 8; ++i) {
    uint32_t word;
    std::memcpy(&word, block + 4 * i, 4);
    const uint32_t bit = uint32_t{1} << SplitBlock256Bit(h, i);
    missing |= bit & ~word;
    word |= bit;
    std::memcpy(block + 4 * i, &word, 4);
  }
  return missing != 0;
}

// What the paths without inline cells share (one_key/neon.hpp, portable.hpp; their OneKey derives
// from it): register64's mask by the scalar loop; the spatial and counting cells out of line
// (detail::SpatialClassifyOutOfLine, CountingCountOutOfLine), so no SpatialClassify8 / CountingMin.
struct OneKeyCellsOutOfLine {
  static constexpr bool kInlineCells = false;
  SIMDBLOOM_INLINE static uint64_t Register64Mask(uint64_t h, uint32_t k) {
    return detail::Register64Mask(h, k);
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_SCALAR_HPP_
