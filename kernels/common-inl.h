// Per-target building blocks shared by every layout: 32x32->64 multiply, variable shifts, block
// index by multiply-high, 0/1 lanes to bytes, hashing any key source, result forms, and the tiled
// pipeline every layout runs in. Re-included once per Highway target.
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
template <bool kInsert>
HWY_INLINE void PrefetchLine(const void* p) {
  __builtin_prefetch(p, kInsert ? 1 : 0, 3);
}

// The bit array as insert (mutable) or query (const) sees it.
template <bool kInsert>
using WordsPtr = std::conditional_t<kInsert, uint64_t*, const uint64_t*>;

// Prefetches the keys [begin, begin + m) of a direct source (clipped to n keys).
HWY_INLINE void PrefetchSource(const detail::KeySource& src, size_t n, size_t begin, size_t m) {
  if (src.sel != nullptr || begin >= n) return;
  size_t width;
  if (src.kind == detail::KeyKind::kU32) {
    width = 4;
  } else if (src.kind == detail::KeyKind::kU64 || src.kind == detail::KeyKind::kHashes) {
    width = 8;
  } else {
    return;
  }
  const char* p = static_cast<const char*>(src.keys) + begin * width;
  const char* end = static_cast<const char*>(src.keys) + HWY_MIN(n, begin + m) * width;
  for (; p < end; p += 64) hwy::Prefetch(p);
}

// Hashes of batch keys [begin, begin + m) of any source into `out` (m <= kTile).
template <bool kXxh64>
HWY_INLINE void TileHashes(const detail::KeySource& src, size_t begin, size_t m,
                           const SeedConsts& seed, uint64_t* HWY_RESTRICT out) {
  if (src.kind == detail::KeyKind::kHashFn) {
    src.hash_fn(src.ctx, src.sel, begin, m, out);
    return;
  }
  // Keys reached through a selection vector are gathered into a tile first.
  HWY_ALIGN uint64_t gathered[kTile];
  if (src.kind == detail::KeyKind::kU32) {
    const uint32_t* keys = static_cast<const uint32_t*>(src.keys);
    HWY_ALIGN uint32_t gathered32[kTile];
    if (src.sel != nullptr) {
      for (size_t j = 0; j < m; ++j) gathered32[j] = keys[src.sel[begin + j]];
      keys = gathered32;
    } else {
      keys += begin;
    }
    if (kXxh64) {
      HashXxh64Impl(keys, m, seed, out);
    } else {
      HashXxh3Impl(keys, m, seed, out);
    }
    return;
  }
  const uint64_t* keys = static_cast<const uint64_t*>(src.keys);
  if (src.sel != nullptr) {
    for (size_t j = 0; j < m; ++j) gathered[j] = ref::LoadU64(keys + src.sel[begin + j]);
    keys = gathered;
  } else {
    keys += begin;
  }
  if (src.kind == detail::KeyKind::kHashes) {
    std::memcpy(out, keys, m * sizeof(uint64_t));
  } else if (kXxh64) {
    HashXxh64Impl(keys, m, seed, out);
  } else {
    HashXxh3Impl(keys, m, seed, out);
  }
}

// Writes the 0/1 bytes hits[0, m) of the tile starting at batch key `begin` as `result` asks;
// returns the number of hits. hits[] must have room up to m rounded up to 8.
HWY_INLINE size_t EmitTile(const uint8_t* HWY_RESTRICT hits, size_t begin, size_t m,
                           const uint32_t* sel, detail::ResultKind result, void* out,
                           size_t* HWY_RESTRICT selected) {
  size_t count = 0;
  switch (result) {
    case detail::ResultKind::kBytes:
      std::memcpy(static_cast<uint8_t*>(out) + begin, hits, m);
      for (size_t j = 0; j < m; ++j) count += hits[j];
      break;
    case detail::ResultKind::kBitmap: {
      // Eight 0/1 bytes to eight bits, LSB first: byte j of x lands in bit 56 + j of x * magic.
      uint8_t* bits = static_cast<uint8_t*>(out) + begin / 8;  // tiles start at multiples of 8
      for (size_t j = 0; j < m; j += 8) {
        uint64_t x = 0;
        std::memcpy(&x, hits + j, 8);
        if (m - j < 8) x &= ~uint64_t{0} >> (8 * (8 - (m - j)));
        bits[j / 8] = static_cast<uint8_t>((x * 0x0102040810204080ULL) >> 56);
        count += static_cast<size_t>(__builtin_popcountll(x));
      }
      break;
    }
    case detail::ResultKind::kSelection: {
      // Branch-free compaction; out may alias sel: entry begin + j is read before any write at or
      // past it (*selected <= begin + j).
      uint32_t* dst = static_cast<uint32_t*>(out);
      size_t n = *selected;
      for (size_t j = 0; j < m; ++j) {
        const uint32_t index = sel != nullptr ? sel[begin + j] : static_cast<uint32_t>(begin + j);
        dst[n] = index;
        n += hits[j];
      }
      count = n - *selected;
      *selected = n;
      break;
    }
  }
  return count;
}

