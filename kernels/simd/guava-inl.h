// SPDX-License-Identifier: Apache-2.0
// Per-target Guava math (lib/FORMAT.md, "guava and guava32"; the scalar forms are
// kernels/scalar/guava.h): Murmur3 x64 128 (seed 0) of 8- and 4-byte keys, N keys per vector,
// both 64-bit halves; the exact remainder by the bit size from a reciprocal (no division per
// probe); and the kernel both Guava layouts run in the tiled pipeline (simd/pipeline-inl.h),
// GuavaKernel<kMitz32>. Shared math of two layout folders, so it lives beneath them.
// Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_SIMD_GUAVA_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SIMD_GUAVA_INL_H_
#undef SIMDBLOOM_KERNELS_SIMD_GUAVA_INL_H_
#else
#define SIMDBLOOM_KERNELS_SIMD_GUAVA_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/scalar/guava.h"
#include "kernels/simd/hash-inl.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <class D, class V = hn::Vec<D>>
HWY_INLINE V MurmurFmix64V(D d, V k) {
  k = hn::Xor(k, hn::ShiftRight<33>(k));
  k = MulLo64(d, k, 0xFF51AFD7ED558CCDULL);
  k = hn::Xor(k, hn::ShiftRight<33>(k));
  k = MulLo64(d, k, 0xC4CEB9FE1A85EC53ULL);
  return hn::Xor(k, hn::ShiftRight<33>(k));
}

// Murmur3 x64 128 of each lane's `len` (4 or 8) little-endian bytes (a 4-byte key zero-extended
// in its lane): one tail word k1, no block. h1, h2 as scalar::Murmur3U64 / Murmur3U32.
template <class D, class V = hn::Vec<D>>
HWY_INLINE void Murmur3ShortV(D d, V key, uint64_t len, uint64_t seed, V& h1, V& h2) {
  V k1 = MulLo64(d, key, scalar::kMurmurC1);
  k1 = MulLo64(d, hn::RotateRight<33>(k1), scalar::kMurmurC2);  // rotl 31
  // h1 = seed ^ k1 ^ len, h2 = seed ^ len; h1 += h2; h2 += h1
  const V start = hn::Set(d, seed ^ len);
  const V a0 = hn::Add(hn::Xor(k1, start), start);
  V b = hn::Add(start, a0);
  V a = a0;
  a = MurmurFmix64V(d, a);
  b = MurmurFmix64V(d, b);
  h1 = hn::Add(a, b);
  h2 = hn::Add(b, h1);
}

// Murmur3 of n keys (u64: 8 bytes, u32: 4 bytes, may be unaligned) into h1[0 .. n), h2[0 .. n).
template <class T>
HWY_INLINE void Murmur3Keys(const T* HWY_RESTRICT keys, size_t n, uint64_t seed,
                            uint64_t* HWY_RESTRICT h1, uint64_t* HWY_RESTRICT h2) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  hn::Vec<decltype(d)> a, b;
  for (; i + N <= n; i += N) {
    Murmur3ShortV(d, LoadKeys(d, keys + i), sizeof(T), seed, a, b);
    hn::StoreU(a, d, h1 + i);
    hn::StoreU(b, d, h2 + i);
  }
  if (i < n) {
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(uint32_t)] = {};
    HWY_ALIGN uint64_t ha[HWY_MAX_BYTES / sizeof(uint64_t)];
    HWY_ALIGN uint64_t hb[HWY_MAX_BYTES / sizeof(uint64_t)];
    const size_t rest = n - i;
    std::memcpy(buf, keys + i, rest * sizeof(T));
    Murmur3ShortV(d, LoadKeys(d, buf), sizeof(T), seed, a, b);
    hn::Store(a, d, ha);
    hn::Store(b, d, hb);
    std::memcpy(h1 + i, ha, rest * sizeof(uint64_t));
    std::memcpy(h2 + i, hb, rest * sizeof(uint64_t));
  }
}

// Hashes of batch keys [begin, begin + m) of any source (m <= kTile): the two Murmur3 halves.
// Pre-hashed keys are h1 with h2 = 0 (scalar::Murmur128OfKey).
HWY_INLINE void Murmur3TileHashes(const detail::KeySource& src, size_t begin, size_t m,
                                  uint64_t seed, uint64_t* HWY_RESTRICT h1,
                                  uint64_t* HWY_RESTRICT h2) {
  if (src.kind == detail::KeyKind::kHashFn) {
    src.hash128_fn(src.ctx, src.sel, begin, m, h1, h2);
    return;
  }
  if (src.kind == detail::KeyKind::kU32) {
    const uint32_t* keys = static_cast<const uint32_t*>(src.keys);
    HWY_ALIGN uint32_t gathered32[kTile];
    if (src.sel != nullptr) {
      for (size_t j = 0; j < m; ++j) {
        std::memcpy(&gathered32[j], keys + src.sel[begin + j], sizeof(uint32_t));
      }
      keys = gathered32;
    } else {
      keys += begin;
    }
    Murmur3Keys(keys, m, seed, h1, h2);
    return;
  }
  const uint64_t* keys = static_cast<const uint64_t*>(src.keys);
  HWY_ALIGN uint64_t gathered[kTile];
  if (src.sel != nullptr) {
    for (size_t j = 0; j < m; ++j) gathered[j] = detail::LoadU64(keys + src.sel[begin + j]);
    keys = gathered;
  } else {
    keys += begin;
  }
  if (src.kind == detail::KeyKind::kHashes) {
    std::memcpy(h1, keys, m * sizeof(uint64_t));
    std::memset(h2, 0, m * sizeof(uint64_t));
  } else {
    Murmur3Keys(keys, m, seed, h1, h2);
  }
}

