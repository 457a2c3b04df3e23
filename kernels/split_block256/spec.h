// SPDX-License-Identifier: Apache-2.0
// The split_block256 layout's specification: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
#define SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_

#include <cstdint>

#include "kernels/layout_spec.h"
#include "simdbloom/detail/probes.hpp"

namespace simdbloom {
namespace detail {

struct SplitBlock256Spec
    : LayoutSpec</*format id*/ 3, /*block bits*/ 256, /*k*/ 8, 8, HashFamily::kXxh64> {
  static constexpr const char* kName = "split_block256";
  // Parquet's split block Bloom filter: 32-byte blocks of eight u32 words; word i of block
  // hi32(h) * num_blocks >> 32 gets bit (lo32(h) * kSalt[i]) >> 27. k is always 8.
  // (Parquet's salts, defined once in simdbloom/detail/probes.hpp.)
  static constexpr const uint32_t (&kSalt)[8] = kSplitSalt;
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
