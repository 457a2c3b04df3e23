// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because Filter's single-key calls are inline: the probe of one key
// for block512, split_block256 and register64 (and, on AVX2 / AVX-512, the cells of one key of
// SpatialFilter::classify with 1-byte cells and CountingFilter::contains / count, blocked),
// compiled in the CALLER's translation unit with the caller's instruction set. Included by
// single_key.hpp; not an API of its own.
//
// Which code runs is chosen by the caller's predefined macros, never at run time:
//   __AVX512F__ + BW + DQ + VL (-march=x86-64-v4, or native on AVX-512 machines): the 8 words'
//       masks of a block512 key in one 512-bit vector (a multiply, a shift and a variable shift
//       for all probes at once), tested with one ternary-logic op and a mask test;
//   __AVX2__ (-march=x86-64-v3, or native on AVX2 machines): the same in two 256-bit halves;
//   __ARM_NEON on AArch64: the same in four 128-bit quarters;
//   otherwise (baseline x86-64, other targets, ThreadSanitizer builds): block512 and split_block256
//       by one indirect call to the library's one-key kernel (single_key.hpp's g_one_key_*): the
//       active SIMD target's where it has one (x86 with AVX2 at run time), else the scalar loops
//       of single_key.hpp; register64 by the inline scalar loop.
// Each choice lives in its own inline namespace (one_key_avx512, one_key_avx2, one_key_neon,
// one_key_portable) and Filter's inline single-key members take the namespace's `OneKey` type as a
// defaulted template argument, so two translation units built with different flags instantiate
// differently named functions: no one-definition-rule violation, and no unit ever runs another
// unit's instructions. Every path computes the same bits as the reference (kernels/reference.h);
// tests/one_key/ compiles the single-key tests at several -march levels and compares them.
#ifndef SIMDBLOOM_DETAIL_ONE_KEY_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_HPP_

#include <cstdint>

// Included at the end of single_key.hpp; included first, it brings single_key.hpp
// (SIMDBLOOM_INLINE, the probe math) before its own code.
#include "simdbloom/detail/single_key.hpp"

#if defined(__SANITIZE_THREAD__)
#define SIMDBLOOM_ONE_KEY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIMDBLOOM_ONE_KEY_TSAN 1
#endif
#endif

// Vector loads of words that insert_concurrent ORs into are not atomic in the C++ memory model, so
// ThreadSanitizer builds keep the relaxed atomic loads of the scalar path.
#if !defined(SIMDBLOOM_ONE_KEY_TSAN) && !defined(SIMDBLOOM_ONE_KEY_PORTABLE)
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#define SIMDBLOOM_ONE_KEY_AVX512 1
#include <immintrin.h>
#elif defined(__AVX2__)
#define SIMDBLOOM_ONE_KEY_AVX2 1
#include <immintrin.h>
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define SIMDBLOOM_ONE_KEY_NEON 1
#include <arm_neon.h>
#endif
#endif

