// SPDX-License-Identifier: Apache-2.0
// The classic layout's specification: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_CLASSIC_SPEC_H_
#define SIMDBLOOM_KERNELS_CLASSIC_SPEC_H_

#include "kernels/layout_spec.h"

// k bits anywhere in the m = 512 * num_blocks bits: probe i is bit floor(g_i * m / 2^64),
// g_i = h + i * rotl(h, 32) mod 2^64 (double hashing in 64-bit fixed point).
SIMDBLOOM_LAYOUT_SPEC(Classic, "classic", 4, 512, 1, 32, kXxh3)

#endif  // SIMDBLOOM_KERNELS_CLASSIC_SPEC_H_
