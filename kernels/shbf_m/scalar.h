// SPDX-License-Identifier: Apache-2.0
// shifting's scalar one-key code (spec.h): one key at a time, pair by pair.
// Production code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions, the
// library's single-key path for layouts without an inline one (LayoutInfo::scalar_*, registry.h).
// The oracle (kernels/reference.cc) inlines it, key by key. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_SHBF_M_SCALAR_H_
#define SIMDBLOOM_KERNELS_SHBF_M_SCALAR_H_

#include <cstdint>

#include "kernels/bits.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/shbf_m/spec.h"

namespace simdbloom {
namespace detail {

struct ShiftingScalar {
  static bool Insert(uint64_t* words, const Params& p, uint64_t h) {
    uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
    bool changed = false;
    for (uint32_t i = 0; 2 * i < p.k; ++i) {
      uint32_t w;
      uint64_t mask;
      ShiftingPair(h, i, p.k, &w, &mask);
      changed |= (block[w] & mask) != mask;
      block[w] |= mask;
    }
    return changed;
  }

  static bool Contains(const uint64_t* words, const Params& p, uint64_t h) {
    const uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
    for (uint32_t i = 0; 2 * i < p.k; ++i) {
      uint32_t w;
      uint64_t mask;
      ShiftingPair(h, i, p.k, &w, &mask);
      if ((LoadRelaxed(block + w) & mask) != mask) return false;
    }
    return true;
  }

  static bool InsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
    uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
    uint64_t clear = 0;
    for (uint32_t i = 0; 2 * i < p.k; ++i) {
      uint32_t w;
      uint64_t mask;
      ShiftingPair(h, i, p.k, &w, &mask);
      clear |= AtomicOr(block + w, mask);
    }
    return clear != 0;
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SHBF_M_SCALAR_H_
