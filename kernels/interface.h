// SPDX-License-Identifier: Apache-2.0
// The kernel interface, beneath the kernels, the reference and the library core: a filter's
// geometry (Params), where a batch's keys come from (KeySource), what a bulk query writes
// (ResultKind), a layout's kernel table (LayoutKernels) and the operation a kernel applies (Op).
// No SIMD, no target flags.
#ifndef SIMDBLOOM_KERNELS_INTERFACE_H_
#define SIMDBLOOM_KERNELS_INTERFACE_H_

#include <cstddef>
#include <cstdint>

namespace simdbloom {
namespace detail {

// Geometry of a filter, passed by value to kernels. A block is the layout's unit of size
// (kBlockBits of its spec).
struct Params {
  uint64_t num_blocks;  // 1 .. 2^32 - 1
  uint32_t k;           // probes per key (within the layout's kMinK..kMaxK)
  uint64_t seed;        // hash seed (of XXH3, or XXH64 for kXxh64 layouts)
  // Keys between a software prefetch of a key's cache line(s) and its use; 0: no prefetching.
  // At most the layout's tile size (kernels clamp it). Never changes results.
  uint32_t prefetch_distance = 0;
  // classic queries: how many of a key's k probe lines are prefetched (the rest are read on
  // demand, after the early exit on a clear bit). Never changes results.
  uint32_t query_prefetch_probes = 2;
};

// Where the keys of a batch come from. Key i of a batch of n is keys[i], or keys[sel[i]] when sel
// is set. Pointers may be unaligned.
enum class KeyKind : uint8_t {
  kU64,     // uint64_t keys, hashed as their 8 little-endian bytes
  kU32,     // uint32_t keys, hashed as their 4 little-endian bytes
  kHashes,  // pre-hashed: uint64_t values of the layout's hash
  kHashFn,  // anything else (byte strings): hash_fn hashes a run of keys, scalar
};
struct KeySource {
  KeyKind kind = KeyKind::kU64;
  const void* keys = nullptr;     // kU64, kU32, kHashes
  const uint32_t* sel = nullptr;  // optional indirection
  // kHashFn: out[j] = the layout's hash of key begin + j (j < m), or of key sel[begin + j] when
  // sel is non-null. May be called for tiles out of order; never allocates.
  void (*hash_fn)(const void* ctx, const uint32_t* sel, size_t begin, size_t m,
                  uint64_t* out) = nullptr;
  // kHashFn of the Murmur3 layouts (guava, guava32: their spec's kMurmur128), set instead of
  // hash_fn: h1[j], h2[j] = the two halves of Murmur3 x64 128 (seed 0) of the key's funnel bytes.
  void (*hash128_fn)(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* h1,
                     uint64_t* h2) = nullptr;
  const void* ctx = nullptr;
};

// What a bulk query writes to `out`.
enum class ResultKind : uint8_t {
  kBytes,      // uint8_t[n]: 1 if key i may be present, else 0
  kBitmap,     // uint8_t[(n + 7) / 8]: bit i (LSB first, Arrow's order) = key i; pad bits 0
  kSelection,  // uint32_t[n]: i (or sel[i] when the source has sel) of every hit, in order; may
               // be the source's own sel array (it is read before it is overwritten)
};

// Bulk kernels of one layout. `words` is the filter's 64-byte-aligned bit array. Keys are hashed,
// located, prefetched and applied in tiles on the stack; nothing allocates.
struct LayoutKernels {
  // Inserts n keys in order; returns how many set at least one bit that was clear (surely new).
  // fresh, if not null, receives n bytes: fresh[i] = 1 iff key i set a bit that was clear.
  uint64_t (*insert)(uint64_t* words, Params p, const KeySource& keys, size_t n, uint8_t* fresh);
  // The same with every word written by an atomic OR: other threads may insert_atomic into (and
  // query) the same words at the same time. The filter's bytes afterwards equal insert's; fresh[i]
  // is 1 iff key i found one of its bits clear at the moment it set it.
  uint64_t (*insert_atomic)(uint64_t* words, Params p, const KeySource& keys, size_t n,
                            uint8_t* fresh);
  // Tests n keys; writes `out` as `result` says; returns how many may be present.
  uint64_t (*contains)(const uint64_t* words, Params p, const KeySource& keys, size_t n,
                       ResultKind result, void* out);
  // One key, for Filter's single-key calls (simdbloom.hpp, detail::OneKey): sets / tests the
  // probes of hash h in the key's `block` (the layout's block, aligned). insert_one returns true if
  // a probe was clear. Null where the inline scalar path (detail/one_key/scalar.hpp) is as fast:
  // every layout on narrow targets, and layouts without a vector one-key path.
  bool (*insert_one)(uint64_t* block, uint64_t h, uint32_t k) = nullptr;
  bool (*contains_one)(const uint64_t* block, uint64_t h, uint32_t k) = nullptr;
};

// The operation a kernel applies to each key's probes: kernels, the pipeline and the layouts' Apply
// are templates over it, so a new operation (remove, atomic insert) is a new value handled in each
// layout's Apply, not a new pipeline.
enum class Op : uint8_t {
  kInsert,        // set the probes; report per key whether one was clear
  kQuery,         // test the probes
  kInsertAtomic,  // kInsert with each word ORed atomically (relaxed): many writers at once
  // Counting cells (kernels/counting/): decrement a key's counters unless one is 0 (then reject
  // the key, changing nothing); read a key's smallest counter.
  kRemove,
  kCount,
};
// Whether `op` writes the filter (prefetch with intent to write, mutable words).
constexpr bool Mutates(Op op) { return op != Op::kQuery && op != Op::kCount; }

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_INTERFACE_H_
