// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the table of kernels every target provides, and target selection.
#ifndef SIMDBLOOM_KERNELS_DISPATCH_H_
#define SIMDBLOOM_KERNELS_DISPATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/counting/spec.h"
#include "kernels/registry.h"
#include "kernels/shared.h"
#include "kernels/spatial/spec.h"

namespace simdbloom {
namespace detail {

// One target's kernels. Pointers to keys may be unaligned. None of them allocates; all are
// reentrant. The stage kernels exist so tests can compare each stage alone.
struct Kernels {
  const char* name;    // "AVX2", ..., "reference"
  int64_t hwy_target;  // Highway target bit, 0 for the reference
  // Stage 1: out[i] = XXH3_64bits_withSeed(LE bytes of keys[i], 8, seed).
  void (*hash_u64)(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out);
  // Stage 1 of the XXH64 layouts (spec kXxh64): out[i] = XXH64(LE bytes of keys[i], 8, seed).
  void (*hash_u64_xxh64)(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out);
  // out[i] = XXH3_64bits_withSeed / XXH64 of the 4 little-endian bytes of keys[i].
  void (*hash_u32)(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out);
  void (*hash_u32_xxh64)(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out);
  // The hashes of n keys from any source: XXH64 if `xxh64` (the layout's spec kXxh64), else XXH3.
  void (*hash_keys)(bool xxh64, const KeySource& keys, size_t n, uint64_t seed, uint64_t* out);
  // Stage 2: out[i] = (hi32(hashes[i]) * num_blocks) >> 32.
  void (*block_index)(const uint64_t* hashes, size_t n, uint64_t num_blocks, uint64_t* out);
  // Set operations over whole bit arrays: dst[i] |= src[i] / dst[i] &= src[i], i < n_words. Both
  // 64-byte aligned.
  void (*or_words)(uint64_t* dst, const uint64_t* src, size_t n_words);
  void (*and_words)(uint64_t* dst, const uint64_t* src, size_t n_words);
  LayoutKernels layout[kNumLayoutSlots];
  // Counting filters' kernels (kernels/counting/), by CountingId.
  CountingKernels counting[kNumCountingSlots] = {};

  const LayoutKernels& For(LayoutId id) const { return layout[static_cast<int>(id)]; }
  const CountingKernels& For(CountingId id) const { return counting[static_cast<int>(id)]; }
};

// The kernels bulk calls use now (see simdbloom::set_target). Throws simdbloom::Error if
// SIMDBLOOM_TARGET names an unknown target.
const Kernels& Active();
// The plain C++ oracle.
const Kernels& Reference();
// The compiled Highway target `hwy_target`, or nullptr if it was not compiled or this CPU lacks it.
const Kernels* ForHwyTarget(int64_t hwy_target);
// Every usable target, best first, the reference last.
std::vector<const Kernels*> Available();

// Entry `table_index` of each per-target unit's HWY_EXPORT table: the base kernels
// (kernels/common.cc) and each layout's (kernels/<layout>/kernels.cc).
const Kernels* BaseKernelsAt(size_t table_index);
#define SIMDBLOOM_X(Name, C_NAME) const LayoutKernels* Name##KernelsAt(size_t table_index);
SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
// ... and the counting units' (kernels/counting/kernels.cc), by CountingId; the classic counting
// table comes from kernels/counting/kernels_classic.cc.
const CountingKernels* CountingKernelsAt(size_t table_index, CountingId id);
const CountingKernels* CountingClassicKernelsAt(size_t table_index);

// The spatial filter's kernels (kernels/spatial/): entry `table_index` of its per-target table, and
// the table of the same target as `k` (the reference's for the reference). O(1), thread-safe.
const SpatialKernels* SpatialKernelsAt(size_t table_index);
const SpatialKernels& SpatialKernelsFor(const Kernels& k);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_DISPATCH_H_
