// SPDX-License-Identifier: Apache-2.0
// Sizing math: the false-positive model of each layout (lib/FORMAT.md) and the search for the
// smallest filter that keeps a requested rate.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Below this the inclusion-exclusion sums lose digits to cancellation (terms reach O(1e4) in
// magnitude, the result must be accurate to ~0.1%).
constexpr double kMinFpp = 1e-9;

}  // namespace

// The public enum and the registry agree (kernels/registry.h).
#define SIMDBLOOM_X(Name, C_NAME)                                               \
  static_assert(static_cast<uint8_t>(Layout::k##Name) == Name##Spec::kFormatId, \
                "simdbloom::Layout::k" #Name " differs from kernels/registry.h");
SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X

}  // namespace detail

using detail::Invalid;

Span<const Layout> layouts() noexcept {
  static constexpr Layout kAll[] = {
#define SIMDBLOOM_X(Name, C_NAME) Layout::k##Name,
      SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
  };
  return Span<const Layout>(kAll, sizeof(kAll) / sizeof(kAll[0]));
}

const char* layout_name(Layout layout) noexcept {
  const detail::LayoutInfo* info = detail::InfoOf(layout);
  return info != nullptr ? info->name : "unknown";
}

uint32_t block_bits(Layout layout) {
  const detail::LayoutInfo* info = detail::InfoOf(layout);
  if (info == nullptr) Invalid("block_bits: unknown layout");
  return info->block_bits;
}

double predicted_fpp(Layout layout, uint64_t bits, uint32_t k, uint64_t n) {
  detail::CheckLayoutAndK("predicted_fpp", layout, k);
  if (bits == 0) Invalid("predicted_fpp: bits must be > 0");
  const uint64_t blocks = detail::BlocksFor(bits, block_bits(layout));
  if (blocks > detail::kMaxBlocks) Invalid("predicted_fpp: more than 2^32 - 1 blocks");
  return detail::ModelFpr(layout, k, static_cast<double>(n), blocks);
}

namespace detail {
namespace {

// Guava 31.1's BloomFilter.create(funnel, n, fpp), as its code computes it in Java doubles
// (lib/FORMAT.md, "guava and guava32"): numBits = (long) (-n * ln(fpp) / (ln 2 * ln 2)),
// k = max(1, (int) Math.round((double) numBits / n * ln 2)), ceil(numBits / 64) longs. Guava
// refuses numBits = 0, k > 255 and more than 2^31 - 1 longs; so does this.
Sizing GuavaSizing(uint64_t n, double fpp, Layout layout) {
  if (n > static_cast<uint64_t>(INT64_MAX)) Invalid("size_for: Guava counts items in a Java long");
  const double ln2 = std::log(2.0);
  const double bits_d = static_cast<double>(-static_cast<int64_t>(n)) * std::log(fpp) / (ln2 * ln2);
  if (!(bits_d < 0x1p62)) Invalid("size_for: the filter would pass Guava's 2^31 - 1 longs");
  const int64_t num_bits = static_cast<int64_t>(bits_d);  // Java's (long): toward zero
  if (num_bits <= 0) {
    Invalid("size_for: " + std::to_string(n) + " items at fpp " + std::to_string(fpp) +
            " give Guava 0 bits (its create refuses them)");
  }
  const uint64_t longs = (static_cast<uint64_t>(num_bits) + 63) / 64;
  if (longs > kMaxGuavaLongs) Invalid("size_for: the filter would pass Guava's 2^31 - 1 longs");
  // Math.round(x) is floor(x + 1/2) exactly; llround (half away from zero) equals it for x > 0.
  const int64_t k = std::max<int64_t>(
      1, std::llround(static_cast<double>(num_bits) / static_cast<double>(n) * ln2));
  if (k > 255) Invalid("size_for: Guava's k = " + std::to_string(k) + " is above 255");
  const uint32_t k32 = static_cast<uint32_t>(k);
  return Sizing{longs * 64, k32, ModelFpr(layout, k32, static_cast<double>(n), longs)};
}

}  // namespace
}  // namespace detail

Sizing size_for(uint64_t expected_items, double fpp, Layout layout) {
  if (!detail::KnownLayout(layout)) Invalid("size_for: unknown layout");
  if (expected_items == 0) Invalid("size_for: expected_items must be > 0");
  if (!(fpp > 0 && fpp < 1)) Invalid("size_for: fpp must be in (0, 1), got " + std::to_string(fpp));
  if (detail::InfoOf(layout)->murmur128) return detail::GuavaSizing(expected_items, fpp, layout);
  if (fpp < detail::kMinFpp) Invalid("size_for: fpp below 1e-9 cannot be sized reliably");
  const double n = static_cast<double>(expected_items);
  const double target = fpp * kSizingHeadroom;
  uint64_t best_blocks = 0;
  uint32_t best_k = 0;
  for (uint32_t k = detail::MinK(layout); k <= detail::MaxK(layout); ++k) {
    // FPR falls as blocks grow: binary search the smallest count that meets fpp.
    if (detail::ModelFpr(layout, k, n, detail::kMaxBlocks) > target) continue;
    uint64_t lo = 1, hi = detail::kMaxBlocks;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (detail::ModelFpr(layout, k, n, mid) <= target) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (best_k == 0 || lo < best_blocks) {  // ties keep the smaller k: fewer probes per key
      best_blocks = lo;
      best_k = k;
    }
  }
  if (best_k == 0) {
    Invalid("size_for: " + std::to_string(expected_items) + " items at fpp " + std::to_string(fpp) +
            " need more than 2^32 - 1 blocks of " + layout_name(layout));
  }
  return Sizing{best_blocks * block_bits(layout), best_k,
                detail::ModelFpr(layout, best_k, n, best_blocks)};
}

}  // namespace simdbloom
