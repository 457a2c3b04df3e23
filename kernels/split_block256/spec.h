// SPDX-License-Identifier: Apache-2.0
// The split_block256 layout's specification: its constants, and the functions its folder defines
// (scalar.h, scalar.cc: its one-key code, the library's out-of-line single-key path and the
// oracle's model;
// model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target compilation unit). Listed once in
// kernels/registry.h. lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
#define SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct SplitBlock256Spec {
  static constexpr const char* kName = "split_block256";
  // The file format's layout id and the value of simdbloom::Layout::kSplitBlock256 (frozen).
  static constexpr uint8_t kFormatId = 3;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = 256;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = 8, kMaxK = 8;
  // Hash family: XXH64 if true, else XXH3 (both over the key's bytes, with the filter's seed).
  static constexpr bool kXxh64 = true;
  // Parquet's split block Bloom filter: 32-byte blocks of eight u32 words; word i of block
  // hi32(h) * num_blocks >> 32 gets bit (lo32(h) * kSalt[i]) >> 27. k is always 8.
  // (Parquet's salts, defined once in simdbloom/detail/probes.hpp.)
  static constexpr const uint32_t (&kSalt)[8] = kSplitSalt;
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc (shared.h)
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
