// Internal (not installed): the kernel table every target provides, and target selection.
#ifndef SIMDBLOOM_KERNELS_DISPATCH_H_
#define SIMDBLOOM_KERNELS_DISPATCH_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace simdbloom {
namespace detail {

// Layouts, numbered as simdbloom::Layout (kept apart so kernels need not include the public API).
enum class LayoutId : uint8_t { kBlock512 = 1, kRegister64 = 2, kSplitBlock256 = 3, kClassic = 4 };
constexpr int kNumLayoutSlots = 5;  // indexed by LayoutId; slot 0 unused

// Geometry of a filter, passed by value to kernels. A block is 512 bits (block512, and the unit of
// classic's size), 64 bits (register64) or 256 bits (split_block256).
struct Params {
  uint64_t num_blocks;  // 1 .. 2^32 - 1
  uint32_t k;           // probes per key (split_block256: always 8)
  uint64_t seed;        // hash seed (XXH3, or XXH64 for split_block256)
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
  // Tests n keys; writes `out` as `result` says; returns how many may be present.
  uint64_t (*contains)(const uint64_t* words, Params p, const KeySource& keys, size_t n,
                       ResultKind result, void* out);
};

// One target's kernels. Pointers to keys may be unaligned. None of them allocates; all are
// reentrant. The stage kernels exist so tests can compare each stage alone.
struct Kernels {
  const char* name;    // "AVX2", ..., "reference"
  int64_t hwy_target;  // Highway target bit, 0 for the reference
  // Stage 1: out[i] = XXH3_64bits_withSeed(LE bytes of keys[i], 8, seed).
  void (*hash_u64)(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out);
  // Stage 1 of split_block256: out[i] = XXH64(LE bytes of keys[i], 8, seed).
  void (*hash_u64_xxh64)(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out);
  // out[i] = XXH3_64bits_withSeed / XXH64 of the 4 little-endian bytes of keys[i].
  void (*hash_u32)(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out);
  void (*hash_u32_xxh64)(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out);
  // The hashes of n keys from any source: XXH64 if `xxh64` (split_block256), else XXH3.
  void (*hash_keys)(bool xxh64, const KeySource& keys, size_t n, uint64_t seed, uint64_t* out);
  // Stage 2: out[i] = (hi32(hashes[i]) * num_blocks) >> 32.
  void (*block_index)(const uint64_t* hashes, size_t n, uint64_t num_blocks, uint64_t* out);
  // Set operations over whole bit arrays: dst[i] |= src[i] / dst[i] &= src[i], i < n_words. Both
  // 64-byte aligned.
  void (*or_words)(uint64_t* dst, const uint64_t* src, size_t n_words);
  void (*and_words)(uint64_t* dst, const uint64_t* src, size_t n_words);
  LayoutKernels layout[kNumLayoutSlots];

  const LayoutKernels& For(LayoutId id) const { return layout[static_cast<int>(id)]; }
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

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_DISPATCH_H_
