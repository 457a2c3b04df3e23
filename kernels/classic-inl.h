// Per-target classic kernels (lib/FORMAT.md): the k bit positions of N keys per vector by double
// hashing in 64-bit fixed point, all positions of a tile computed before any is touched (so a
// large filter's k lines per key are prefetched together); queries gather. Re-included per target.
#if defined(SIMDBLOOM_KERNELS_CLASSIC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_CLASSIC_INL_H_
#undef SIMDBLOOM_KERNELS_CLASSIC_INL_H_
#else
#define SIMDBLOOM_KERNELS_CLASSIC_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/common-inl.h"
#include "kernels/dispatch.h"
#include "kernels/reference.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// floor(g * 512 * num_blocks / 2^64) = (hi32(g) * nb + ((lo32(g) * nb) >> 32)) >> 23, exact for
// nb < 2^32 (the sum stays below 2^64).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ClassicBitV(D d, V g, V nb) {
  const V lo = hn::And(g, hn::Set(d, uint64_t{0xFFFFFFFFu}));
  const V sum = hn::Add(MulU32ToU64(d, hn::ShiftRight<32>(g), nb),
                        hn::ShiftRight<32>(MulU32ToU64(d, lo, nb)));
  return hn::ShiftRight<23>(sum);
}

struct Classic {
  static constexpr bool kXxh64 = false;
  // Keys per tile: positions of up to 32 probes per key fit a 16 KiB stack buffer.
  static constexpr size_t kTileKeys = 64;
  static constexpr uint32_t kMaxProbes = 32;
  // Probes per key a query prefetches: most absent keys fail within the first two.
  static constexpr uint32_t kQueryPrefetchProbes = 2;

  template <bool kInsert>
  static HWY_INLINE void Apply(WordsPtr<kInsert> words, const detail::Params& p,
                               const uint64_t* HWY_RESTRICT hashes, size_t m,
                               uint8_t* HWY_RESTRICT out) {
    const hn::ScalableTag<uint64_t> d;
    const hn::RebindToSigned<decltype(d)> di;
    const auto nb = hn::Set(d, p.num_blocks);
    const uint32_t k = p.k;
    // bit[i * kTileKeys + j]: probe i of key j.
    HWY_ALIGN uint64_t bit[kMaxProbes * kTileKeys];
    ForEachHashVector(d, hashes, m, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      const auto step = hn::RotateRight<32>(h);
      auto g = h;
      for (uint32_t i = 0; i < k; ++i) {
        hn::Store(ClassicBitV(d, g, nb), d, bit + i * kTileKeys + j);
        g = hn::Add(g, step);
      }
    });
    if (p.num_blocks * 64 >= kPrefetchMinBytes) {
      const uint32_t probes = kInsert ? k : HWY_MIN(k, kQueryPrefetchProbes);
      for (uint32_t i = 0; i < probes; ++i) {
        for (size_t j = 0; j < m; ++j) hwy::Prefetch(words + (bit[i * kTileKeys + j] >> 6));
      }
    }
    if constexpr (kInsert) {
      for (size_t j = 0; j < m; ++j) {
        for (uint32_t i = 0; i < k; ++i) {
          const uint64_t b = bit[i * kTileKeys + j];
          words[b >> 6] |= uint64_t{1} << (b & 63);
        }
      }
    } else {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || SIMDBLOOM_SVE
      // Native gathers: N keys' probe i in one load; stop once every lane has missed.
      const size_t N = hn::Lanes(d);
      const auto one = hn::Set(d, uint64_t{1});
      const auto low6 = hn::Set(d, uint64_t{63});
      HWY_ALIGN uint8_t bytes[kTileKeys];
      for (size_t j = 0; j < m; j += N) {
        auto hit = one;
        for (uint32_t i = 0; i < k; ++i) {
          const auto b = hn::Load(d, bit + i * kTileKeys + j);
          const auto word = hn::GatherIndex(d, words, hn::BitCast(di, hn::ShiftRight<6>(b)));
          hit = hn::And(hit, ShrVar(word, hn::And(b, low6)));
          if (hn::AllTrue(d, hn::Eq(hn::And(hit, one), hn::Zero(d)))) break;  // all absent
        }
        StoreBytes(d, hn::And(hit, one), bytes + j);
      }
      std::memcpy(out, bytes, m);
#else
      // Gathers are emulated here: a key at a time, stopping at its first clear bit, is faster.
      (void)di;
      for (size_t j = 0; j < m; ++j) {
        uint8_t hit = 1;
        for (uint32_t i = 0; i < k && hit; ++i) {
          const uint64_t b = bit[i * kTileKeys + j];
          hit = static_cast<uint8_t>((words[b >> 6] >> (b & 63)) & 1);
        }
        out[j] = hit;
      }
#endif
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
