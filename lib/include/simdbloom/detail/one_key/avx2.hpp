// SPDX-License-Identifier: Apache-2.0
// simdbloom internal (detail/one_key.hpp): the single-key path of callers compiled for AVX2
// (-march=x86-64-v3, or native on AVX2 machines): the AVX-512 path's masks and cells in two 256-bit
// halves. Not an API of its own.
// First the chooser (one_key.hpp), which includes this file where its path needs it: included
// first, this file brings it, and its code then comes after what it needs.
#include "simdbloom/detail/one_key.hpp"

#ifndef SIMDBLOOM_DETAIL_ONE_KEY_AVX2_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_AVX2_HPP_

#include "simdbloom/detail/one_key/x86.hpp"

#if defined(SIMDBLOOM_ONE_KEY_AVX2)
namespace simdbloom::detail {
inline namespace one_key_avx2 {

// Which words hold a probe of one round of a block512 key: in round s, word w holds probe
// ((w - r) & 7) + 8s with r = hi32(h) & 7, which exists if it is below k, so the answer depends
// on r and on p = k - 8s (0..16; 8 and more: every word) alone: one load of absent[p][r] (0 where
// word w holds a probe, else 64, the shift count that empties its mask) replaces the broadcasts
// and compares that derive it, 10 instructions a key (perf/README.md, design note M26).
// register64: r = 0 (lane i holds probe i).
struct alignas(64) OneKeyHolders {
  int32_t absent[17][8][8];
};
constexpr OneKeyHolders MakeOneKeyHolders() {
  OneKeyHolders t{};
  for (int p = 0; p <= 16; ++p) {
    for (int r = 0; r < 8; ++r) {
      for (int w = 0; w < 8; ++w) t.absent[p][r][w] = ((w - r) & 7) < p ? 0 : 64;
    }
  }
  return t;
}
inline constexpr OneKeyHolders kOneKeyHolders = MakeOneKeyHolders();

struct OneKey : OneKeyX86 {
  static constexpr const char* kName = "avx2";
  struct Masks {
    __m256i lo, hi;  // words 0-3, 4-7
  };
  SIMDBLOOM_INLINE static Masks Widen(__m256i shifts) {
    const __m256i one = _mm256_set1_epi64x(1);
    return {_mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(shifts))),
            _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(shifts, 1)))};
  }
  // Shift counts for the words' probes 8s..8s+7, r = (word 0's probe index) & 7: each word's bit
  // position where its probe exists (below k), else 64 (a variable shift by 64 gives an empty
  // mask), from kOneKeyHolders.
  SIMDBLOOM_INLINE static __m256i ShiftsAt(uint64_t h, uint32_t k, int s, uint64_t r) {
    return _mm256_or_si256(
        Block512Bits(h, s),
        LoadConstant(kOneKeyHolders.absent[k - 8 * static_cast<uint32_t>(s)][r]));
  }
  // block512: word w holds probe ((w - hi32(h)) & 7) + 8s.
  SIMDBLOOM_INLINE static __m256i Shifts(uint64_t h, uint32_t k, int s) {
    return ShiftsAt(h, k, s, (h >> 32) & 7);
  }
  // The masks of probes 0..k-1: block512's words, or (register64) lane i's probe i.
  SIMDBLOOM_INLINE static Masks MasksOf(uint64_t h, uint32_t k, bool register64) {
    Masks m = Widen(register64 ? Register64Shifts(h, k, 0) : Shifts(h, k, 0));
    if (k > 8) {
      const Masks m2 = Widen(register64 ? Register64Shifts(h, k, 1) : Shifts(h, k, 1));
      m.lo = _mm256_or_si256(m.lo, m2.lo);
      m.hi = _mm256_or_si256(m.hi, m2.hi);
    }
    return m;
  }
  SIMDBLOOM_INLINE static Masks Block512Masks(uint64_t h, uint32_t k) {
    return MasksOf(h, k, false);
  }
  // register64: the k probes' bits in one word; lane i holds probe 8s + i.
  SIMDBLOOM_INLINE static __m256i Register64Shifts(uint64_t h, uint32_t k, int s) {
    return ShiftsAt(h, k, s, 0);
  }
  SIMDBLOOM_INLINE static uint64_t Register64Mask(uint64_t h, uint32_t k) {
    const Masks m = MasksOf(h, k, true);
    const __m256i a = _mm256_or_si256(m.lo, m.hi);
    const __m128i b = _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_or_si128(b, _mm_unpackhi_epi64(b, b))));
  }
  SIMDBLOOM_INLINE static bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
    const Masks m = Block512Masks(h, k);
    const auto* p = reinterpret_cast<const __m256i*>(block);
    // testc: (~block & mask) == 0, the probes all set.
    return (_mm256_testc_si256(_mm256_load_si256(p), m.lo) &
            _mm256_testc_si256(_mm256_load_si256(p + 1), m.hi)) != 0;
  }
  SIMDBLOOM_INLINE static bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
    const Masks m = Block512Masks(h, k);
    auto* p = reinterpret_cast<__m256i*>(block);
    const __m256i lo = _mm256_load_si256(p), hi = _mm256_load_si256(p + 1);
    _mm256_store_si256(p, _mm256_or_si256(lo, m.lo));
    _mm256_store_si256(p + 1, _mm256_or_si256(hi, m.hi));
    return (_mm256_testc_si256(lo, m.lo) & _mm256_testc_si256(hi, m.hi)) == 0;
  }
  // The spatial and counting cells as the AVX-512 path computes them, lanes 0-3 and 4-7 in two
  // 256-bit halves.
  static constexpr bool kInlineCells = true;
  SIMDBLOOM_INLINE static __m256i Products(uint64_t h, int q) {
    return _mm256_mul_epu32(_mm256_set1_epi64x(static_cast<long long>(h)),
                            LoadConstant(kOneKeyConstants.mult64 + 4 * q));
  }
  // The smallest of the 8 lanes' low 16 bits (each lane's value below 2^16).
  SIMDBLOOM_INLINE static uint32_t MinOf(__m256i lo, __m256i hi) {
    const __m256i both = _mm256_or_si256(lo, _mm256_slli_epi64(hi, 32));
    const __m128i packed =
        _mm_packus_epi32(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
    return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(packed))) & 0xFFFF;
  }
  SIMDBLOOM_INLINE static uint32_t SpatialClassify8(const uint8_t* block, uint64_t h, uint32_t k) {
    return MinOf(SpatialHalf(block, h, k, 0), SpatialHalf(block, h, k, 1));
  }
  // Groups 4q..4q+3's cells (0xFFFF for groups the key does not probe).
  SIMDBLOOM_INLINE static __m256i SpatialHalf(const uint8_t* block, uint64_t h, uint32_t k, int q) {
    const __m256i at =
        _mm256_and_si256(_mm256_srli_epi64(Products(h, q), 26), _mm256_set1_epi64x(0x38));
    const __m256i cells = _mm256_and_si256(
        _mm256_srlv_epi64(_mm256_load_si256(reinterpret_cast<const __m256i*>(block) + q), at),
        _mm256_set1_epi64x(0xFF));
    const __m256i probe = _mm256_and_si256(
        _mm256_sub_epi64(LoadConstant(kOneKeyConstants.lane64 + 4 * q),
                         _mm256_set1_epi64x(static_cast<long long>((h >> 32) & 7))),
        _mm256_set1_epi64x(7));
    const __m256i probed = _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), probe);
    return _mm256_or_si256(cells, _mm256_andnot_si256(probed, _mm256_set1_epi64x(0xFFFF)));
  }
  SIMDBLOOM_INLINE static uint32_t CountingMin(const uint64_t* words, uint64_t h, uint32_t k) {
    const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(words));
    __m256i lo = Counters(w, h, k, 0), hi = Counters(w, h, k, 1);
    if (k > 8) {
      lo = _mm256_min_epu32(lo, Counters(w, h, k, 2));  // values below 16: the u32 min is the u64
      hi = _mm256_min_epu32(hi, Counters(w, h, k, 3));
    }
    return MinOf(lo, hi);
  }
  // Probes 4q..4q+3's counters (15 for probes at or past k).
  SIMDBLOOM_INLINE static __m256i Counters(__m256i w, uint64_t h, uint32_t k, int q) {
    const __m256i prod = Products(h, q);
    // the counter's word (mod 4; probes.hpp, "counting, blocked"): its two 32-bit halves 2c/16,
    // 2c/16 + 1 for the permute
    const __m256i word = _mm256_and_si256(_mm256_srli_epi64(prod, kCounterWordOfProduct),
                                          _mm256_set1_epi64x(kCountingWordsPerKey - 1));
    const __m256i halves =
        _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi64(word, 1), _mm256_slli_epi64(word, 33)),
                        _mm256_set1_epi64x(int64_t{1} << 32));
    const __m256i nibble = _mm256_and_si256(_mm256_srli_epi64(prod, kCounterShiftOfProduct),
                                            _mm256_set1_epi64x(kCounterShiftMask));
    const __m256i value = _mm256_and_si256(
        _mm256_srlv_epi64(_mm256_permutevar8x32_epi32(w, halves), nibble), _mm256_set1_epi64x(15));
    const __m256i lane =
        _mm256_add_epi64(LoadConstant(kOneKeyConstants.lane64), _mm256_set1_epi64x(4 * q));
    const __m256i exists = _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), lane);
    return _mm256_or_si256(value, _mm256_andnot_si256(exists, _mm256_set1_epi64x(15)));
  }
};

}  // namespace one_key_avx2
}  // namespace simdbloom::detail
#endif  // SIMDBLOOM_ONE_KEY_AVX2

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_AVX2_HPP_
