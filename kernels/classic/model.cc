// SPDX-License-Identifier: Apache-2.0
// classic's false-positive model and statistics (lib/FORMAT.md).
#include "kernels/fpr_terms.h"

#include <cmath>

#include "kernels/classic/spec.h"

namespace simdbloom {
namespace detail {

double ClassicSpec::ModelFpr(uint32_t k, double n, uint64_t num_blocks) {
  // (1 - (1 - 1/m)^(k n))^k with m = 512 * num_blocks bits.
  const double m = 512.0 * static_cast<double>(num_blocks);
  const double fill = -std::expm1(static_cast<double>(k) * n * std::log1p(-1.0 / m));
  return Clamp01(std::pow(fill, static_cast<double>(k)));
}

double ClassicSpec::DistinctBitsPerKey(uint32_t k, double m) {
  return m * -std::expm1(k * std::log1p(-1.0 / m));
}

double ClassicSpec::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) {
  uint64_t set = 0;
  for (uint64_t i = 0; i < num_blocks * 8; ++i) set += Popcount64(WordAt(bytes, i));
  const double fill = static_cast<double>(set) / (512.0 * static_cast<double>(num_blocks));
  return std::pow(fill, static_cast<double>(k));
}

}  // namespace detail
}  // namespace simdbloom