namespace simdbloom {
namespace detail {

#if defined(SIMDBLOOM_ONE_KEY_AVX512) || defined(SIMDBLOOM_ONE_KEY_AVX2)
#if defined(SIMDBLOOM_ONE_KEY_AVX512)
inline namespace one_key_avx512 {
#else
inline namespace one_key_avx2 {
#endif

// The vector constants, as memory operands (a broadcast from an immediate costs two instructions
// inside the caller's loop, a folded load none).
struct alignas(64) OneKeyConstants {
  uint32_t mult[16];  // block512's bit multipliers M[0..15]
  uint32_t salt[8];   // split_block256's salts
  int32_t lane[8];    // 0..7
  int32_t seven[8];
  int32_t sixty_four[8];
  uint64_t mult64[16];  // M[0..15] in 64-bit lanes (the spatial and counting cells)
  int64_t lane64[8];    // 0..7 in 64-bit lanes
};
inline constexpr OneKeyConstants kOneKeyConstants = {
    {kBitMultipliers.m[0], kBitMultipliers.m[1], kBitMultipliers.m[2], kBitMultipliers.m[3],
     kBitMultipliers.m[4], kBitMultipliers.m[5], kBitMultipliers.m[6], kBitMultipliers.m[7],
     kBitMultipliers.m[8], kBitMultipliers.m[9], kBitMultipliers.m[10], kBitMultipliers.m[11],
     kBitMultipliers.m[12], kBitMultipliers.m[13], kBitMultipliers.m[14], kBitMultipliers.m[15]},
    {kSplitSalt[0], kSplitSalt[1], kSplitSalt[2], kSplitSalt[3], kSplitSalt[4], kSplitSalt[5],
     kSplitSalt[6], kSplitSalt[7]},
    {0, 1, 2, 3, 4, 5, 6, 7},
    {7, 7, 7, 7, 7, 7, 7, 7},
    {64, 64, 64, 64, 64, 64, 64, 64},
    {kBitMultipliers.m[0], kBitMultipliers.m[1], kBitMultipliers.m[2], kBitMultipliers.m[3],
     kBitMultipliers.m[4], kBitMultipliers.m[5], kBitMultipliers.m[6], kBitMultipliers.m[7],
     kBitMultipliers.m[8], kBitMultipliers.m[9], kBitMultipliers.m[10], kBitMultipliers.m[11],
     kBitMultipliers.m[12], kBitMultipliers.m[13], kBitMultipliers.m[14], kBitMultipliers.m[15]},
    {0, 1, 2, 3, 4, 5, 6, 7}};

SIMDBLOOM_INLINE __m256i LoadConstant(const void* p) {
  return _mm256_load_si256(static_cast<const __m256i*>(p));
}

// Bit positions of the 8 words of a block512 key for probes 8s..8s+7 (s = 0 or 1): word w's is
// lo32(lo32(h) * M[8s + w]) >> 26 (used only where probe ((w - hi32(h)) & 7) + 8s exists, < k).
SIMDBLOOM_INLINE __m256i Block512Bits(uint64_t h, int s) {
  const __m256i a = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(h)));
  return _mm256_srli_epi32(_mm256_mullo_epi32(a, LoadConstant(kOneKeyConstants.mult + 8 * s)), 26);
}

// split_block256 (Parquet): word i's mask 1 << ((lo32(h) * salt[i]) >> 27), all 8 at once.
SIMDBLOOM_INLINE __m256i SplitBlock256Masks(uint64_t h) {
  const __m256i a = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(h)));
  const __m256i bits =
      _mm256_srli_epi32(_mm256_mullo_epi32(a, LoadConstant(kOneKeyConstants.salt)), 27);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), bits);
}

#if defined(SIMDBLOOM_ONE_KEY_AVX512)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which -Wmaybe-uninitialized
// reports once they are inlined into a caller built with -O2 -Wall (GCC bug 105593, fixed in 13):
// silenced for this struct, the pragma covering every inlining of it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
struct OneKey {
  static constexpr const char* kName = "avx512";
  static constexpr bool kUsesLibraryKernels = false;
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
    // the 4 words twice: the permute's index (prod >> 30) has bit 2 from beyond the counter
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
    const __m512i word = _mm512_permutexvar_epi64(_mm512_srli_epi64(prod, 30), w);
    const __m512i nibble = _mm512_and_si512(_mm512_srli_epi64(prod, 24), _mm512_set1_epi64(0x3C));
    return _mm512_mask_and_epi64(_mm512_set1_epi64(15),
                                 static_cast<__mmask8>(_bzhi_u32(0xFF, probes)),
                                 _mm512_srlv_epi64(word, nibble), _mm512_set1_epi64(15));
  }
  // The groups holding a spatial key's k (<= 8) cells: bits hi32(h) mod 8 .. + k - 1, mod 8.
  SIMDBLOOM_INLINE static __mmask8 GroupsOf(uint64_t h, uint32_t k) {
    const uint32_t low = (1u << k) - 1, w0 = static_cast<uint32_t>(h >> 32) & 7;
    return static_cast<__mmask8>(((low | (low << 8)) << w0) >> 8);
  }
