// SPDX-License-Identifier: Apache-2.0
// The register64 layout's specification: its constants, and the functions its folder defines
// (scalar.h, scalar.cc: its one-key code, the library's out-of-line single-key path and the
// oracle's model;
// model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target compilation unit). Listed once in
// kernels/registry.h. lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
#define SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct Register64Spec {
  static constexpr const char* kName = "register64";
  // The file format's layout id and the value of simdbloom::Layout::kRegister64 (frozen).
  static constexpr uint8_t kFormatId = 2;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = 64;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = 1, kMaxK = 16;
  // Hash family: XXH64 if true, else XXH3 (both over the key's bytes, with the filter's seed).
  static constexpr bool kXxh64 = false;
  // One u64 word per key, word hi32(h) * num_words >> 32; probe i sets bit lo32(a * M[i]) >> 26.
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc (shared.h)
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
