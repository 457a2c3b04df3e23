// SPDX-License-Identifier: Apache-2.0
// Per-target probe math that more than one kind uses (lib/FORMAT.md): register64's word mask and
// classic's k bit positions of N keys per vector. register64 and classic (kernels/<layout>/
// kernel-inl.h) use it for their filters, the counting cells (kernels/counting/kernel-inl.h) for
// their counters, so it lives beneath the kind folders. The scalar forms are in
// kernels/scalar/probes.h. Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_SIMD_PROBES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SIMD_PROBES_INL_H_
#undef SIMDBLOOM_KERNELS_SIMD_PROBES_INL_H_
#else
#define SIMDBLOOM_KERNELS_SIMD_PROBES_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Word index and mask of N keys: word (hi32(h) * num_words) >> 32, mask bits lo32(a * M[i]) >> 26.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Register64MaskV(D d, V h, uint32_t k) {
  const V a = hn::And(h, hn::Set(d, uint64_t{0xFFFFFFFFu}));
  const V one = hn::Set(d, uint64_t{1});
  const V low6 = hn::Set(d, uint64_t{63});
  V mask = hn::Zero(d);
  for (uint32_t i = 0; i < k; ++i) {
    const V prod = MulU32ToU64(d, a, hn::Set(d, uint64_t{detail::kMultipliers.m[i]}));
    mask = hn::Or(mask, ShlVar(one, hn::And(hn::ShiftRight<26>(prod), low6)));
  }
  return mask;
}

// floor(g * 512 * num_blocks / 2^64) = (hi32(g) * nb + ((lo32(g) * nb) >> 32)) >> 23, exact for
// nb < 2^32 (the sum stays below 2^64).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ClassicBitV(D d, V g, V nb) {
  const V lo = hn::And(g, hn::Set(d, uint64_t{0xFFFFFFFFu}));
  const V sum = hn::Add(MulU32ToU64(d, hn::ShiftRight<32>(g), nb),
                        hn::ShiftRight<32>(MulU32ToU64(d, lo, nb)));
  return hn::ShiftRight<23>(sum);
}

// classic's positions in the tiled pipeline (simd/pipeline-inl.h): all k bit positions of a tile's
// keys, N keys per vector, computed before any is touched. The kernel's State, Tile and Locate for
// classic (classic/kernel-inl.h) and the classic counting cell (counting/kernel-inl.h).
struct ClassicPositions {
  // Keys per tile: positions of up to 32 probes per key fit a 16 KiB stack buffer.
  static constexpr size_t kTileKeys = 64;
  static constexpr uint32_t kMaxProbes = 32;
  struct State {
    explicit State(const detail::Params&) {}
  };
  struct Tile {
    HWY_ALIGN uint64_t bit[kMaxProbes * kTileKeys];  // bit[i * kTileKeys + j]: probe i of key j
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    const hn::ScalableTag<uint64_t> d;
    const auto nb = hn::Set(d, p.num_blocks);
    const uint32_t k = p.k;
    ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      const auto step = hn::RotateRight<32>(h);
      auto g = h;
      for (uint32_t i = 0; i < k; ++i) {
        hn::Store(ClassicBitV(d, g, nb), d, tile.bit + i * kTileKeys + j);
        g = hn::Add(g, step);
      }
    });
  }
};

// The smallest of values below 2^32 held in u64 lanes, over any number of vectors, as a u32
// minimum: each lane's high half set to ones, so a native u32 min (every x86 target has one; a u64
// min is emulated before AVX-512) gives the lanes' (design note M11).
template <class D>
class MinOfU64Lanes {
 public:
  explicit MinOfU64Lanes(D d)
      : high_(hn::Set(d, 0xFFFFFFFF00000000ull)), low_(hn::Set(d32_, ~0u)) {}
  HWY_INLINE void Add(hn::Vec<D> v) { low_ = hn::Min(low_, hn::BitCast(d32_, hn::Or(v, high_))); }
  HWY_INLINE uint32_t Get() const { return hn::GetLane(hn::MinOfLanes(d32_, low_)); }

 private:
  hn::Repartition<uint32_t, D> d32_;
  hn::Vec<D> high_;
  hn::Vec<hn::Repartition<uint32_t, D>> low_;
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
