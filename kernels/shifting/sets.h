// SPDX-License-Identifier: Apache-2.0
// The candidates kernel of the shifting set filters (ShBF_A, ShBF_x; lib/kinds/shifting_sets.cc,
// lib/FORMAT.md "Shifting set filters"), compiled per target by kernels/shifting/sets_kernels.cc.
#ifndef SIMDBLOOM_KERNELS_SHIFTING_SETS_H_
#define SIMDBLOOM_KERNELS_SHIFTING_SETS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

// out[i] = AND over w < 8 of rotr(W[w], lo32(lo32(h) * M[w]) >> 26) in block
// (hi32(h) * p.num_blocks) >> 32 of `words`, h = the hash of key i of `keys` (pre-hashed, or u64
// keys hashed with XXH3 and p.seed), i < n: bit o set iff the key's pattern at offset o is
// complete. Runs in the tile pipeline (kernels/simd/pipeline-inl.h) with the block as its layout,
// each block prefetched p.prefetch_distance keys before it is read. Stack only, no allocation.
using ShiftingSetCandidatesFn = void (*)(const uint64_t* words, const Params& p,
                                         const KeySource& keys, size_t n, uint64_t* out);
constexpr uint32_t kShiftingSetsAhead = 64;

// The kernel compiled for Highway target `hwy_target` (a value of detail::Kernels::hwy_target);
// nullptr for 0 (the reference), whose caller runs the scalar form.
ShiftingSetCandidatesFn ShiftingSetCandidatesFor(int64_t hwy_target);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SHIFTING_SETS_H_