// The vector form of scalar::GuavaMod: x mod (64 L) for lanes x < 2^63, 1 <= L < 2^31. The
// 64 x 64 -> high 64 product y * R (y = x >> 6 < 2^57, R = floor((2^64 - 1) / L)) is built from
// four 32 x 32 -> 64 products (no vector unit multiplies 64-bit lanes to 128 bits); q * L from two
// (L < 2^32); then one conditional subtraction, as an unsigned minimum (r - L wraps above r when
// r < L). The constants are scalars (SVE vectors cannot be members); Set is hoisted by the
// compiler.
struct GuavaModConsts {
  uint64_t longs, r_lo, r_hi;
  explicit GuavaModConsts(uint64_t num_longs)
      : longs(num_longs),
        r_lo((~uint64_t{0} / num_longs) & 0xFFFFFFFFu),
        r_hi((~uint64_t{0} / num_longs) >> 32) {}
};
template <class D, class V = hn::Vec<D>>
HWY_INLINE V GuavaModV(D d, V x, const GuavaModConsts& c) {
  const V low32 = hn::Set(d, uint64_t{0xFFFFFFFFu});
  const V longs = hn::Set(d, c.longs);
  const V r_lo = hn::Set(d, c.r_lo), r_hi = hn::Set(d, c.r_hi);
  const V y = hn::ShiftRight<6>(x);
  const V y_hi = hn::ShiftRight<32>(y);
  const V y_lo = hn::And(y, low32);  // (MulU32ToU64 needs lanes below 2^32)
  const V ll = MulU32ToU64(d, y_lo, r_lo);
  const V lh = MulU32ToU64(d, y_lo, r_hi);
  const V hl = MulU32ToU64(d, y_hi, r_lo);
  const V hh = MulU32ToU64(d, y_hi, r_hi);
  const V mid = hn::Add(hn::ShiftRight<32>(ll), hn::Add(hn::And(lh, low32), hn::And(hl, low32)));
  const V q = hn::Add(hn::Add(hh, hn::ShiftRight<32>(mid)),
                      hn::Add(hn::ShiftRight<32>(lh), hn::ShiftRight<32>(hl)));
  const V ql = hn::Add(MulU32ToU64(d, hn::And(q, low32), longs),
                       hn::ShiftLeft<32>(MulU32ToU64(d, hn::ShiftRight<32>(q), longs)));
  V r = hn::Sub(y, ql);
  r = hn::Min(r, hn::Sub(r, longs));
  return hn::Or(hn::ShiftLeft<6>(r), hn::And(x, hn::Set(d, uint64_t{63})));
}

// Both Guava layouts in the tiled pipeline. The pipeline hashes a tile with Murmur3TileHashes
// (kMurmur128: h1 at hashes[j], h2 at hashes[kTileKeys + j]); Locate computes the bits of the
// first kTileProbes probes of N keys per vector before any is touched, so an insert prefetches
// all of a key's lines (a query the first p.query_prefetch_probes, as classic); probes past
// kTileProbes (k > 32: fpp below about 1e-10) are computed scalar as they are applied.
template <bool kMitz32>
struct GuavaKernel {
  static constexpr bool kXxh64 = false;
  static constexpr bool kMurmur128 = true;
  static constexpr size_t kTileKeys = 64;
  static constexpr uint32_t kTileProbes = 32;
  struct State {
    scalar::GuavaMod mod;
    explicit State(const detail::Params& p) : mod(p.num_blocks) {}
  };
  struct Tile {
    HWY_ALIGN uint64_t bit[kTileProbes * kTileKeys];  // bit[i * kTileKeys + j]: probe i, key j
  };

