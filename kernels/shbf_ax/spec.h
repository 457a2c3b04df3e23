// SPDX-License-Identifier: Apache-2.0
// The candidates kernel of the shifting set filters (ShBF_A, ShBF_x; lib/kinds/shifting_sets.cc,
// lib/FORMAT.md "Shifting set filters"), compiled per target by kernels/shbf_ax/kernels.cc.
#ifndef SIMDBLOOM_KERNELS_SHBF_AX_SPEC_H_
#define SIMDBLOOM_KERNELS_SHBF_AX_SPEC_H_

#include <cstddef>
#include <cstdint>

#include "kernels/bits.h"
#include "kernels/interface.h"

namespace simdbloom {
namespace detail {

// out[i] = AND over w < 8 of rotr(W[w], lo32(lo32(h) * M[w]) >> 26) in block
// (hi32(h) * p.num_blocks) >> 32 of `words`, h = the hash of key i of `keys` (pre-hashed, or u64
// keys hashed with XXH3 and p.seed), i < n: bit o set iff the key's pattern at offset o is
// complete. Runs in the tile pipeline (kernels/simd/pipeline-inl.h) with the block as its layout,
// each block prefetched p.prefetch_distance keys before it is read. Stack only, no allocation.
struct ShiftingSetKernels {
  void (*candidates)(const uint64_t* words, const Params& p, const KeySource& keys, size_t n,
                     uint64_t* out);
};
// Keys are hashed with XXH3 (the kinds' hash family, kernels/registry.h).
constexpr bool kShiftingSetsXxh64 = false;

// Entry `table_index` of the per-target table (kernels/shbf_ax/kernels.cc), read by
// kernels/dispatch.cc through the kinds' list of kernels/registry.h.
const ShiftingSetKernels* ShiftingSetKernelsAt(size_t table_index);
// The reference target's: the scalar form below, key by key (kernels/reference.cc).
const ShiftingSetKernels& ShiftingSetReference();

// The candidates of hash h in `words` of `num_blocks` blocks, in plain C++: the spec the kernels
// are tested against, and the single-key path (lib/kinds/shifting_sets.cc).
inline uint64_t ShiftingSetCandidatesAt(const uint64_t* words, uint64_t num_blocks, uint64_t h) {
  const uint64_t* block = words + 8 * BlockIndex(h, num_blocks);
  const uint32_t a = static_cast<uint32_t>(h);
  uint64_t c = ~uint64_t{0};
  for (uint32_t w = 0; w < 8; ++w) {
    const uint32_t r = (a * kMultipliers.m[w]) >> 26;
    c &= (block[w] >> r) | (block[w] << ((64 - r) & 63));
  }
  return c;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SHBF_AX_SPEC_H_
