// SPDX-License-Identifier: Apache-2.0
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
#include "kernels/classic/spec.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/probes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// classic in the tiled pipeline (simd/pipeline-inl.h): all k bit positions of a tile's keys are
// computed N keys per vector before any is touched (ClassicPositions, simd/probes-inl.h); an insert
// prefetches every probe's line, a query the first p.query_prefetch_probes; queries gather where
// gathers are native. Its tile, State and Locate are ClassicPositions'.
struct Classic : ClassicPositions {
  static constexpr bool kXxh64 = detail::ClassicSpec::kXxh64;

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params& p, const Tile& tile,
                                  size_t j) {
    const uint32_t probes = detail::Mutates(kOp) ? p.k : HWY_MIN(p.k, p.query_prefetch_probes);
    for (uint32_t i = 0; i < probes; ++i)
      PrefetchLine<kOp>(words + (tile.bit[i * kTileKeys + j] >> 6));
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params& p, const State&,
                                 const uint64_t* HWY_RESTRICT, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    const uint32_t k = p.k;
    const uint64_t* HWY_RESTRICT bit = tile.bit;
    size_t changed = 0;
    if constexpr (detail::Mutates(kOp)) {
      for (size_t j = j0; j < j1; ++j) {
        ahead(j);
        uint64_t clear = 0;
        for (uint32_t i = 0; i < k; ++i) {
          const uint64_t b = bit[i * kTileKeys + j];
          if constexpr (kOp == detail::Op::kInsertAtomic) {
            clear |= detail::AtomicOr(words + (b >> 6), uint64_t{1} << (b & 63)) != 0;
          } else {
            const uint64_t old = words[b >> 6];
            clear |= ~old >> (b & 63);
            words[b >> 6] = old | (uint64_t{1} << (b & 63));
          }
        }
        if (hits != nullptr) hits[j] = static_cast<uint8_t>(clear & 1);
        changed += clear & 1;
      }
    } else {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || SIMDBLOOM_SVE
      GatherTestProbes<kTileKeys>(words, bit, k, j0, j1, hits, ahead);
#else
      // Gathers are emulated here: a key at a time. A filter in cache (not prefetched) tests all k
      // probes without a branch: stopping at the first clear bit mispredicts on most absent keys
      // (perf/README.md, design note M10). A prefetched one stops there, since
      // only the first kQueryPrefetchProbes lines were prefetched and the rest would miss.
      if (p.prefetch_distance == 0) {
        for (size_t j = j0; j < j1; ++j) {
          ahead(j);  // a no-op: not prefetching
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
          uint8_t hit = 1;
          for (uint32_t i = 0; i < k && hit; ++i) {
            const uint64_t b = bit[i * kTileKeys + j];
            hit = static_cast<uint8_t>((words[b >> 6] >> (b & 63)) & 1);
          }
          hits[j] = hit;
        }
      }
#endif
    }
    return changed;
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
