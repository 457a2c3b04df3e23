// SPDX-License-Identifier: Apache-2.0
// Per-target register64 kernels (lib/FORMAT.md): one u64 word per key, its k-bit mask computed for
// N keys per vector; insert ORs masks into words, a query gathers the words and compares.
// Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_REGISTER64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_REGISTER64_INL_H_
#undef SIMDBLOOM_KERNELS_REGISTER64_INL_H_
#else
#define SIMDBLOOM_KERNELS_REGISTER64_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/register64/spec.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/probes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// register64 in the tiled pipeline (simd/pipeline-inl.h): word indices and masks of a tile are
// computed N keys per vector; insert ORs word by word (in key order), a query gathers N words at a
// time.
struct Register64 {
  static constexpr bool kXxh64 = detail::Register64Spec::kXxh64;
  static constexpr size_t kTileKeys = kTile;
  struct State {
    explicit State(const detail::Params&) {}
  };
  struct Tile {
    HWY_ALIGN uint64_t index[kTileKeys];
    HWY_ALIGN uint64_t mask[kTileKeys];
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    const hn::ScalableTag<uint64_t> d;
    const auto nb = hn::Set(d, p.num_blocks);
    ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      hn::Store(hn::ShiftRight<32>(MulU32ToU64(d, hn::ShiftRight<32>(h), nb)), d, tile.index + j);
      hn::Store(Register64MaskV(d, h, p.k), d, tile.mask + j);
    });
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kOp>(words + tile.index[j]);
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params&, const State&,
                                 const uint64_t* HWY_RESTRICT, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    size_t changed = 0;
    if constexpr (detail::Mutates(kOp)) {
      // Two copies of the loop: with and without the per-key flag store.
      auto run = [&](auto store) HWY_ATTR {
        for (size_t j = j0; j < j1; ++j) {
          ahead(j);
          bool fresh;
          if constexpr (kOp == detail::Op::kInsertAtomic) {
            fresh = detail::AtomicOr(words + tile.index[j], tile.mask[j]) != 0;
          } else {
            const uint64_t old = words[tile.index[j]];
            fresh = (tile.mask[j] & ~old) != 0;
            words[tile.index[j]] = old | tile.mask[j];
          }
          if constexpr (decltype(store)::value) hits[j] = fresh;
          changed += fresh;
        }
      };
      if (hits != nullptr) {
        run(std::true_type());
      } else {
        run(std::false_type());
      }
    } else {
      // j0 is a multiple of the step, itself a multiple of N; lanes past j1 are recomputed later
      // or lie in the tile's padding.
      const hn::ScalableTag<uint64_t> d;
      const hn::RebindToSigned<decltype(d)> di;
      const size_t N = hn::Lanes(d);
      for (size_t j = j0; j < j1; j += N) {
        for (size_t q = j; q < HWY_MIN(j + N, j1); ++q) ahead(q);
        const auto mask = hn::Load(d, tile.mask + j);
        const auto word = hn::GatherIndex(d, words, hn::BitCast(di, hn::Load(d, tile.index + j)));
        const auto hit = hn::Eq(hn::And(word, mask), mask);
        StoreBytes(d, hn::IfThenElseZero(hit, hn::Set(d, uint64_t{1})), hits + j);
      }
    }
    return changed;
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
