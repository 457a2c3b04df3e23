// SPDX-License-Identifier: Apache-2.0
// Per-target result emission: a tile's 0/1 hits written as bytes, as an LSB-first bitmap (Arrow's
// order) or as a selection vector (in place over the source's own selection allowed).
// Re-included once per Highway target.
#if defined(SIMDBLOOM_KERNELS_SIMD_RESULTS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SIMD_RESULTS_INL_H_
#undef SIMDBLOOM_KERNELS_SIMD_RESULTS_INL_H_
#else
#define SIMDBLOOM_KERNELS_SIMD_RESULTS_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"
#include "kernels/interface.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

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

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
