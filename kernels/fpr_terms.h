// SPDX-License-Identifier: Apache-2.0
// Shared by the layouts' model.cc files (no SIMD): inclusion-exclusion terms of a blocked layout's
// false-positive rate, and popcounts of a bit array (lib/FORMAT.md).
#ifndef SIMDBLOOM_KERNELS_FPR_TERMS_H_
#define SIMDBLOOM_KERNELS_FPR_TERMS_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace simdbloom {
namespace detail {

// One term of a blocked layout's FPR: coef * exp(-lambda * one_minus_y), where lambda = keys per
// block and y = probability that one key inserted into the block leaves the chosen query bits
// clear.
struct Term {
  double coef;
  double one_minus_y;
};

// Merges terms with equal exponents (many are equal by symmetry): fewer exp() calls and less
// cancellation.
std::vector<Term> MergedTerms(std::vector<Term> terms);

// sum of coef * exp(-lambda * one_minus_y), clamped to [0, 1].
double EvalTerms(const std::vector<Term>& terms, double lambda);

// Advances the 8-digit mixed-radix counter s (digit w in 0 .. cap[w], digit 0 first) to its next
// value; false, with s all zeros again, after the last.
inline bool NextMixedRadix(int* s, const int* cap) {
  int w = 0;
  while (w < 8 && s[w] == cap[w]) s[w++] = 0;
  if (w == 8) return false;
  ++s[w];
  return true;
}

// EvalTerms(kTerms(k), lambda) for kMinK <= k <= kMaxK, each k's terms built once, on the first
// call (a layout's ModelFpr, kernels/<layout>/model.cc).
template <std::vector<Term> (*kTerms)(uint32_t), uint32_t kMinK, uint32_t kMaxK>
double EvalCachedTerms(uint32_t k, double lambda) {
  static const auto* tables = [] {
    auto* t = new std::array<std::vector<Term>, kMaxK + 1>();
    for (uint32_t i = kMinK; i <= kMaxK; ++i) (*t)[i] = kTerms(i);
    return t;
  }();
  return EvalTerms((*tables)[k], lambda);
}

double Clamp01(double x);

inline uint32_t Popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<uint32_t>((x * 0x0101010101010101ull) >> 56);
}

// Little-endian u64 word i of a bit array.
inline uint64_t WordAt(const uint8_t* bytes, size_t i) {
  uint64_t w;
  std::memcpy(&w, bytes + 8 * i, 8);
  return w;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_FPR_TERMS_H_
