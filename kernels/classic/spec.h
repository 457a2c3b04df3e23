// SPDX-License-Identifier: Apache-2.0
// The classic layout's specification: its constants, and the functions its folder defines
// (scalar.h, scalar.cc: its one-key code, the library's out-of-line single-key path and the
// oracle's model;
// model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target compilation unit). Listed once in
// kernels/registry.h. lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_CLASSIC_SPEC_H_
#define SIMDBLOOM_KERNELS_CLASSIC_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct ClassicSpec {
  static constexpr const char* kName = "classic";
  // The file format's layout id and the value of simdbloom::Layout::kClassic (frozen).
  static constexpr uint8_t kFormatId = 4;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = 512;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = 1, kMaxK = 32;
  // Hash family: XXH64 if true, else XXH3 (both over the key's bytes, with the filter's seed).
  static constexpr bool kXxh64 = false;
  // k bits anywhere in the m = 512 * num_blocks bits: probe i is bit floor(g_i * m / 2^64),
  // g_i = h + i * rotl(h, 32) mod 2^64 (double hashing in 64-bit fixed point).
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc (shared.h)
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_CLASSIC_SPEC_H_
