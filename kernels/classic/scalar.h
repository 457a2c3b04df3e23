// SPDX-License-Identifier: Apache-2.0
// classic's scalar one-key code (spec.h): k bits anywhere in the array by double hashing.
// Production code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions, the
// library's single-key path for layouts without an inline one (LayoutInfo::scalar_*, registry.h).
// The oracle (kernels/reference.cc) inlines it, key by key. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_CLASSIC_SCALAR_H_
#define SIMDBLOOM_KERNELS_CLASSIC_SCALAR_H_

#include <cstdint>

#include "kernels/bits.h"
#include "kernels/classic/spec.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/scalar/probes.h"

namespace simdbloom {
namespace detail {

struct ClassicScalar {
  static bool Insert(uint64_t* words, const Params& p, uint64_t h) {
    const uint64_t step = scalar::ClassicStep(h);
    uint64_t g = h;
    bool changed = false;
    for (uint32_t i = 0; i < p.k; ++i, g += step) {
      const uint64_t bit = scalar::ClassicBit(g, p.num_blocks);
      changed |= SetBit(&words[bit >> 6], static_cast<uint32_t>(bit & 63));
    }
    return changed;
  }

  static bool Contains(const uint64_t* words, const Params& p, uint64_t h) {
    const uint64_t step = scalar::ClassicStep(h);
    uint64_t g = h;
    for (uint32_t i = 0; i < p.k; ++i, g += step) {
      const uint64_t bit = scalar::ClassicBit(g, p.num_blocks);
      if (((LoadRelaxed(words + (bit >> 6)) >> (bit & 63)) & 1) == 0) return false;
    }
    return true;
  }

  static bool InsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
    const uint64_t step = scalar::ClassicStep(h);
    uint64_t g = h, clear = 0;
    for (uint32_t i = 0; i < p.k; ++i, g += step) {
      const uint64_t bit = scalar::ClassicBit(g, p.num_blocks);
      clear |= AtomicOr(words + (bit >> 6), uint64_t{1} << (bit & 63));
    }
    return clear != 0;
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_CLASSIC_SCALAR_H_
