// SPDX-License-Identifier: Apache-2.0
// register64's scalar one-key code (spec.h): one u64 word per key.
// Production code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions, the
// library's single-key path for layouts without an inline one (LayoutInfo::scalar_*, registry.h).
// The oracle (kernels/reference.cc) inlines it, key by key. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_REGISTER64_SCALAR_H_
#define SIMDBLOOM_KERNELS_REGISTER64_SCALAR_H_

#include <cstdint>

#include "kernels/bits.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/register64/spec.h"
#include "kernels/scalar/probes.h"

namespace simdbloom {
namespace detail {

struct Register64Scalar {
  static bool Insert(uint64_t* words, const Params& p, uint64_t h) {
    uint64_t& word = words[BlockIndex(h, p.num_blocks)];
    const uint64_t mask = scalar::Register64Mask(h, p.k);
    const bool changed = (word & mask) != mask;
    word |= mask;
    return changed;
  }

  static bool Contains(const uint64_t* words, const Params& p, uint64_t h) {
    const uint64_t mask = scalar::Register64Mask(h, p.k);
    return (LoadRelaxed(words + BlockIndex(h, p.num_blocks)) & mask) == mask;
  }

  static bool InsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
    return AtomicOr(words + BlockIndex(h, p.num_blocks), scalar::Register64Mask(h, p.k)) != 0;
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REGISTER64_SCALAR_H_