#else
struct OneKey {
  static constexpr const char* kName = "avx2";
  static constexpr bool kUsesLibraryKernels = false;
  struct Masks {
    __m256i lo, hi;  // words 0-3, 4-7
  };
  SIMDBLOOM_INLINE static Masks Widen(__m256i shifts) {
    const __m256i one = _mm256_set1_epi64x(1);
    return {_mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(shifts))),
            _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(shifts, 1)))};
  }
  // Shift counts for probes 8s..8s+7: the bit position where the word's probe exists, else 64
  // (a variable shift by 64 gives an empty mask).
  SIMDBLOOM_INLINE static __m256i Shifts(uint64_t h, uint32_t k, int s) {
    const __m256i probe =
        _mm256_and_si256(_mm256_sub_epi32(LoadConstant(kOneKeyConstants.lane),
                                          _mm256_set1_epi32(static_cast<int>(h >> 32))),
                         LoadConstant(kOneKeyConstants.seven));
    const __m256i exists =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(k) - 8 * s), probe);
    return _mm256_or_si256(Block512Bits(h, s),
                           _mm256_andnot_si256(exists, LoadConstant(kOneKeyConstants.sixty_four)));
  }
  SIMDBLOOM_INLINE static Masks Block512Masks(uint64_t h, uint32_t k) {
    Masks m = Widen(Shifts(h, k, 0));
    if (k > 8) {
      const Masks m2 = Widen(Shifts(h, k, 1));
      m.lo = _mm256_or_si256(m.lo, m2.lo);
      m.hi = _mm256_or_si256(m.hi, m2.hi);
    }
    return m;
  }
  // register64: the k probes' bits in one word (probe i's count is 64, no bit, for i >= k).
  // Shift counts of probes 8s..8s+7 in lanes 0..7 (64, no bit, for probes at or past k).
  SIMDBLOOM_INLINE static __m256i Register64Shifts(uint64_t h, uint32_t k, int s) {
    const __m256i exists = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(k) - 8 * s),
                                              LoadConstant(kOneKeyConstants.lane));
    return _mm256_or_si256(Block512Bits(h, s),
                           _mm256_andnot_si256(exists, LoadConstant(kOneKeyConstants.sixty_four)));
  }
  SIMDBLOOM_INLINE static uint64_t Register64Mask(uint64_t h, uint32_t k) {
    Masks m = Widen(Register64Shifts(h, k, 0));
    if (k > 8) {
      const Masks m2 = Widen(Register64Shifts(h, k, 1));
      m.lo = _mm256_or_si256(m.lo, m2.lo);
      m.hi = _mm256_or_si256(m.hi, m2.hi);
    }
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
    // word c / 16 = prod >> 30 (mod 4): its two 32-bit halves 2c/16, 2c/16 + 1 for the permute
    const __m256i word = _mm256_and_si256(_mm256_srli_epi64(prod, 30), _mm256_set1_epi64x(3));
    const __m256i halves =
        _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi64(word, 1), _mm256_slli_epi64(word, 33)),
                        _mm256_set1_epi64x(int64_t{1} << 32));
    const __m256i nibble = _mm256_and_si256(_mm256_srli_epi64(prod, 24), _mm256_set1_epi64x(0x3C));
    const __m256i value = _mm256_and_si256(
        _mm256_srlv_epi64(_mm256_permutevar8x32_epi32(w, halves), nibble), _mm256_set1_epi64x(15));
    const __m256i lane =
        _mm256_add_epi64(LoadConstant(kOneKeyConstants.lane64), _mm256_set1_epi64x(4 * q));
    const __m256i exists = _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), lane);
    return _mm256_or_si256(value, _mm256_andnot_si256(exists, _mm256_set1_epi64x(15)));
  }
