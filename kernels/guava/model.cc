// SPDX-License-Identifier: Apache-2.0
// guava's false-positive model and statistics (lib/FORMAT.md): the classic filter's, over m =
// 64 * num_blocks bits (Guava's probes are k bits anywhere in the array; MITZ_64 may repeat a
// bit within a key, which the model's (1 - 1/m)^(k n) already allows for).
#include "kernels/fpr_terms.h"

#include <cmath>

#include "kernels/guava/spec.h"

namespace simdbloom {
namespace detail {

double GuavaSpec::ModelFpr(uint32_t k, double n, uint64_t num_blocks) {
  const double m = 64.0 * static_cast<double>(num_blocks);
  const double fill = -std::expm1(static_cast<double>(k) * n * std::log1p(-1.0 / m));
  return Clamp01(std::pow(fill, static_cast<double>(k)));
}

double GuavaSpec::DistinctBitsPerKey(uint32_t k, double m) {
  return m * -std::expm1(k * std::log1p(-1.0 / m));
}

double GuavaSpec::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) {
  uint64_t set = 0;
  for (uint64_t i = 0; i < num_blocks; ++i) set += Popcount64(WordAt(bytes, i));
  const double fill = static_cast<double>(set) / (64.0 * static_cast<double>(num_blocks));
  return std::pow(fill, static_cast<double>(k));
}

}  // namespace detail
}  // namespace simdbloom
