// SPDX-License-Identifier: Apache-2.0
// Per-target SIMD helpers every kernel uses: the tile size, 32x32->64 multiplies, variable shifts
// (SVE-safe), block index by multiply-high, all-zero tests, 0/1 lanes to bytes, iteration over a
// run of hashes a vector at a time, and cache-line prefetch. Re-included once per Highway target.
#if defined(SIMDBLOOM_KERNELS_SIMD_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SIMD_OPS_INL_H_
#undef SIMDBLOOM_KERNELS_SIMD_OPS_INL_H_
#else
#define SIMDBLOOM_KERNELS_SIMD_OPS_INL_H_
#endif

#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/interface.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Keys per tile: the hashes and block indices of one tile (4 KiB) stay in L1.
constexpr size_t kTile = 256;

// The probe multipliers (FORMAT.md's M[t], kernels/bits.h) widened to u64 lanes, so that a
// vector load gives one per word lane.
struct Multipliers64 {
  HWY_ALIGN uint64_t m[16];
  constexpr Multipliers64() : m() {
    for (int t = 0; t < 16; ++t) m[t] = detail::kMultipliers.m[t];
  }
};
static constexpr Multipliers64 kMult64{};

#undef SIMDBLOOM_SVE  // defined once per target
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
#define SIMDBLOOM_SVE 1
#else
#define SIMDBLOOM_SVE 0
#endif

// The multiplier operand of a key of hash h in every lane: lo32(h), zero-extended to u64 on
// HWY_SCALAR; elsewhere broadcast to every u32 lane (a u32 multiply by kMult64 uses the even ones).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V KeyOperand(D d, uint64_t h) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, h & 0xFFFFFFFFu);
#else
  const hn::Repartition<uint32_t, D> d32;
  return hn::BitCast(d, hn::Set(d32, static_cast<uint32_t>(h)));
#endif
}

// a * m for u64 lanes holding values below 2^32 (the exact 64-bit product).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V MulU32ToU64(D d, V a, V m) {
  (void)d;
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, hn::GetLane(a) * hn::GetLane(m));
#else
  const hn::Repartition<uint32_t, D> d32;
  return hn::MulEven(hn::BitCast(d32, a), hn::BitCast(d32, m));
#endif
}

// Variable shifts: operator<< / >> are not available on SVE in Highway 1.0.3.
template <class V>
HWY_INLINE V ShlVar(V v, V bits) {
#if SIMDBLOOM_SVE
  return hn::Shl(v, bits);
#else
  return v << bits;
#endif
}
template <class V>
HWY_INLINE V ShrVar(V v, V bits) {
#if SIMDBLOOM_SVE
  return hn::Shr(v, bits);
#else
  return v >> bits;
#endif
}

// out[i] = (hi32(h[i]) * num_blocks) >> 32. `hashes` may be unaligned.
HWY_INLINE void BlockIndexImpl(const uint64_t* HWY_RESTRICT hashes, size_t n, uint64_t num_blocks,
                               uint64_t* HWY_RESTRICT out) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  const auto nb = hn::Set(d, num_blocks);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto hi = hn::ShiftRight<32>(hn::LoadU(d, hashes + i));
    hn::StoreU(hn::ShiftRight<32>(MulU32ToU64(d, hi, nb)), d, out + i);
  }
  for (; i < n; ++i) out[i] = detail::BlockIndex(detail::LoadU64(hashes + i), num_blocks);
}

// True if every bit of v is zero (one PTEST on x86).
template <class D, class V = hn::Vec<D>>
HWY_INLINE bool AllZero(D d, V v) {
#if HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  (void)d;
  if constexpr (sizeof(v.raw) == 16) {
    return _mm_testz_si128(v.raw, v.raw) != 0;
  } else if constexpr (sizeof(v.raw) == 32) {
    return _mm256_testz_si256(v.raw, v.raw) != 0;
  } else {
    return _mm512_test_epi64_mask(v.raw, v.raw) == 0;
  }
#else
  return hn::AllTrue(d, hn::Eq(v, hn::Zero(d)));
#endif
}

// Writes lanes holding 0 or 1 as bytes: out[0 .. Lanes(d)) (all lanes; callers size `out`).
template <class D, class V = hn::Vec<D>>
HWY_INLINE void StoreBytes(D d, V ones, uint8_t* HWY_RESTRICT out) {
  (void)d;
#if HWY_TARGET == HWY_SCALAR
  out[0] = static_cast<uint8_t>(hn::GetLane(ones));
#else
  const hn::Rebind<uint8_t, D> d8;
  hn::StoreU(hn::TruncateTo(d8, ones), d8, out);
#endif
}

// Calls fn(h, j) for j = j0, j0 + N, ... < j1, where h holds hashes[j .. j + N) (may be
// unaligned); lanes past j1 are zero. Callers' per-lane arrays must hold j1 rounded up to N.
template <class D, class Fn>
HWY_INLINE void ForEachHashVector(D d, const uint64_t* HWY_RESTRICT hashes, size_t j0, size_t j1,
                                  const Fn& fn) {
  const size_t N = hn::Lanes(d);
  size_t j = j0;
  for (; j + N <= j1; j += N) fn(hn::LoadU(d, hashes + j), j);
  if (j < j1) {
    HWY_ALIGN uint64_t buf[HWY_MAX_BYTES / sizeof(uint64_t)] = {};
    std::memcpy(buf, hashes + j, (j1 - j) * sizeof(uint64_t));
    fn(hn::Load(d, buf), j);
  }
}

// Prefetches the cache line at p into all cache levels, with intent to write for inserts.
template <detail::Op kOp>
HWY_INLINE void PrefetchLine(const void* p) {
  __builtin_prefetch(p, detail::Mutates(kOp) ? 1 : 0, 3);
}

// The bit array as insert (mutable) or query (const) sees it.
template <detail::Op kOp>
using WordsPtr = std::conditional_t<detail::Mutates(kOp), uint64_t*, const uint64_t*>;

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || SIMDBLOOM_SVE
// The query of keys [j0, j1) of a tile whose probe i of key j is bit bit[i * kTileKeys + j] of
// the array (classic, the Guava layouts), with native gathers: N keys' probe i in one load; stop
// once every lane has missed. hits[j] = 1 iff all k probes are set; ahead(j) before key j.
template <size_t kTileKeys, class A>
HWY_INLINE void GatherTestProbes(const uint64_t* HWY_RESTRICT words,
                                 const uint64_t* HWY_RESTRICT bit, uint32_t k, size_t j0, size_t j1,
                                 uint8_t* HWY_RESTRICT hits, const A& ahead) {
  const hn::ScalableTag<uint64_t> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  const auto one = hn::Set(d, uint64_t{1});
  const auto low6 = hn::Set(d, uint64_t{63});
  for (size_t j = j0; j < j1; j += N) {
    for (size_t q = j; q < HWY_MIN(j + N, j1); ++q) ahead(q);
    auto hit = one;
    for (uint32_t i = 0; i < k; ++i) {
      const auto b = hn::Load(d, bit + i * kTileKeys + j);
      const auto word = hn::GatherIndex(d, words, hn::BitCast(di, hn::ShiftRight<6>(b)));
      hit = hn::And(hit, ShrVar(word, hn::And(b, low6)));
      if (hn::AllTrue(d, hn::Eq(hn::And(hit, one), hn::Zero(d)))) break;  // all absent
    }
    StoreBytes(d, hn::And(hit, one), hits + j);
  }
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
