// SPDX-License-Identifier: Apache-2.0
// The split_block256 layout's specification: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
#define SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_

#include <cstdint>

#include "kernels/layout_spec.h"
#include "simdbloom/detail/probes.hpp"

// Parquet's split block Bloom filter: 32-byte blocks of eight u32 words; word i of block
// hi32(h) * num_blocks >> 32 gets bit (lo32(h) * kSalt[i]) >> 27. k is always 8.
// (Parquet's salts, defined once in simdbloom/detail/probes.hpp.)
SIMDBLOOM_LAYOUT_SPEC(SplitBlock256, "split_block256", 3, 256, 8, 8, kXxh64,
                      static constexpr const uint32_t (&kSalt)[8] = kSplitSalt;)

#endif  // SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
