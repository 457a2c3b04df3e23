// SPDX-License-Identifier: Apache-2.0
// block512's scalar one-key code (spec.h): one key at a time, probe by probe.
// Production code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions, the
// library's single-key path for layouts without an inline one (LayoutInfo::scalar_*, registry.h).
// The oracle (kernels/reference.cc) inlines it, key by key. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_BLOCK512_SCALAR_H_
#define SIMDBLOOM_KERNELS_BLOCK512_SCALAR_H_

#include <cstdint>

#include "kernels/bits.h"
#include "kernels/block512/spec.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"

namespace simdbloom {
namespace detail {

struct Block512Scalar {
  static bool Insert(uint64_t* words, const Params& p, uint64_t h) {
    uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
    bool changed = false;
    for (uint32_t i = 0; i < p.k; ++i) {
      uint32_t w, b;
      Block512Probe(h, i, &w, &b);
      changed |= SetBit(&block[w], b);
    }
    return changed;
  }

  static bool Contains(const uint64_t* words, const Params& p, uint64_t h) {
    const uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
    for (uint32_t i = 0; i < p.k; ++i) {
      uint32_t w, b;
      Block512Probe(h, i, &w, &b);
      if (((LoadRelaxed(block + w) >> b) & 1) == 0) return false;
    }
    return true;
  }

  static bool InsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
    uint64_t* block = words + 8 * BlockIndex(h, p.num_blocks);
    uint64_t mask[8] = {};
    for (uint32_t i = 0; i < p.k; ++i) {
      uint32_t w, b;
      Block512Probe(h, i, &w, &b);
      mask[w] |= uint64_t{1} << b;
    }
    uint64_t clear = 0;
    for (int w = 0; w < 8; ++w) clear |= AtomicOr(block + w, mask[w]);
    return clear != 0;
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_BLOCK512_SCALAR_H_
