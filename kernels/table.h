// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the table of kernels every target provides (struct Kernels), assembled
// by kernels/dispatch.cc from the per-target units, and the accessors of the tables that are not a
// kind's own (each kind folder declares its table accessor in its spec.h). Above the registry and
// the kind folders; below the oracle (kernels/reference.h) and target selection (dispatch.h).
#ifndef SIMDBLOOM_KERNELS_TABLE_H_
#define SIMDBLOOM_KERNELS_TABLE_H_

#include <cstddef>
#include <cstdint>

#include "kernels/interface.h"
#include "kernels/registry.h"

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
  // The other kinds' tables (kernels/registry.h, SIMDBLOOM_FOR_EACH_KIND).
#define SIMDBLOOM_X(member, Type, TableAt, Reference) Type member = {};
  SIMDBLOOM_FOR_EACH_KIND(SIMDBLOOM_X)
#undef SIMDBLOOM_X

  const LayoutKernels& For(LayoutId id) const { return layout[static_cast<int>(id)]; }
  const CountingKernels& For(CountingId id) const {
    return id == CountingId::kBlocked ? counting_blocked : counting_classic;
  }
};

// Entry `table_index` of kernels/base_kernels.cc's HWY_EXPORT table: a target's base kernels (the
// layout and kind slots empty; dispatch.cc fills them from <Name>Spec::KernelsAt and the kinds'
// list).
const Kernels* BaseKernelsAt(size_t table_index);

// The "reference" target: the plain C++ oracle, one key at a time (kernels/reference.cc; its
// spatial kernels are SpatialReference, kernels/spatial/spec.h). In the library because it is a
// selectable target (SIMDBLOOM_TARGET=reference, set_target, available_targets); the library's own
// code never calls it directly, only through target selection (kernels/dispatch.cc).
const Kernels& Reference();

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_TABLE_H_
