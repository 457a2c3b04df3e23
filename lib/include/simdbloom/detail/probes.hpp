// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because Filter's single-key calls are inline: each layout's probe
// math for one key (which word and bit a probe of hash h selects, lib/FORMAT.md), written once.
// Scalar, constexpr, no target flags, no memory access. Derived from it: the header's inline
// single-key path (one_key/scalar.hpp; one_key.hpp's vector paths use its constants and are tested
// against it), the library's scalar code and the oracle (kernels/<layout>/scalar.h, spec.h;
// kernels/scalar/probes.h) and the kernels' constants (kernels/bits.h,
// kernels/split_block256/spec.h). The SIMD kernels (kernels/<layout>/ kernel-inl.h) compute the
// same bits lane-parallel and are tested bit for bit against the oracle
// (tests/equivalence_test.cc); tests/one_key/ compares the inline path with the oracle.
// Not an API of its own (names and signatures may change in any release).
#ifndef SIMDBLOOM_DETAIL_PROBES_HPP_
#define SIMDBLOOM_DETAIL_PROBES_HPP_

#include <cstdint>

namespace simdbloom {
namespace detail {

// Block (or word) of a hash in every blocked layout: (hi32(h) * num_blocks) >> 32.
constexpr uint64_t BlockOf(uint64_t h, uint64_t num_blocks) {
  return ((h >> 32) * num_blocks) >> 32;
}

// M[t] = 0x9E3779B9^(t+1) mod 2^32: bit selection of block512, register64, shifting and spatial.
struct BitMultipliers {
  uint32_t m[16];
  constexpr BitMultipliers() : m() {
    uint32_t c = 1;
    for (int t = 0; t < 16; ++t) {
      c *= 0x9E3779B9u;
      m[t] = c;
    }
  }
};
constexpr BitMultipliers kBitMultipliers{};

// The eight salts of Parquet's split block Bloom filter.
constexpr uint32_t kSplitSalt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                    0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

// ---- block512 (k <= 16) ----
// Probe i of hash h: u64 word w = (hi32(h) + i) mod 8 of the key's block, bit
// lo32(lo32(h) * M[8r + w]) >> 26 with r = i / 8.
constexpr uint32_t Block512Word(uint64_t h, uint32_t i) {
  return (static_cast<uint32_t>(h >> 32) + i) & 7;
}
constexpr uint32_t Block512Bit(uint64_t h, uint32_t i) {
  return (static_cast<uint32_t>(h) * kBitMultipliers.m[(i & 8) + Block512Word(h, i)]) >> 26;
}

// ---- register64 (k <= 16) ----
// Probe i sets bit lo32(lo32(h) * M[i]) >> 26 of the key's word: all k of them. (The blocked
// counting filter's counters are numbered the same way: below.)
constexpr uint32_t Register64Bit(uint64_t h, uint32_t i) {
  return (static_cast<uint32_t>(h) * kBitMultipliers.m[i]) >> 26;
}
constexpr uint64_t Register64Mask(uint64_t h, uint32_t k) {
  uint64_t mask = 0;
  for (uint32_t i = 0; i < k; ++i) mask |= uint64_t{1} << Register64Bit(h, i);
  return mask;
}

// ---- counting, blocked (k <= 16; lib/FORMAT.md "Counting filters") ----
// Counter c of an array of 4-bit counters is nibble c: bits 4 (c mod 16) .. +3 of u64 word c / 16.
// The blocked geometry's counters are register64's bits over 2 * num_blocks words: a key's 64
// counters are the 4 u64 words from word CountingBlockedWords(h, num_blocks) (half a 64-byte
// block), its counter i (< k) is c = Register64Bit(h, i) of them. The vector paths take word and
// shift from the product p = lo32(h) * M[i] (c = p >> 26): word p >> kCounterWordOfProduct, shift
// (p >> kCounterShiftOfProduct) & kCounterShiftMask.
constexpr uint32_t kCountingWordsPerKey = 4;
constexpr uint64_t CountingBlockedWords(uint64_t h, uint64_t num_blocks) {
  return kCountingWordsPerKey * BlockOf(h, 2 * num_blocks);
}
constexpr uint64_t CounterWord(uint64_t c) { return c >> 4; }
constexpr uint32_t CounterShift(uint64_t c) { return static_cast<uint32_t>(4 * (c & 15)); }
constexpr int kCounterWordOfProduct = 26 + 4;
constexpr int kCounterShiftOfProduct = 26 - 2;
constexpr uint32_t kCounterShiftMask = 0x3C;
static_assert(CounterWord(0xFFFFFFFFu >> 26) == (0xFFFFFFFFu >> kCounterWordOfProduct) &&
                  CounterShift(0x9E3779B9u >> 26) ==
                      ((0x9E3779B9u >> kCounterShiftOfProduct) & kCounterShiftMask),
              "the vector form of the counter's word and shift");

// ---- split_block256 (Parquet; k = 8) ----
// u32 word i (0..7) of the key's 256-bit block gets bit (lo32(h) * salt[i]) >> 27.
constexpr uint32_t SplitBlock256Bit(uint64_t h, uint32_t i) {
  return (static_cast<uint32_t>(h) * kSplitSalt[i]) >> 27;
}

// ---- classic (k <= 32, bits anywhere in m = 512 * num_blocks bits) ----
// The 128-bit product of GCC and Clang; __extension__ keeps -Wpedantic quiet in users' code
// (ISO C++ has no __int128).
__extension__ typedef unsigned __int128 Uint128;
// Probe i's bit is floor(g_i * m / 2^64), g_0 = h, g_{i+1} = g_i + rotl(h, 32).
constexpr uint64_t ClassicStep(uint64_t h) { return (h << 32) | (h >> 32); }
constexpr uint64_t ClassicBit(uint64_t g, uint64_t num_blocks) {
  return static_cast<uint64_t>((static_cast<Uint128>(g) * (num_blocks * 512)) >> 64);
}

// ---- shifting (k <= 16, ceil(k / 2) pairs in a 512-bit block) ----
// The key's offset o in 1..63: 1 + ((lo32(lo32(h) * M[8]) * 63) >> 32).
constexpr uint32_t ShiftingOffset(uint64_t h) {
  return 1 + static_cast<uint32_t>(
                 (uint64_t{static_cast<uint32_t>(h) * kBitMultipliers.m[8]} * 63) >> 32);
}
// Pair i: u64 word w = (hi32(h) + i) mod 8, bit b = lo32(lo32(h) * M[w]) >> 26, and bit
// (b + o) mod 64 too if the pair has two bits (2i + 1 < k).
constexpr uint32_t ShiftingWord(uint64_t h, uint32_t i) {
  return (static_cast<uint32_t>(h >> 32) + i) & 7;
}
constexpr uint64_t ShiftingPairMask(uint64_t h, uint32_t i, uint32_t k) {
  const uint32_t b = (static_cast<uint32_t>(h) * kBitMultipliers.m[ShiftingWord(h, i)]) >> 26;
  return (uint64_t{1} << b) |
         (2 * i + 1 < k ? uint64_t{1} << ((b + ShiftingOffset(h)) & 63) : uint64_t{0});
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_DETAIL_PROBES_HPP_
