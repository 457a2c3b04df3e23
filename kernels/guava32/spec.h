// SPDX-License-Identifier: Apache-2.0
// The guava32 layout's specification: Guava's BloomFilter with strategy MITZ_32, bit for bit
// (lib/FORMAT.md, "guava and guava32"): its constants and probe mapping (the folder's files:
// kernels/registry.h). A block is one of Guava's longs; k's range is Guava's (its writeTo form
// holds k in one unsigned byte).
#ifndef SIMDBLOOM_KERNELS_GUAVA32_SPEC_H_
#define SIMDBLOOM_KERNELS_GUAVA32_SPEC_H_

#include "kernels/layout_spec.h"

// Guava's MURMUR128_MITZ_32 (its ordinal 0, in older serialized filters): h64 = the first half of
// Murmur3 x64 128 (seed 0) of the key's funnel bytes; probe i in 1..k is bit c mod m, c =
// (int) h64 + i * (int) (h64 >>> 32) (32-bit wrap, complemented when negative), m = 64 *
// num_blocks (lib/FORMAT.md, kernels/scalar/guava.h). kGuavaOrdinal: Guava's strategy ordinal,
// the first byte of its writeTo form.
SIMDBLOOM_LAYOUT_SPEC(Guava32, "guava32", 7, 64, 1, 255, kMurmur128,
                      static constexpr uint8_t kGuavaOrdinal = 0;)

#endif  // SIMDBLOOM_KERNELS_GUAVA32_SPEC_H_