// Prefetches, for the key `dist` places after key j of the current tile, what L's Apply will touch
// (crossing into the next tile, located far enough ahead by Pipeline). Layouts call it once per key
// (or per vector of keys) as they apply, so prefetches are issued evenly, one per key: bursts of
// them were measured slower (perf/bench.cc --only memory). Does nothing when kEnabled is false.
template <class L, bool kInsert, bool kEnabled>
struct Ahead {
  WordsPtr<kInsert> words;
  const detail::Params& p;
  const typename L::Tile& cur;
  const typename L::Tile& next;
  size_t m;       // keys of the current tile
  size_t next_m;  // keys of the next tile (0 at the end)
  size_t dist;

  HWY_INLINE void operator()(size_t j) const {
    if constexpr (kEnabled) {
      const size_t q = j + dist;
      if (HWY_LIKELY(q < m)) {
        L::template Prefetch<kInsert>(words, p, cur, q);
      } else if (q - m < next_m) {
        L::template Prefetch<kInsert>(words, p, next, q - m);
      }
    } else {
      (void)j;
    }
  }
};

// Ahead for a step whose keys j + dist all lie in one tile: key j prefetches entry j + delta of
// `tile` (the current tile, or the next with delta = dist - m), without a branch per key.
template <class L, bool kInsert>
struct AheadIn {
  WordsPtr<kInsert> words;
  const detail::Params& p;
  const typename L::Tile& tile;
  ptrdiff_t delta;

  HWY_INLINE void operator()(size_t j) const {
    L::template Prefetch<kInsert>(words, p, tile, static_cast<size_t>(j + delta));
  }
};