#endif
  SIMDBLOOM_INLINE static bool SplitBlock256Contains(const uint8_t* block, uint64_t h) {
    return _mm256_testc_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(block)),
                              SplitBlock256Masks(h)) != 0;
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Insert(uint8_t* block, uint64_t h) {
    auto* p = reinterpret_cast<__m256i*>(block);
    const __m256i m = SplitBlock256Masks(h), old = _mm256_load_si256(p);
    _mm256_store_si256(p, _mm256_or_si256(old, m));
    return _mm256_testc_si256(old, m) == 0;
  }
};
#if defined(SIMDBLOOM_ONE_KEY_AVX512) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace one_key_avx512 / one_key_avx2

#elif defined(SIMDBLOOM_ONE_KEY_NEON)
inline namespace one_key_neon {

struct OneKey {
  static constexpr const char* kName = "neon";
  static constexpr bool kUsesLibraryKernels = false;
  // The spatial and counting cells go out of line (detail::SpatialClassifyOutOfLine,
  // CountingCountOutOfLine): no inline path here (so no SpatialClassify8 / CountingMin).
  static constexpr bool kInlineCells = false;
  // Words 0-1, 2-3, 4-5, 6-7 of a block512 key's masks.
  struct Masks {
    uint64x2_t q[4];
  };
  // Shift counts of words 4c..4c+3 for probes 8s..8s+7 (as Shifts of the AVX2 path).
  SIMDBLOOM_INLINE static uint32x4_t Shifts(uint64_t h, uint32_t k, int s, int c) {
    const uint32_t* m = kBitMultipliers.m + 8 * s + 4 * c;
    const uint32x4_t mult = {m[0], m[1], m[2], m[3]};
    const uint32x4_t bits = vshrq_n_u32(vmulq_u32(vdupq_n_u32(static_cast<uint32_t>(h)), mult), 26);
    const uint32x4_t lane = {4u * c, 4u * c + 1, 4u * c + 2, 4u * c + 3};
    const uint32x4_t probe =
        vandq_u32(vsubq_u32(lane, vdupq_n_u32(static_cast<uint32_t>(h >> 32))), vdupq_n_u32(7));
    const uint32x4_t exists = vcltq_u32(vaddq_u32(probe, vdupq_n_u32(8u * s)), vdupq_n_u32(k));
    return vorrq_u32(bits, vbicq_u32(vdupq_n_u32(64), exists));
  }
  SIMDBLOOM_INLINE static Masks Block512Masks(uint64_t h, uint32_t k) {
    Masks r;
    const uint64x2_t one = vdupq_n_u64(1);
    for (int s = 0; s < (k > 8 ? 2 : 1); ++s) {
      for (int c = 0; c < 2; ++c) {
        const uint32x4_t sh = Shifts(h, k, s, c);
        const uint64x2_t a = vshlq_u64(one, vreinterpretq_s64_u64(vmovl_u32(vget_low_u32(sh))));
        const uint64x2_t b = vshlq_u64(one, vreinterpretq_s64_u64(vmovl_high_u32(sh)));
        r.q[2 * c] = s == 0 ? a : vorrq_u64(r.q[2 * c], a);
        r.q[2 * c + 1] = s == 0 ? b : vorrq_u64(r.q[2 * c + 1], b);
      }
    }
    return r;
  }
  SIMDBLOOM_INLINE static uint64_t Register64Mask(uint64_t h, uint32_t k) {
    return detail::Register64Mask(h, k);
  }
  SIMDBLOOM_INLINE static bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
    const Masks m = Block512Masks(h, k);
    uint64x2_t miss = vbicq_u64(m.q[0], vld1q_u64(block));
    for (int i = 1; i < 4; ++i) miss = vorrq_u64(miss, vbicq_u64(m.q[i], vld1q_u64(block + 2 * i)));
    return vmaxvq_u32(vreinterpretq_u32_u64(miss)) == 0;
  }
  SIMDBLOOM_INLINE static bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
    const Masks m = Block512Masks(h, k);
    uint64x2_t miss = vdupq_n_u64(0);
    for (int i = 0; i < 4; ++i) {
      const uint64x2_t old = vld1q_u64(block + 2 * i);
      miss = vorrq_u64(miss, vbicq_u64(m.q[i], old));
      vst1q_u64(block + 2 * i, vorrq_u64(old, m.q[i]));
    }
    return vmaxvq_u32(vreinterpretq_u32_u64(miss)) != 0;
  }
  SIMDBLOOM_INLINE static void SplitMasks(uint64_t h, uint32x4_t* lo, uint32x4_t* hi) {
    const uint32x4_t key = vdupq_n_u32(static_cast<uint32_t>(h));
    const uint32x4_t s0 = {kSplitSalt[0], kSplitSalt[1], kSplitSalt[2], kSplitSalt[3]};
    const uint32x4_t s1 = {kSplitSalt[4], kSplitSalt[5], kSplitSalt[6], kSplitSalt[7]};
    const uint32x4_t one = vdupq_n_u32(1);
    *lo = vshlq_u32(one, vreinterpretq_s32_u32(vshrq_n_u32(vmulq_u32(key, s0), 27)));
    *hi = vshlq_u32(one, vreinterpretq_s32_u32(vshrq_n_u32(vmulq_u32(key, s1), 27)));
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Contains(const uint8_t* block, uint64_t h) {
    uint32x4_t lo, hi;
    SplitMasks(h, &lo, &hi);
    const auto* w = reinterpret_cast<const uint32_t*>(block);
    const uint32x4_t miss = vorrq_u32(vbicq_u32(lo, vld1q_u32(w)), vbicq_u32(hi, vld1q_u32(w + 4)));
    return vmaxvq_u32(miss) == 0;
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Insert(uint8_t* block, uint64_t h) {
    uint32x4_t lo, hi;
    SplitMasks(h, &lo, &hi);
    auto* w = reinterpret_cast<uint32_t*>(block);
    const uint32x4_t a = vld1q_u32(w), b = vld1q_u32(w + 4);
    vst1q_u32(w, vorrq_u32(a, lo));
    vst1q_u32(w + 4, vorrq_u32(b, hi));
    return vmaxvq_u32(vorrq_u32(vbicq_u32(lo, a), vbicq_u32(hi, b))) != 0;
  }
};

}  // namespace one_key_neon

#else
inline namespace one_key_portable {

// Baseline: one indirect call to the active target's one-key kernel in the library (on x86 with
// AVX2 at run time it still beats the inline scalar loops by about 2.5x).
struct OneKey {
  static constexpr const char* kName = "portable";
  static constexpr bool kUsesLibraryKernels = true;
  // The spatial and counting cells go out of line (detail::SpatialClassifyOutOfLine,
  // CountingCountOutOfLine): no inline path here (so no SpatialClassify8 / CountingMin).
  static constexpr bool kInlineCells = false;
  SIMDBLOOM_INLINE static uint64_t Register64Mask(uint64_t h, uint32_t k) {
    return detail::Register64Mask(h, k);
  }
  SIMDBLOOM_INLINE static bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
    return Block512ContainsOne(block, h, k);
  }
  SIMDBLOOM_INLINE static bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
    return Block512InsertOne(block, h, k);
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Contains(const uint8_t* block, uint64_t h) {
    return SplitBlock256ContainsOne(block, h);
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Insert(uint8_t* block, uint64_t h) {
    return SplitBlock256InsertOne(block, h);
  }
};

}  // namespace one_key_portable
#endif

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_HPP_
