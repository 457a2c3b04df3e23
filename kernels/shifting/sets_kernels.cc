// Per-target unit of the shifting set filters' candidates kernel (kernels/shifting/sets.h): for
// each key, its cache line's 8 words rotated right by the key's 8 bit positions and ANDed — a
// vector of 8 u64 lanes per key (one on AVX-512, with vprorvq), word by word on HWY_SCALAR.
// Exported like the layouts' units (kernels/simd/export.h).
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/shifting/sets_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/shared.h"
#include "kernels/shifting/sets.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline uint64_t Rotr64(uint64_t x, uint32_t r) { return (x >> r) | (x << ((64 - r) & 63)); }

#if HWY_TARGET != HWY_SCALAR
// Each lane of w rotated right by the lane of `bits` (0..63).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V RotrLanes(D d, V w, V bits) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (sizeof(w.raw) == 64) {
    (void)d;
    return V{_mm512_rorv_epi64(w.raw, bits.raw)};
  }
#endif
  // bits = 0: both shifts by 0, w | w = w.
  return hn::Or(ShrVar(w, bits), ShlVar(w, hn::And(hn::Sub(hn::Set(d, uint64_t{64}), bits),
                                                   hn::Set(d, uint64_t{63}))));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE uint64_t AndOfLanes(D d, V v) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (sizeof(v.raw) == 64) {
    (void)d;
    return static_cast<uint64_t>(_mm512_reduce_and_epi64(v.raw));
  }
#endif
  HWY_ALIGN uint64_t lanes[HWY_MAX_BYTES / sizeof(uint64_t)];
  hn::Store(v, d, lanes);
  uint64_t r = ~uint64_t{0};
  for (size_t i = 0; i < hn::Lanes(d); ++i) r &= lanes[i];
  return r;
}
#endif

// Prefetches the block of key q of the tile (q < m), or of key q - m of the next tile.
HWY_INLINE void PrefetchAhead(const uint64_t* words, uint64_t nb, const uint64_t* hashes, size_t m,
                              const uint64_t* next, size_t next_m, size_t q) {
  if (q < m) {
    PrefetchLine<detail::Op::kQuery>(words + 8 * detail::BlockIndex(hashes[q], nb));
  } else if (q - m < next_m) {
    PrefetchLine<detail::Op::kQuery>(words + 8 * detail::BlockIndex(next[q - m], nb));
  }
}

void SetCandidates(const uint64_t* words, uint64_t nb, const uint64_t* hashes, size_t m,
                   const uint64_t* next, size_t next_m, uint64_t* out) {
  constexpr size_t D = detail::kShiftingSetsAhead;
#if HWY_TARGET == HWY_SCALAR
  for (size_t i = 0; i < m; ++i) {
    PrefetchAhead(words, nb, hashes, m, next, next_m, i + D);
    const uint64_t h = hashes[i];
    const uint64_t* block = words + 8 * detail::BlockIndex(h, nb);
    const uint32_t a = static_cast<uint32_t>(h);
    uint64_t c = ~uint64_t{0};
    for (uint32_t w = 0; w < 8; ++w) c &= Rotr64(block[w], (a * detail::kMultipliers.m[w]) >> 26);
    out[i] = c;
  }
#else
  const hn::CappedTag<uint64_t, 8> d;
  const hn::Repartition<uint32_t, decltype(d)> d32;
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < m; ++i) {
    PrefetchAhead(words, nb, hashes, m, next, next_m, i + D);
    const uint64_t h = hashes[i];
    const uint64_t* block = words + 8 * detail::BlockIndex(h, nb);
    const auto a = hn::Set(d32, static_cast<uint32_t>(h));
    auto acc = hn::Set(d, ~uint64_t{0});
    for (size_t c = 0; c < 8; c += N) {
      // lo32(a * M[w]) in each u64 lane (M[w] < 2^32: the odd u32 lanes multiply by 0).
      const auto prod = hn::BitCast(d, hn::Mul(a, hn::BitCast(d32, hn::Load(d, kMult64.m + c))));
      acc = hn::And(acc, RotrLanes(d, hn::LoadU(d, block + c), hn::ShiftRight<26>(prod)));
    }
    out[i] = AndOfLanes(d, acc);
  }
#endif
}

detail::ShiftingSetCandidatesFn SetCandidatesPtr() { return &SetCandidates; }

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/simd/export.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(detail::ShiftingSetCandidatesFn, SetCandidatesPtr)
namespace detail {
ShiftingSetCandidatesFn ShiftingSetCandidatesFor(int64_t hwy_target) {
  if (hwy_target == 0) return nullptr;
#if SIMDBLOOM_SINGLE_TARGET
  return SetCandidatesPtrTable[0]();
#else
  // Highway's table index of a target (as kernels/dispatch.cc's TableIndex).
  const int64_t chosen = (hwy_target == HWY_SCALAR || hwy_target == HWY_EMU128)
                             ? HWY_CHOSEN_TARGET_MASK_SCALAR
                             : HWY_CHOSEN_TARGET_SHIFT(hwy_target);
  const uint64_t mask = static_cast<uint64_t>(chosen & HWY_CHOSEN_TARGET_MASK_TARGETS);
  return SetCandidatesPtrTable[mask == 0 ? 0 : __builtin_ctzll(mask)]();
#endif
}
}  // namespace detail
}  // namespace simdbloom
#endif  // HWY_ONCE