  static HWY_INLINE void Hash(const detail::KeySource& src, size_t begin, size_t m, uint64_t seed,
                              uint64_t* HWY_RESTRICT hashes, size_t j) {
    Murmur3TileHashes(src, begin, m, seed, hashes + j, hashes + kTileKeys + j);
  }

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    const hn::ScalableTag<uint64_t> d;
    using V = hn::Vec<decltype(d)>;
    const GuavaModConsts mod(p.num_blocks);
    const uint32_t probes = HWY_MIN(p.k, kTileProbes);
    if constexpr (kMitz32) {
      const V low32 = hn::Set(d, uint64_t{0xFFFFFFFFu});
      ForEachHashVector(d, hashes, j0, j1, [&](V h, size_t j) HWY_ATTR {
        const V b = hn::ShiftRight<32>(h);
        V acc = hn::Add(h, b);  // low 32 bits: (int) h64 + 1 * (int) (h64 >>> 32)
        for (uint32_t i = 0; i < probes; ++i) {
          const V c = hn::And(acc, low32);
          // negative (bit 31 set): ~c within 32 bits
          const V flip = hn::And(hn::Sub(hn::Zero(d), hn::ShiftRight<31>(c)), low32);
          hn::Store(GuavaModV(d, hn::Xor(c, flip), mod), d, tile.bit + i * kTileKeys + j);
          acc = hn::Add(acc, b);
        }
      });
    } else {
      const V max63 = hn::Set(d, uint64_t{0x7FFFFFFFFFFFFFFFULL});
      ForEachHashVector(d, hashes, j0, j1, [&](V h1, size_t j) HWY_ATTR {
        const V h2 = hn::LoadU(d, hashes + kTileKeys + j);
        V c = h1;
        for (uint32_t i = 0; i < probes; ++i) {
          hn::Store(GuavaModV(d, hn::And(c, max63), mod), d, tile.bit + i * kTileKeys + j);
          c = hn::Add(c, h2);
        }
      });
    }
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params& p, const Tile& tile,
                                  size_t j) {
    const uint32_t probes =
        HWY_MIN(detail::Mutates(kOp) ? p.k : HWY_MIN(p.k, p.query_prefetch_probes), kTileProbes);
    for (uint32_t i = 0; i < probes; ++i)
      PrefetchLine<kOp>(words + (tile.bit[i * kTileKeys + j] >> 6));
  }

  // Probes kTileProbes .. k - 1 of key j (k > kTileProbes only), visited as the scalar code does.
  template <class Visit>
  static HWY_INLINE bool LateProbes(const detail::Params& p, const State& s,
                                    const uint64_t* HWY_RESTRICT hashes, size_t j,
                                    const Visit& visit) {
    const uint64_t h1 = hashes[j];
    if constexpr (kMitz32) {
      for (uint32_t i = kTileProbes + 1; i <= p.k; ++i) {
        if (!visit(s.mod(scalar::GuavaMitz32Value(h1, i)))) return false;
      }
    } else {
      const uint64_t h2 = hashes[kTileKeys + j];
      uint64_t c = h1 + uint64_t{kTileProbes} * h2;
      for (uint32_t i = kTileProbes; i < p.k; ++i, c += h2) {
        if (!visit(s.mod(c & 0x7FFFFFFFFFFFFFFFULL))) return false;
      }
    }
    return true;
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params& p, const State& s,
                                 const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    const uint32_t k = HWY_MIN(p.k, kTileProbes);
    const bool late = p.k > kTileProbes;
    const uint64_t* HWY_RESTRICT bit = tile.bit;
    size_t changed = 0;
    if constexpr (detail::Mutates(kOp)) {
      for (size_t j = j0; j < j1; ++j) {
        ahead(j);
        uint64_t clear = 0;
        auto set = [&](uint64_t b) HWY_ATTR {
          if constexpr (kOp == detail::Op::kInsertAtomic) {
            clear |= detail::AtomicOr(words + (b >> 6), uint64_t{1} << (b & 63)) != 0;
          } else {
            const uint64_t old = words[b >> 6];
            clear |= ~old >> (b & 63);
            words[b >> 6] = old | (uint64_t{1} << (b & 63));
          }
          return true;
        };
        for (uint32_t i = 0; i < k; ++i) set(bit[i * kTileKeys + j]);
        if (late) LateProbes(p, s, hashes, j, set);
        if (hits != nullptr) hits[j] = static_cast<uint8_t>(clear & 1);
        changed += clear & 1;
      }
    } else {
      auto test = [&](uint64_t b) HWY_ATTR { return ((words[b >> 6] >> (b & 63)) & 1) != 0; };
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || SIMDBLOOM_SVE
      if (!late) {
        GatherTestProbes<kTileKeys>(words, bit, k, j0, j1, hits, ahead);
        return changed;
      }
#endif
      if (p.prefetch_distance == 0 && !late) {
        // In cache: all k probes without a branch (classic's reason, design note M10).
        for (size_t j = j0; j < j1; ++j) {
          ahead(j);
          uint64_t hit = 1;
          for (uint32_t i = 0; i < k; ++i) {
            const uint64_t b = bit[i * kTileKeys + j];
            hit &= words[b >> 6] >> (b & 63);
          }
          hits[j] = static_cast<uint8_t>(hit & 1);
        }
      } else {
        for (size_t j = j0; j < j1; ++j) {
          ahead(j);
          bool hit = true;
          for (uint32_t i = 0; i < k && hit; ++i) hit = test(bit[i * kTileKeys + j]);
          if (hit && late) hit = LateProbes(p, s, hashes, j, test);
          hits[j] = static_cast<uint8_t>(hit);
        }
      }
    }
    return changed;
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
