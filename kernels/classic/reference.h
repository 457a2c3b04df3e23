// SPDX-License-Identifier: Apache-2.0
// classic's literal model (spec.h): k bits anywhere in the array by double hashing.
#ifndef SIMDBLOOM_KERNELS_CLASSIC_REFERENCE_H_
#define SIMDBLOOM_KERNELS_CLASSIC_REFERENCE_H_

#include "kernels/classic/spec.h"

namespace simdbloom {
namespace ref {

// g_{i+1} = g_i + rotl(h, 32); bit floor(g * m / 2^64), m = 512 * num_blocks bits
// (simdbloom/detail/probes.hpp).
using detail::ClassicBit;
using detail::ClassicStep;

}  // namespace ref

namespace detail {

inline bool ClassicSpec::RefInsert(uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t step = ref::ClassicStep(h);
  uint64_t g = h;
  bool changed = false;
  for (uint32_t i = 0; i < p.k; ++i, g += step) {
    const uint64_t bit = ref::ClassicBit(g, p.num_blocks);
    changed |= SetBit(&words[bit >> 6], static_cast<uint32_t>(bit & 63));
  }
  return changed;
}

inline bool ClassicSpec::RefContains(const uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t step = ref::ClassicStep(h);
  uint64_t g = h;
  for (uint32_t i = 0; i < p.k; ++i, g += step) {
    const uint64_t bit = ref::ClassicBit(g, p.num_blocks);
    if (((LoadRelaxed(words + (bit >> 6)) >> (bit & 63)) & 1) == 0) return false;
  }
  return true;
}

inline bool ClassicSpec::RefInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
  const uint64_t step = ref::ClassicStep(h);
  uint64_t g = h, clear = 0;
  for (uint32_t i = 0; i < p.k; ++i, g += step) {
    const uint64_t bit = ref::ClassicBit(g, p.num_blocks);
    clear |= AtomicOr(words + (bit >> 6), uint64_t{1} << (bit & 63));
  }
  return clear != 0;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_CLASSIC_REFERENCE_H_
