// The candidates kernel of the shifting set filters (ShBF_A, ShBF_x; lib/shifting_sets.cc,
// lib/FORMAT.md "Shifting set filters"), compiled per target by kernels/shifting/sets_kernels.cc.
#ifndef SIMDBLOOM_KERNELS_SHIFTING_SETS_H_
#define SIMDBLOOM_KERNELS_SHIFTING_SETS_H_

#include <cstddef>
#include <cstdint>

namespace simdbloom {
namespace detail {

// out[i] = AND over w < 8 of rotr(W[w], lo32(lo32(h) * M[w]) >> 26) in block
// (hi32(h) * num_blocks) >> 32 of `words`, h = hashes[i], i < m: bit o set iff the key's pattern
// at offset o is complete. Prefetches each key's block kShiftingSetsAhead keys before it is read,
// continuing into next[0 .. next_m) (the following tile's hashes). No allocation.
using ShiftingSetCandidatesFn = void (*)(const uint64_t* words, uint64_t num_blocks,
                                         const uint64_t* hashes, size_t m, const uint64_t* next,
                                         size_t next_m, uint64_t* out);
constexpr size_t kShiftingSetsAhead = 64;

// The kernel compiled for Highway target `hwy_target` (a value of detail::Kernels::hwy_target);
// nullptr for 0 (the reference), whose caller runs the scalar form.
ShiftingSetCandidatesFn ShiftingSetCandidatesFor(int64_t hwy_target);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SHIFTING_SETS_H_
