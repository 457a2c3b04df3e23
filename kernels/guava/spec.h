// SPDX-License-Identifier: Apache-2.0
// The guava layout's specification: Guava's BloomFilter with strategy MITZ_64, bit for bit
// (lib/FORMAT.md, "guava and guava32"). Its constants, and the functions its folder defines
// (scalar.h, scalar.cc: its one-key code; model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target unit). Listed once in
// kernels/registry.h.
#ifndef SIMDBLOOM_KERNELS_GUAVA_SPEC_H_
#define SIMDBLOOM_KERNELS_GUAVA_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct GuavaSpec {
  static constexpr const char* kName = "guava";
  // The file format's layout id and the value of simdbloom::Layout::kGuava (frozen).
  static constexpr uint8_t kFormatId = 6;
  // Guava's strategy ordinal, the first byte of its writeTo form.
  static constexpr uint8_t kGuavaOrdinal = 1;
  // Bits per block: one of Guava's longs, the unit of its size.
  static constexpr uint32_t kBlockBits = 64;
  // Probes per key: Guava's range (its writeTo form holds k in one unsigned byte).
  static constexpr uint32_t kMinK = 1, kMaxK = 255;
  // Hash family: Murmur3 x64 128, seed 0, over the key's funnel bytes (not XXH3/XXH64; the
  // filter's seed must be 0).
  static constexpr bool kXxh64 = false;
  static constexpr bool kMurmur128 = true;
  // Guava's MURMUR128_MITZ_64 (its ordinal 1, what BloomFilter.create makes): h1, h2 = the halves
  // of Murmur3 x64 128 (seed 0) of the key's funnel bytes; probe i < k is bit
  // (h1 + i * h2 & Long.MAX_VALUE) mod m of the m = 64 * num_blocks bits; bit b is bit b & 63 of
  // word b >> 6 (lib/FORMAT.md, kernels/scalar/guava.h).
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc (shared.h)
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_GUAVA_SPEC_H_
