// SPDX-License-Identifier: Apache-2.0
// guava's scalar one-key code (spec.h): Guava's MITZ_64 probes over 64-bit words. Production
// code, inline; scalar.cc compiles it out of line as the spec's Scalar* functions (the library's
// single-key path) and the oracle (kernels/reference.cc) applies it key by key. Plain C++.
#ifndef SIMDBLOOM_KERNELS_GUAVA_SCALAR_H_
#define SIMDBLOOM_KERNELS_GUAVA_SCALAR_H_

#include <cstdint>

#include "kernels/guava/spec.h"
#include "kernels/scalar/guava.h"

namespace simdbloom {
namespace detail {

struct GuavaScalar {
  template <class Visit>
  static bool Probes(const Params& p, scalar::Hash128 h, const Visit& visit) {
    const scalar::GuavaMod mod(p.num_blocks);
    return scalar::GuavaMitz64Probes(mod, p.k, h, visit);
  }

  static bool Insert128(uint64_t* words, const Params& p, scalar::Hash128 h) {
    bool changed = false;
    Probes(p, h, [&](uint64_t bit) {
      changed |= SetBit(&words[bit >> 6], static_cast<uint32_t>(bit & 63));
      return true;
    });
    return changed;
  }
  static bool Contains128(const uint64_t* words, const Params& p, scalar::Hash128 h) {
    return Probes(p, h, [&](uint64_t bit) {
      return ((LoadRelaxed(words + (bit >> 6)) >> (bit & 63)) & 1) != 0;
    });
  }
  static bool InsertAtomic128(uint64_t* words, const Params& p, scalar::Hash128 h) {
    uint64_t clear = 0;
    Probes(p, h, [&](uint64_t bit) {
      clear |= AtomicOr(words + (bit >> 6), uint64_t{1} << (bit & 63));
      return true;
    });
    return clear != 0;
  }

  // A 64-bit hash alone does not define MITZ_64's probes (they need h2): the library refuses
  // pre-hashed keys for this layout before reaching these; here h is h1 with h2 = 0.
  static scalar::Hash128 Of(uint64_t h) { return {h, 0}; }
  static bool Insert(uint64_t* words, const Params& p, uint64_t h) {
    return Insert128(words, p, Of(h));
  }
  static bool Contains(const uint64_t* words, const Params& p, uint64_t h) {
    return Contains128(words, p, Of(h));
  }
  static bool InsertAtomic(uint64_t* words, const Params& p, uint64_t h) {
    return InsertAtomic128(words, p, Of(h));
  }
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_GUAVA_SCALAR_H_
