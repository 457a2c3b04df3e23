// SPDX-License-Identifier: Apache-2.0
// Per-target key sources: the hashes of a tile of keys from any KeySource (u64 / u32 keys hashed
// vectorized, pre-hashed keys copied, byte strings through the source's hash function, selection
// vectors gathered first), and software prefetch of a direct source's next keys. Re-included once
// per Highway target.
#if defined(SIMDBLOOM_KERNELS_SIMD_SOURCES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SIMD_SOURCES_INL_H_
#undef SIMDBLOOM_KERNELS_SIMD_SOURCES_INL_H_
#else
#define SIMDBLOOM_KERNELS_SIMD_SOURCES_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/interface.h"
#include "kernels/simd/hash-inl.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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
      // Keys may be unaligned (the API promises it): read each with memcpy.
      for (size_t j = 0; j < m; ++j) {
        std::memcpy(&gathered32[j], keys + src.sel[begin + j], sizeof(uint32_t));
      }
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
    for (size_t j = 0; j < m; ++j) gathered[j] = detail::LoadU64(keys + src.sel[begin + j]);
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
