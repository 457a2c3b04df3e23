// SPDX-License-Identifier: Apache-2.0
// What the kernels, the reference and the library core share, beneath all of them: the kernel
// interface (geometry, key sources, result forms, a layout's kernel table), the bit-selection
// multipliers, and scalar helpers. No SIMD, no
// target flags; nothing here depends on a layout folder.
#ifndef SIMDBLOOM_KERNELS_SHARED_H_
#define SIMDBLOOM_KERNELS_SHARED_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simdbloom/detail/probes.hpp"

// Whether this is a ThreadSanitizer build (GCC defines __SANITIZE_THREAD__, clang has the feature).
#if defined(__SANITIZE_THREAD__)
#define SIMDBLOOM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIMDBLOOM_TSAN 1
#endif
#endif
#ifndef SIMDBLOOM_TSAN
#define SIMDBLOOM_TSAN 0
#endif
#if SIMDBLOOM_TSAN
// ThreadSanitizer's dynamic annotations (its runtime defines them).
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
#endif

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
  // a probe was clear. Null where the inline scalar path (detail/single_key.hpp) is as fast: every
  // layout on narrow targets, and layouts without a vector one-key path.
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

// ORs `mask` into *word atomically (relaxed order: membership needs no ordering) and returns the
// bits of mask that were clear before. A zero mask touches nothing.
// A relaxed load first: bits already set need no locked instruction (a locked RMW costs tens of
// cycles and stalls later loads on x86), and bits only ever go from 0 to 1, so "already set" stays
// true.
inline uint64_t AtomicOr(uint64_t* word, uint64_t mask) {
  return mask & ~__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
}

// The bulk query kernels read a filter's words with plain vector loads while insert_concurrent may
// OR into them (AtomicOr). That race is the documented contract: bits only go from 0 to 1 and an
// aligned 8-byte word is never torn on the supported CPUs, so a query sees every key inserted
// before it began and, of a key being inserted, some of its bits. Under ThreadSanitizer the bulk
// query pipeline holds a ReadRaceScope around each step's apply (the filter's loads and the tile's
// own result bytes) and nothing else: the runtime then ignores that thread's accesses (reads and
// writes alike: AnnotateIgnoreReads* is ThreadIgnoreBegin/End), while hashing the caller's keys,
// writing the caller's results and every other thread's accesses stay checked. A no-op in every
// other build. (Single-key queries need none: they read with relaxed atomic loads, and the one-key
// kernels are not published in a ThreadSanitizer build, kernels/dispatch.cc.)
struct ReadRaceScope {
#if SIMDBLOOM_TSAN
  ReadRaceScope() { AnnotateIgnoreReadsBegin(__FILE__, __LINE__); }
  ~ReadRaceScope() { AnnotateIgnoreReadsEnd(__FILE__, __LINE__); }
#else
  ReadRaceScope() {}  // user-provided: a scope object, not an unused variable
#endif
  ReadRaceScope(const ReadRaceScope&) = delete;
  ReadRaceScope& operator=(const ReadRaceScope&) = delete;
};
// A ReadRaceScope for a query (kActive), nothing for the other operations.
template <bool kActive>
struct ReadRaceScopeIf : ReadRaceScope {
  ReadRaceScopeIf() {}
};
template <>
struct ReadRaceScopeIf<false> {
  ReadRaceScopeIf() {}
};

// Reads a word that a concurrent AtomicOr may be writing (relaxed: a plain load on every supported
// CPU, but defined behaviour and visible to ThreadSanitizer as such). Every ScalarContains
// reads through it, because scalar_contains is also the single-key query path of layouts without an
// inline one.
template <typename T>
inline T LoadRelaxed(const T* word) {
  return __atomic_load_n(word, __ATOMIC_RELAXED);
}

// The functions every layout's spec struct declares (kernels/<layout>/spec.h) and its folder
// defines: scalar.cc the one-key code of scalar.h out of line (production: the library's
// out-of-line single-key path; the oracle applies it key by key), model.cc the false-positive model
// and statistics (FORMAT.md), kernels.cc the per-target kernel tables.
//   ScalarInsert: sets the probes of hash h; true if one was clear. ScalarContains: every probe
//     set. ScalarInsertAtomic: ScalarInsert with each word ORed atomically (AtomicOr), safe against
//     concurrent writers; true if a probe was clear when it was set.
//   ModelFpr: predicted false-positive rate with n distinct keys in num_blocks blocks, k probes.
//   DistinctBitsPerKey: expected distinct bits one key sets in an array of m bits.
//   ExpectedFpp: false-positive rate of the bit array at `bytes` for a random absent key.
//   KernelsAt: entry `table_index` of the layout's per-target table (kernels/simd/export.h), read
//     by kernels/dispatch.cc.
#define SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS                                             \
  static bool ScalarInsert(uint64_t* words, const Params& p, uint64_t h);           \
  static bool ScalarContains(const uint64_t* words, const Params& p, uint64_t h);   \
  static bool ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h);     \
  static double ModelFpr(uint32_t k, double n, uint64_t num_blocks);                \
  static double DistinctBitsPerKey(uint32_t k, double m);                           \
  static double ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k); \
  static const LayoutKernels* KernelsAt(size_t table_index);

// Defines SPEC's out-of-line one-key functions from the inline code of SCALAR (the layout's
// scalar.h): the whole of each layout's scalar.cc, inside namespace detail.
#define SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(SPEC, SCALAR)                           \
  bool SPEC::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {         \
    return SCALAR::Insert(words, p, h);                                           \
  }                                                                               \
  bool SPEC::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) { \
    return SCALAR::Contains(words, p, h);                                         \
  }                                                                               \
  bool SPEC::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {   \
    return SCALAR::InsertAtomic(words, p, h);                                     \
  }

// M[t] = 0x9E3779B9^(t+1) mod 2^32 (FORMAT.md): block512 and register64 bit selection, defined
// once with each layout's probe math in the installed header (simdbloom/detail/probes.hpp).
inline constexpr const BitMultipliers& kMultipliers = kBitMultipliers;

inline uint64_t LoadU64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Block (or word) index of every blocked layout: (hi32(h) * num_blocks) >> 32.
inline uint64_t BlockIndex(uint64_t h, uint64_t num_blocks) { return BlockOf(h, num_blocks); }

// Sets bit `bit` of *word; returns true if it was clear.
inline bool SetBit(uint64_t* word, uint32_t bit) {
  const bool was_clear = ((*word >> bit) & 1) == 0;
  *word |= uint64_t{1} << bit;
  return was_clear;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SHARED_H_
