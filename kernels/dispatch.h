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
};

// Bulk kernels of one layout. `words` is the filter's 64-byte-aligned bit array.
struct LayoutKernels {
  // Pre-hashed keys (hashes may be unaligned).
  void (*insert_hashes)(uint64_t* words, Params p, const uint64_t* hashes, size_t n);
  void (*contains_hashes)(const uint64_t* words, Params p, const uint64_t* hashes, size_t n,
                          uint8_t* out);
  // The whole pipeline for u64 keys (hash, index, prefetch, apply), in tiles.
  void (*insert_u64)(uint64_t* words, Params p, const uint64_t* keys, size_t n);
  void (*contains_u64)(const uint64_t* words, Params p, const uint64_t* keys, size_t n,
                       uint8_t* out);
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
