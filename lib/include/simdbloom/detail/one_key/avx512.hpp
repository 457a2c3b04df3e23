// SPDX-License-Identifier: Apache-2.0
// simdbloom internal (detail/one_key.hpp): the single-key path of callers compiled for AVX-512
// (F, BW, DQ, VL: -march=x86-64-v4, or native on AVX-512 machines): the 8 words' masks of a
// block512 key in one 512-bit vector (a multiply, a shift and a variable shift for all probes at
// once), tested with one ternary-logic op and a mask test; register64's mask, and the spatial and
// counting cells of one key, in one vector too. Not an API of its own.
// First the chooser (one_key.hpp), which includes this file where its path needs it: included
// first, this file brings it, and its code then comes after what it needs.
#include "simdbloom/detail/one_key.hpp"

#ifndef SIMDBLOOM_DETAIL_ONE_KEY_AVX512_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_AVX512_HPP_

#include "simdbloom/detail/one_key/x86.hpp"

#if defined(SIMDBLOOM_ONE_KEY_AVX512)
namespace simdbloom::detail {
inline namespace one_key_avx512 {

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which -Wmaybe-uninitialized
// reports once they are inlined into a caller built with -O2 -Wall (GCC bug 105593, fixed in 13):
// silenced for this struct, the pragma covering every inlining of it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
struct OneKey : OneKeyX86 {
  static constexpr const char* kName = "avx512";
  // The words that hold probes 8s..8s+7 of a key: word w holds probe ((w - hi32(h)) & 7) + 8s,
  // which exists if it is below k (a compare into a mask register).
  SIMDBLOOM_INLINE static __mmask8 Holders(uint64_t h, uint32_t probes) {
    const __m256i probe =
        _mm256_and_si256(_mm256_sub_epi32(LoadConstant(kOneKeyConstants.lane),
                                          _mm256_set1_epi32(static_cast<int>(h >> 32))),
                         LoadConstant(kOneKeyConstants.seven));
    return _mm256_cmplt_epu32_mask(probe, _mm256_set1_epi32(static_cast<int>(probes)));
  }
  SIMDBLOOM_INLINE static __m512i Block512Masks(uint64_t h, uint32_t k) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i m =
        _mm512_maskz_sllv_epi64(Holders(h, k), one, _mm512_cvtepu32_epi64(Block512Bits(h, 0)));
    if (k > 8) {
      m = _mm512_mask_or_epi64(m, Holders(h, k - 8), m,
                               _mm512_sllv_epi64(one, _mm512_cvtepu32_epi64(Block512Bits(h, 1))));
    }
    return m;
  }
  // register64: the k probes' bits in one word, probe i at lo32(lo32(h) * M[i]) >> 26.
  SIMDBLOOM_INLINE static uint64_t Register64Mask(uint64_t h, uint32_t k) {
    const __m512i one = _mm512_set1_epi64(1);
    __m512i m = _mm512_maskz_sllv_epi64(static_cast<__mmask8>(_bzhi_u32(0xFF, k)), one,
                                        _mm512_cvtepu32_epi64(Block512Bits(h, 0)));
    if (k > 8) {
      m = _mm512_mask_or_epi64(m, static_cast<__mmask8>(_bzhi_u32(0xFF, k - 8)), m,
                               _mm512_sllv_epi64(one, _mm512_cvtepu32_epi64(Block512Bits(h, 1))));
    }
    return static_cast<uint64_t>(_mm512_reduce_or_epi64(m));
  }
  SIMDBLOOM_INLINE static bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
    const __m512i m = Block512Masks(h, k);
    // m & ~block (0x40: A and B set, C clear): the probes whose bit is clear.
    const __m512i miss = _mm512_ternarylogic_epi64(m, m, _mm512_load_si512(block), 0x40);
    return _mm512_test_epi64_mask(miss, miss) == 0;
  }
  SIMDBLOOM_INLINE static bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
    const __m512i m = Block512Masks(h, k);
    const __m512i old = _mm512_load_si512(block);
    _mm512_store_si512(block, _mm512_or_si512(old, m));
    const __m512i miss = _mm512_ternarylogic_epi64(m, m, old, 0x40);
    return _mm512_test_epi64_mask(miss, miss) != 0;
  }
  // The spatial and counting cells (SpatialFilter::classify, CountingFilter::contains / count of
  // one key) are inline on this path.
  static constexpr bool kInlineCells = true;
  // Lane i of the products lo32(h) * M[8s + i] (64-bit lanes; bits 0..31 are lo32(lo32(h) * M)).
  SIMDBLOOM_INLINE static __m512i Products(uint64_t h, int s) {
    return _mm512_mul_epu32(_mm512_set1_epi64(static_cast<long long>(h)),
                            _mm512_load_si512(kOneKeyConstants.mult64 + 8 * s));
  }
  // The smallest of 8 lanes' low 16 bits (one phminposuw).
  SIMDBLOOM_INLINE static uint32_t MinOf(__m512i v) {
    return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_minpos_epu16(_mm512_cvtepi64_epi16(v)))) &
           0xFFFF;
  }
  // spatial, 1-byte cells (k <= 8): group g's cell lo32(lo32(h) * M[g]) >> 29 is byte
  // (prod >> 29) & 7 of word g, where g is probed iff (g - hi32(h)) mod 8 < k; the smallest of
  // the probed cells (unprobed groups read as 0xFFFF).
  SIMDBLOOM_INLINE static uint32_t SpatialClassify8(const uint8_t* block, uint64_t h, uint32_t k) {
    const __m512i at =
        _mm512_and_si512(_mm512_srli_epi64(Products(h, 0), 26), _mm512_set1_epi64(0x38));
    const __m512i cells = _mm512_srlv_epi64(_mm512_load_si512(block), at);
    return MinOf(_mm512_mask_and_epi64(_mm512_set1_epi64(0xFFFF), GroupsOf(h, k), cells,
                                       _mm512_set1_epi64(0xFF)));
  }
  // Counting, blocked (k <= 16): probe i's counter c = lo32(lo32(h) * M[i]) >> 26 is nibble c mod
  // 16 of word c / 16 of the key's 4 words; the smallest of the k counters.
  SIMDBLOOM_INLINE static uint32_t CountingMin(const uint64_t* words, uint64_t h, uint32_t k) {
    // the 4 words twice: the permute's index (the counter's word, probes.hpp) has bit 2 from beyond
    // the counter
    const __m512i w =
        _mm512_broadcast_i64x4(_mm256_load_si256(reinterpret_cast<const __m256i*>(words)));
    __m512i m = Counters(w, h, 0, k);
    if (k > 8) m = _mm512_min_epu64(m, Counters(w, h, 1, k - 8));
    return MinOf(m);
  }
  // Probes 8s..8s+7's counters (15 for the lanes at or past `probes`). (Helpers are members, not
  // lambdas: a lambda is not always inlined, and unoptimized builds would emit it as a weak
  // symbol that two units with different flags could share.)
  SIMDBLOOM_INLINE static __m512i Counters(__m512i w, uint64_t h, int s, uint32_t probes) {
    const __m512i prod = Products(h, s);
    const __m512i word =
        _mm512_permutexvar_epi64(_mm512_srli_epi64(prod, kCounterWordOfProduct), w);
    const __m512i nibble = _mm512_and_si512(_mm512_srli_epi64(prod, kCounterShiftOfProduct),
                                            _mm512_set1_epi64(kCounterShiftMask));
    return _mm512_mask_and_epi64(_mm512_set1_epi64(15),
                                 static_cast<__mmask8>(_bzhi_u32(0xFF, probes)),
                                 _mm512_srlv_epi64(word, nibble), _mm512_set1_epi64(15));
  }
  // The groups holding a spatial key's k (<= 8) cells: bits hi32(h) mod 8 .. + k - 1, mod 8.
  SIMDBLOOM_INLINE static __mmask8 GroupsOf(uint64_t h, uint32_t k) {
    const uint32_t low = (1u << k) - 1, w0 = static_cast<uint32_t>(h >> 32) & 7;
    return static_cast<__mmask8>(((low | (low << 8)) << w0) >> 8);
  }
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace one_key_avx512
}  // namespace simdbloom::detail
#endif  // SIMDBLOOM_ONE_KEY_AVX512

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_AVX512_HPP_