// The tiled pipeline, shared by every layout and key source. A tile's keys are hashed and located
// (block or bit indices, vectorized) one tile ahead, a step at a time while the tile before it is
// applied; as key j is applied, the lines of key j + D are prefetched (D = p.prefetch_distance,
// crossing into the next tile), so a DRAM-sized filter has D lines in flight.
//
// A layout L provides: kXxh64; kTileKeys (a multiple of 16 and of the vector width, <= kTile);
// struct Tile (per-key locations of one tile); Locate(p, hashes, j0, j1, tile) (locates keys
// [j0, j1) of the tile from hashes[j0 .. j1); j0 is a multiple of the step; entries up to j1
// rounded up to the vector width may be written); Prefetch<kInsert>(words, p, tile, j); struct
// State (built from p once per call); and Apply<kInsert>(words, p, state, hashes, tile, j0, j1,
// hits, ahead) -> keys that changed the filter and hits[j] = 1 iff key j did (insert) / writes
// hits[j0 .. j1) (query; may write up to the next multiple of the vector width), calling ahead(j)
// for every key j it applies. Inserts with a non-null `out` copy each tile's hits (the per-key
// "was new" bytes) to out + begin.
template <class L, bool kInsert, bool kPrefetch>
uint64_t Pipeline(WordsPtr<kInsert> words, const detail::Params& p, const detail::KeySource& src,
                  size_t n, detail::ResultKind result, void* out) {
  constexpr size_t T = L::kTileKeys;
  static_assert(T % 16 == 0 && T <= kTile, "tile size");
  // Keys per step: each step hashes and locates the same stretch of the next tile, then applies
  // its own keys. Long enough to amortize the calls, short enough that hashing never stops the
  // flow of prefetches for long (1e8 keys: 16 beat 8, 32 and 64).
  const hn::ScalableTag<uint64_t> d;
  const size_t step = HWY_MAX(size_t{16}, hn::Lanes(d));
  const size_t D = kPrefetch ? HWY_MIN(size_t{p.prefetch_distance}, T) : 0;
  HWY_ALIGN uint64_t hashes[2][T];
  HWY_ALIGN typename L::Tile tiles[2];
  HWY_ALIGN uint8_t hits[T + 8];
  const typename L::State state(p);
  uint64_t total = 0;
  size_t selected = 0;
  if (n == 0) return 0;

  // Tile 0 is hashed and located whole; every later tile a step at a time while the tile before
  // it is applied.
  size_t cur = 0;
  size_t m = HWY_MIN(T, n);
  const SeedConsts seed(p.seed);
  // Pre-hashed keys without a selection vector, 8-byte aligned, are read in place rather than
  // copied into a tile (the copy missed the cache once per line: 1e8 keys, 9.0 -> 8.2 ns/key).
  const uint64_t* in_place = src.kind == detail::KeyKind::kHashes && src.sel == nullptr &&
                                     reinterpret_cast<uintptr_t>(src.keys) % alignof(uint64_t) == 0
                                 ? static_cast<const uint64_t*>(src.keys)
                                 : nullptr;
  const uint64_t* tile_hashes[2] = {in_place != nullptr ? in_place : hashes[0], hashes[1]};
  if (in_place == nullptr) TileHashes<L::kXxh64>(src, 0, m, seed, hashes[0]);
  L::Locate(p, tile_hashes[0], 0, m, tiles[0]);
  for (size_t q = 0; q < HWY_MIN(D, m); ++q) L::template Prefetch<kInsert>(words, p, tiles[0], q);

  for (size_t begin = 0; begin < n; begin += T, cur ^= 1) {
    m = HWY_MIN(T, n - begin);
    const size_t next_begin = begin + T;
    const size_t next_m = next_begin < n ? HWY_MIN(T, n - next_begin) : 0;
    if (in_place != nullptr && next_m != 0) tile_hashes[cur ^ 1] = in_place + next_begin;
    const uint64_t* HWY_RESTRICT h = tile_hashes[cur];
    // Key j + D of this step lies before the next tile's j + step (D <= T), located first.
    const Ahead<L, kInsert, kPrefetch> ahead{words, p, tiles[cur], tiles[cur ^ 1], m, next_m, D};
    for (size_t j = 0; j < m; j += step) {
      const size_t j1 = HWY_MIN(j + step, m);
      if (j < next_m) {  // the same stretch of the next tile
        const size_t c1 = HWY_MIN(j + step, next_m);
        PrefetchSource(src, n, next_begin + T + j, step);
        if (in_place == nullptr) {
          TileHashes<L::kXxh64>(src, next_begin + j, c1 - j, seed, hashes[cur ^ 1] + j);
        }
        L::Locate(p, tile_hashes[cur ^ 1], j, c1, tiles[cur ^ 1]);
      }
      if (kPrefetch && j1 - 1 + D < m) {  // every key of the step prefetches in this tile
        const AheadIn<L, kInsert> in{words, p, tiles[cur], static_cast<ptrdiff_t>(D)};
        total += L::template Apply<kInsert>(words, p, state, h, tiles[cur], j, j1, hits, in);
      } else if (kPrefetch && j + D >= m && j1 - 1 + D - m < next_m) {  // ... in the next one
        const AheadIn<L, kInsert> in{words, p, tiles[cur ^ 1],
                                     static_cast<ptrdiff_t>(D) - static_cast<ptrdiff_t>(m)};
        total += L::template Apply<kInsert>(words, p, state, h, tiles[cur], j, j1, hits, in);
      } else {
        total += L::template Apply<kInsert>(words, p, state, h, tiles[cur], j, j1, hits, ahead);
      }
    }
    if constexpr (!kInsert) {
      std::memset(hits + m, 0, 8);
      total += EmitTile(hits, begin, m, src.sel, result, out, &selected);
    } else {
      if (out != nullptr) std::memcpy(static_cast<uint8_t*>(out) + begin, hits, m);
    }
  }
  return total;
}

template <class L>
uint64_t InsertT(uint64_t* words, detail::Params p, const detail::KeySource& src, size_t n,
                 uint8_t* fresh) {
  return p.prefetch_distance != 0
             ? Pipeline<L, true, true>(words, p, src, n, detail::ResultKind::kBytes, fresh)
             : Pipeline<L, true, false>(words, p, src, n, detail::ResultKind::kBytes, fresh);
}

template <class L>
uint64_t ContainsT(const uint64_t* words, detail::Params p, const detail::KeySource& src, size_t n,
                   detail::ResultKind result, void* out) {
  return p.prefetch_distance != 0 ? Pipeline<L, false, true>(words, p, src, n, result, out)
                                  : Pipeline<L, false, false>(words, p, src, n, result, out);
}

template <class L>
constexpr detail::LayoutKernels LayoutKernelsT() {
  return {&InsertT<L>, &ContainsT<L>};
}

// Hashes of any key source, in tiles.
HWY_INLINE void HashKeysAny(bool xxh64, const detail::KeySource& src, size_t n, uint64_t seed,
                            uint64_t* out) {
  const SeedConsts c(seed);
  for (size_t i = 0; i < n; i += kTile) {
    const size_t m = HWY_MIN(kTile, n - i);
    if (xxh64) {
      TileHashes<true>(src, i, m, c, out + i);
    } else {
      TileHashes<false>(src, i, m, c, out + i);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
