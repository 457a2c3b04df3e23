// SPDX-License-Identifier: Apache-2.0
// What a filter knows from its bits: fill ratio, approximate count and the false-positive rate of
// the actual bit array (lib/FORMAT.md, "Statistics").
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/fpr_terms.h"
#include "lib/core/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

using detail::Popcount64;
using detail::WordAt;

uint64_t SetBits(const uint8_t* bytes, size_t size) {
  uint64_t total = 0;
  for (size_t i = 0; i < size / 8; ++i) total += Popcount64(WordAt(bytes, i));
  return total;
}

}  // namespace

double Filter::fill_ratio() const noexcept {
  if (words_ == nullptr) return 0;
  return static_cast<double>(SetBits(data(), size_bytes())) / static_cast<double>(bit_count());
}

double Filter::approximate_count() const noexcept {
  if (words_ == nullptr) return 0;
  const double m = static_cast<double>(bit_count());
  const double zero = m - static_cast<double>(SetBits(data(), size_bytes()));
  if (zero <= 0) return std::numeric_limits<double>::infinity();
  // Expected distinct bits one key sets (FORMAT.md): the per-key share of the array that makes
  // E[zero bits] = m (1 - d/m)^n exact under uniform hashing.
  const double d = detail::InfoOf(layout_)->distinct_bits_per_key(k_, m);
  return std::log(zero / m) / std::log1p(-d / m);
}

double Filter::expected_fpp() const noexcept {
  if (words_ == nullptr) return 0;
  return detail::InfoOf(layout_)->expected_fpp(data(), num_blocks_, k_);
}

}  // namespace simdbloom
