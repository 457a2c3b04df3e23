// SPDX-License-Identifier: Apache-2.0
// Shared by the layouts' model.cc files (no SIMD): inclusion-exclusion terms of a blocked layout's
// false-positive rate, and popcounts of a bit array (lib/FORMAT.md).
#ifndef SIMDBLOOM_KERNELS_FPR_TERMS_H_
#define SIMDBLOOM_KERNELS_FPR_TERMS_H_

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
