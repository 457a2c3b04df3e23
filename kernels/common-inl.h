// Per-target building blocks shared by every layout: 32x32->64 multiply, variable shifts, block
// index by multiply-high, 0/1 lanes to bytes, and the tiled pipeline driver (hash a tile of keys,
// hand it to the layout's apply step). Re-included once per Highway target.
#if defined(SIMDBLOOM_KERNELS_COMMON_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_COMMON_INL_H_
#undef SIMDBLOOM_KERNELS_COMMON_INL_H_
#else
#define SIMDBLOOM_KERNELS_COMMON_INL_H_
#endif

#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/dispatch.h"
#include "kernels/hash-inl.h"
#include "kernels/reference.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Keys per tile: the hashes and block indices of one tile (4 KiB) stay in L1.
constexpr size_t kTile = 256;
// Filters at least this large are prefetched one tile ahead of use; smaller ones are cache-resident
// and prefetching only costs instructions.
constexpr uint64_t kPrefetchMinBytes = uint64_t{1} << 20;

#undef SIMDBLOOM_SVE  // defined once per target
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
#define SIMDBLOOM_SVE 1
#else
#define SIMDBLOOM_SVE 0
#endif

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
  for (; i < n; ++i) out[i] = ref::BlockIndex(ref::LoadU64(hashes + i), num_blocks);
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

// Calls fn(h, j) for j = 0, N, 2N, ... < m, where h holds hashes[j .. j + N) (may be unaligned);
// lanes past m are zero. Callers' per-lane arrays must hold m rounded up to N entries.
template <class D, class Fn>
HWY_INLINE void ForEachHashVector(D d, const uint64_t* HWY_RESTRICT hashes, size_t m,
                                  const Fn& fn) {
  const size_t N = hn::Lanes(d);
  size_t j = 0;
  for (; j + N <= m; j += N) fn(hn::LoadU(d, hashes + j), j);
  if (j < m) {
    HWY_ALIGN uint64_t buf[HWY_MAX_BYTES / sizeof(uint64_t)] = {};
    std::memcpy(buf, hashes + j, (m - j) * sizeof(uint64_t));
    fn(hn::Load(d, buf), j);
  }
}

// The bit array as insert (mutable) or query (const) sees it.
template <bool kInsert>
using WordsPtr = std::conditional_t<kInsert, uint64_t*, const uint64_t*>;

// The tiled pipeline over u64 keys: hash a tile into a stack buffer with the layout's hash, then
// let `L::Apply` index, prefetch and insert or test it. A layout `L` provides
// `static constexpr bool kXxh64`, `static constexpr size_t kTileKeys` (<= kTile) and
// `template <bool kInsert> static void Apply(WordsPtr<kInsert> words, const detail::Params& p,
// const uint64_t* hashes, size_t m, uint8_t* out)` (hashes may be unaligned; insert ignores out).
template <class L>
void InsertHashesT(uint64_t* words, detail::Params p, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; i += L::kTileKeys) {
    L::template Apply<true>(words, p, hashes + i, HWY_MIN(L::kTileKeys, n - i), nullptr);
  }
}

template <class L>
void ContainsHashesT(const uint64_t* words, detail::Params p, const uint64_t* hashes, size_t n,
                     uint8_t* out) {
  for (size_t i = 0; i < n; i += L::kTileKeys) {
    L::template Apply<false>(words, p, hashes + i, HWY_MIN(L::kTileKeys, n - i), out + i);
  }
}

template <class L>
HWY_INLINE void HashTile(const uint64_t* keys, size_t m, uint64_t seed, uint64_t* hashes) {
  if (L::kXxh64) {
    HashU64Xxh64Impl(keys, m, seed, hashes);
  } else {
    HashU64Impl(keys, m, seed, hashes);
  }
}

template <class L>
void InsertU64T(uint64_t* words, detail::Params p, const uint64_t* keys, size_t n) {
  HWY_ALIGN uint64_t hashes[L::kTileKeys];
  for (size_t i = 0; i < n; i += L::kTileKeys) {
    const size_t m = HWY_MIN(L::kTileKeys, n - i);
    HashTile<L>(keys + i, m, p.seed, hashes);
    L::template Apply<true>(words, p, hashes, m, nullptr);
  }
}

template <class L>
void ContainsU64T(const uint64_t* words, detail::Params p, const uint64_t* keys, size_t n,
                  uint8_t* out) {
  HWY_ALIGN uint64_t hashes[L::kTileKeys];
  for (size_t i = 0; i < n; i += L::kTileKeys) {
    const size_t m = HWY_MIN(L::kTileKeys, n - i);
    HashTile<L>(keys + i, m, p.seed, hashes);
    L::template Apply<false>(words, p, hashes, m, out + i);
  }
}

template <class L>
constexpr detail::LayoutKernels LayoutKernelsT() {
  return {&InsertHashesT<L>, &ContainsHashesT<L>, &InsertU64T<L>, &ContainsU64T<L>};
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
