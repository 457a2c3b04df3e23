// SPDX-License-Identifier: Apache-2.0
// split_block256's scalar one-key code (spec.h; Parquet's split block Bloom filter).
// Production code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions, the
// library's single-key path for layouts without an inline one (LayoutInfo::scalar_*, registry.h).
// The oracle (kernels/reference.cc) inlines it, key by key. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SCALAR_H_
#define SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SCALAR_H_

#include <cstdint>

#include "kernels/bits.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/split_block256/spec.h"

namespace simdbloom {
namespace detail {

struct SplitBlock256Scalar {
  static bool Insert(uint64_t* words, const Params& p, uint64_t h) {
    uint32_t* block = reinterpret_cast<uint32_t*>(words) + 8 * BlockIndex(h, p.num_blocks);
    bool changed = false;
    for (uint32_t i = 0; i < 8; ++i) {
      const uint32_t bit = uint32_t{1} << (SplitBlock256Bit(h, i));
      changed |= (block[i] & bit) == 0;
      block[i] |= bit;
    }
    return changed;
  }

  static bool Contains(const uint64_t* words, const Params& p, uint64_t h) {
    const uint32_t* block =
        reinterpret_cast<const uint32_t*>(words) + 8 * BlockIndex(h, p.num_blocks);
    for (uint32_t i = 0; i < 8; ++i) {
      if (((LoadRelaxed(block + i) >> (SplitBlock256Bit(h, i))) & 1) == 0) return false;
    }
    return true;
  }

  static bool InsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
    uint64_t* block = words + 4 * BlockIndex(h, p.num_blocks);  // 32 bytes: four u64 words
    uint64_t clear = 0;
    for (uint32_t i = 0; i < 4; ++i) {  // u32 word 2i is the low half of u64 word i (little-endian)
      const uint64_t lo = uint64_t{1} << (SplitBlock256Bit(h, 2 * i));
      const uint64_t hi = uint64_t{1} << (SplitBlock256Bit(h, 2 * i + 1));
      clear |= AtomicOr(block + i, lo | hi << 32);
    }
    return clear != 0;
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SCALAR_H_
