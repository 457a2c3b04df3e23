// SPDX-License-Identifier: Apache-2.0
// The guava layout's specification: Guava's BloomFilter with strategy MITZ_64, bit for bit
// (lib/FORMAT.md, "guava and guava32"): its constants and probe mapping (the folder's files:
// kernels/registry.h). A block is one of Guava's longs; k's range is Guava's (its writeTo form
// holds k in one unsigned byte).
#ifndef SIMDBLOOM_KERNELS_GUAVA_SPEC_H_
#define SIMDBLOOM_KERNELS_GUAVA_SPEC_H_

#include "kernels/layout_spec.h"

// Guava's MURMUR128_MITZ_64 (its ordinal 1, what BloomFilter.create makes): h1, h2 = the halves
// of Murmur3 x64 128 (seed 0) of the key's funnel bytes; probe i < k is bit
// (h1 + i * h2 & Long.MAX_VALUE) mod m of the m = 64 * num_blocks bits; bit b is bit b & 63 of
// word b >> 6 (lib/FORMAT.md, kernels/scalar/guava.h). kGuavaOrdinal: Guava's strategy ordinal,
// the first byte of its writeTo form.
SIMDBLOOM_LAYOUT_SPEC(Guava, "guava", 6, 64, 1, 255, kMurmur128,
                      static constexpr uint8_t kGuavaOrdinal = 1;)

#endif  // SIMDBLOOM_KERNELS_GUAVA_SPEC_H_
