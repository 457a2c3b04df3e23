// SPDX-License-Identifier: Apache-2.0
// The block512 layout's specification: its constants, and the functions its folder defines
// (scalar.h, scalar.cc: its one-key code, the library's out-of-line single-key path and the
// oracle's model;
// model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target compilation unit). Listed once in
// kernels/registry.h. lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_BLOCK512_SPEC_H_
#define SIMDBLOOM_KERNELS_BLOCK512_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct Block512Spec {
  static constexpr const char* kName = "block512";
  // The file format's layout id and the value of simdbloom::Layout::kBlock512 (frozen).
  static constexpr uint8_t kFormatId = 1;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = 512;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = 1, kMaxK = 16;
  // Hash family: XXH64 if true, else XXH3 (both over the key's bytes, with the filter's seed).
  static constexpr bool kXxh64 = false;
  // Probe i of hash h sets bit lo32(a * M[8r + w]) >> 26 of u64 word w = (w0 + i) mod 8 of block
  // hi32(h) * num_blocks >> 32, with a = lo32(h), w0 = hi32(h) mod 8, r = i / 8.
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc (shared.h)
};

// Probe i of hash h: word (w0 + i) mod 8, bit lo32(a * M[8r + w]) >> 26 (the installed header's
// probe math, simdbloom/detail/probes.hpp).
inline void Block512Probe(uint64_t h, uint32_t i, uint32_t* word, uint32_t* bit) {
  *word = Block512Word(h, i);
  *bit = Block512Bit(h, i);
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_BLOCK512_SPEC_H_
