// SPDX-License-Identifier: Apache-2.0
// simdbloom internal (detail/one_key.hpp): the single-key path of callers compiled for NEON on
// AArch64: block512's and split_block256's masks in four / two 128-bit quarters. The spatial and
// counting cells go out of line. Not an API of its own.
// First the chooser (one_key.hpp), which includes this file where its path needs it: included
// first, this file brings it, and its code then comes after what it needs.
#include "simdbloom/detail/one_key.hpp"

#ifndef SIMDBLOOM_DETAIL_ONE_KEY_NEON_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_NEON_HPP_

#if defined(SIMDBLOOM_ONE_KEY_NEON)
#include <arm_neon.h>

namespace simdbloom::detail {
inline namespace one_key_neon {

struct OneKey : OneKeyCellsOutOfLine {
  static constexpr const char* kName = "neon";
  // Words 0-1, 2-3, 4-5, 6-7 of a block512 key's masks.
  struct Masks {
    uint64x2_t q[4];
  };
  // Shift counts of words 4c..4c+3 for probes 8s..8s+7 (as Shifts of the AVX2 path).
  SIMDBLOOM_INLINE static uint32x4_t Shifts(uint64_t h, uint32_t k, int s, int c) {
    const uint32_t* m = kBitMultipliers.m + 8 * s + 4 * c;
    const uint32x4_t mult = {m[0], m[1], m[2], m[3]};
    const uint32x4_t bits = vshrq_n_u32(vmulq_u32(vdupq_n_u32(static_cast<uint32_t>(h)), mult), 26);
    const uint32_t first = 4u * static_cast<uint32_t>(c);
    const uint32x4_t lane = {first, first + 1, first + 2, first + 3};
    const uint32x4_t probe =
        vandq_u32(vsubq_u32(lane, vdupq_n_u32(static_cast<uint32_t>(h >> 32))), vdupq_n_u32(7));
    const uint32x4_t exists =
        vcltq_u32(vaddq_u32(probe, vdupq_n_u32(8u * static_cast<uint32_t>(s))), vdupq_n_u32(k));
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
}  // namespace simdbloom::detail
#endif  // SIMDBLOOM_ONE_KEY_NEON

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_NEON_HPP_
