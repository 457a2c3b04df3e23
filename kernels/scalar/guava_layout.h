// SPDX-License-Identifier: Apache-2.0
// What the Guava layouts' folders (kernels/guava/, kernels/guava32/) share beyond the probe math of
// kernels/scalar/guava.h: their scalar one-key code and their false-positive model. Plain C++, no
// target flags; the kernels do not include it (their code is kernels/simd/guava-inl.h).
#ifndef SIMDBLOOM_KERNELS_SCALAR_GUAVA_LAYOUT_H_
#define SIMDBLOOM_KERNELS_SCALAR_GUAVA_LAYOUT_H_

#include <cmath>
#include <cstdint>

#include "kernels/bits.h"
#include "kernels/concurrency.h"
#include "kernels/fpr_terms.h"
#include "kernels/interface.h"
#include "kernels/scalar/guava.h"

namespace simdbloom {
namespace scalar {
// A Guava layout's scalar one-key code (kernels/guava/, kernels/guava32/ scalar.h: MITZ_32 if
// kMitz32, else MITZ_64) over 64-bit words, bit b being bit b & 63 of word b >> 6.
template <bool kMitz32>
struct GuavaScalarOf {
  template <class Visit>
  static bool Probes(const detail::Params& p, Hash128 h, const Visit& visit) {
    const GuavaMod mod(p.num_blocks);
    if constexpr (kMitz32) {
      return GuavaMitz32Probes(mod, p.k, h.h1, visit);
    } else {
      return GuavaMitz64Probes(mod, p.k, h, visit);
    }
  }

  static bool Insert128(uint64_t* words, const detail::Params& p, Hash128 h) {
    bool changed = false;
    Probes(p, h, [&](uint64_t bit) {
      changed |= detail::SetBit(&words[bit >> 6], static_cast<uint32_t>(bit & 63));
      return true;
    });
    return changed;
  }
  static bool Contains128(const uint64_t* words, const detail::Params& p, Hash128 h) {
    return Probes(p, h, [&](uint64_t bit) {
      return ((detail::LoadRelaxed(words + (bit >> 6)) >> (bit & 63)) & 1) != 0;
    });
  }
  static bool InsertAtomic128(uint64_t* words, const detail::Params& p, Hash128 h) {
    uint64_t clear = 0;
    Probes(p, h, [&](uint64_t bit) {
      clear |= detail::AtomicOr(words + (bit >> 6), uint64_t{1} << (bit & 63));
      return true;
    });
    return clear != 0;
  }

  // A pre-hashed key. MITZ_32 reads only h1 (Guava's HashCode.asLong()): the key is that value. A
  // 64-bit hash alone does not define MITZ_64's probes (they need h2): the library refuses
  // pre-hashed keys for that layout before reaching these; here h is h1 with h2 = 0.
  static Hash128 Of(uint64_t h) { return {h, 0}; }
  static bool Insert(uint64_t* words, const detail::Params& p, uint64_t h) {
    return Insert128(words, p, Of(h));
  }
  static bool Contains(const uint64_t* words, const detail::Params& p, uint64_t h) {
    return Contains128(words, p, Of(h));
  }
  static bool InsertAtomic(uint64_t* words, const detail::Params& p, uint64_t h) {
    return InsertAtomic128(words, p, Of(h));
  }
};

// The Guava layouts' false-positive model and statistics (lib/FORMAT.md): the classic filter's,
// over m = 64 * num_blocks bits (Guava's probes are k bits anywhere in the array; either strategy
// may repeat a bit within a key, which the model's (1 - 1/m)^(k n) already allows for).
inline double GuavaModelFpr(uint32_t k, double n, uint64_t num_blocks) {
  const double m = 64.0 * static_cast<double>(num_blocks);
  const double fill = -std::expm1(static_cast<double>(k) * n * std::log1p(-1.0 / m));
  return detail::Clamp01(std::pow(fill, static_cast<double>(k)));
}
inline double GuavaDistinctBitsPerKey(uint32_t k, double m) {
  return m * -std::expm1(k * std::log1p(-1.0 / m));
}
inline double GuavaExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) {
  uint64_t set = 0;
  for (uint64_t i = 0; i < num_blocks; ++i) set += detail::Popcount64(detail::WordAt(bytes, i));
  const double fill = static_cast<double>(set) / (64.0 * static_cast<double>(num_blocks));
  return std::pow(fill, static_cast<double>(k));
}

}  // namespace scalar
}  // namespace simdbloom

// Defines a Guava layout's model functions (SPEC: GuavaSpec or Guava32Spec; its model.cc, inside
// namespace detail) from the ones above.
#define SIMDBLOOM_DEFINE_GUAVA_MODEL(SPEC)                                          \
  double SPEC::ModelFpr(uint32_t k, double n, uint64_t num_blocks) {                \
    return scalar::GuavaModelFpr(k, n, num_blocks);                                 \
  }                                                                                 \
  double SPEC::DistinctBitsPerKey(uint32_t k, double m) {                           \
    return scalar::GuavaDistinctBitsPerKey(k, m);                                   \
  }                                                                                 \
  double SPEC::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) { \
    return scalar::GuavaExpectedFpp(bytes, num_blocks, k);                          \
  }

#endif  // SIMDBLOOM_KERNELS_SCALAR_GUAVA_LAYOUT_H_
