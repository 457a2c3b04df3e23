// SPDX-License-Identifier: Apache-2.0
// simdbloom internal (detail/one_key.hpp): what the AVX2 and AVX-512 single-key paths share: the
// vector constants, block512's probe bits, split_block256's masks and probes. In the path's own
// inline namespace (one_key_avx2 or one_key_avx512), as everything compiled with the caller's
// instruction set. Not an API of its own.
// First the chooser (one_key.hpp), which includes this file where its path needs it: included
// first, this file brings it, and its code then comes after what it needs.
#include "simdbloom/detail/one_key.hpp"

#ifndef SIMDBLOOM_DETAIL_ONE_KEY_X86_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_X86_HPP_

#if defined(SIMDBLOOM_ONE_KEY_AVX512) || defined(SIMDBLOOM_ONE_KEY_AVX2)
#include <immintrin.h>

namespace simdbloom::detail {
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
  alignas(64) uint64_t mult64[16];  // M[0..15] in 64-bit lanes (the spatial and counting cells)
  int64_t lane64[8];                // 0..7 in 64-bit lanes
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

// split_block256's probes, the same on both paths: their OneKey derives from this.
struct OneKeyX86 {
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

}  // namespace one_key_avx512 / one_key_avx2
}  // namespace simdbloom::detail
#endif

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_X86_HPP_
