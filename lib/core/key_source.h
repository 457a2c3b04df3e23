// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): turning a public Keys into the kernels' KeySource, shared by the bulk
// calls of every filter kind (lib/core/key_source.cc defines these): the one key check, sources,
// slices, hashing any shape.
#ifndef SIMDBLOOM_LIB_CORE_KEY_SOURCE_H_
#define SIMDBLOOM_LIB_CORE_KEY_SOURCE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kernels/dispatch.h"
#include "kernels/interface.h"
#include "kernels/registry.h"
#include "lib/core/key_types.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

// What KeySource::hash_fn reads for byte-string shapes and converted integers (set by SourceOf;
// points at the Keys given to SourceOf, which must outlive the source: copying the 48-byte Keys
// cost a short call a store-forwarding stall).
struct StringHasher {
  const Keys* keys = nullptr;
  uint64_t seed = 0;
};

// The largest extent of bytes any array can have here: 2^56, the user address space of x86-64 with
// 5-level paging (AArch64's is smaller). Offsets and lengths beyond it (INT64_MAX, PTRDIFF_MAX,
// SIZE_MAX) are refused even where pointer + extent does not wrap.
constexpr uint64_t kMaxExtentBytes = uint64_t{1} << 56;

// Whether `bytes` bytes from p can be one array: at most kMaxExtentBytes, and p + bytes does not
// wrap around the end of the address space. That they are readable cannot be checked.
inline bool FitsAddressSpace(const void* p, uint64_t bytes) {
  return bytes <= kMaxExtentBytes && reinterpret_cast<uintptr_t>(p) <= UINTPTR_MAX - bytes;
}

// Throws Error(kInvalidArgument) for keys the bulk calls cannot read (null pointers with a
// non-zero size, bad Arrow offsets or offsets past a declared data_size, FixedWidth geometry, and
// any array whose pointer plus size wraps the address space or exceeds kMaxExtentBytes); `who`
// starts the message. O(n) for Arrow arrays, else O(1). No keys (size 0) are always valid.
void ValidateKeys(const char* who, const Keys& keys);

// Whether ValidateKeys passes `keys` of a shape the kernels read in place (8- and 4-byte integers,
// pre-hashed): not null, within the address space. False for every other shape and for keys it
// refuses, which then go through ValidateKeys: callers write
// `if (!InPlaceKeysValid(keys)) ValidateKeys(who, keys);` so that a short call (a packet burst)
// does not pay ValidateKeys' call and switches. Inline, O(1).
inline bool InPlaceKeysValid(const Keys& keys) {
  size_t width;
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kI64:
    case Keys::Kind::kPrehashed:
      width = 8;
      break;
    case Keys::Kind::kU32:
    case Keys::Kind::kI32:
      width = 4;
      break;
    default:
      return false;
  }
  const size_t n = keys.size();
  return keys.keys() != nullptr && n <= kMaxExtentBytes / width &&
         FitsAddressSpace(keys.keys(), uint64_t{n} * width);
}

// Throws Error(kInvalidArgument), naming `who` and `what`, unless `count` entries of `size` bytes
// from `p` fit the address space (as ValidateKeys checks the keys' arrays): for outputs and byte
// buffers.
void CheckExtent(const char* who, const char* what, const void* p, size_t count, size_t size);

// The KeySource over `keys` (n > 0, already validated and planned), hashed with XXH64 if `xxh64`
// (the kind's spec says kXxh64), else XXH3, and `seed`; integer keys converted as `plan` says (a
// kHashFn source that converts a run on the stack, then hashes it with the vectorized kernel).
// `hasher` and `keys` must outlive the source (a temporary Keys is refused at compile time).
// Keys read in place (u64/i64, u32/i32 as they are, pre-hashed) get their source inline: the one
// SourceWith makes for them, without the call (a packet burst's fixed cost).
KeySource SourceOfAny(const Keys& keys, const KeyPlan& plan, bool xxh64, uint64_t seed,
                      StringHasher* hasher);
// The source kind of keys the kernels can read in place (u64/i64: kU64, u32/i32: kU32,
// pre-hashed: kHashes); false for any other shape.
inline bool InPlaceKind(Keys::Kind kind, KeyKind* out) {
  switch (kind) {
    case Keys::Kind::kU64:
    case Keys::Kind::kI64:
      *out = KeyKind::kU64;
      return true;
    case Keys::Kind::kU32:
    case Keys::Kind::kI32:
      *out = KeyKind::kU32;
      return true;
    case Keys::Kind::kPrehashed:
      *out = KeyKind::kHashes;
      return true;
    default:
      return false;
  }
}
// The source of keys the kernels read in place, as every hash family reads them (the kernels hash
// u64 and u32 keys themselves); false for any other shape or a plan that converts them.
inline bool InPlaceSource(const Keys& keys, const KeyPlan& plan, KeySource* src) {
  if (plan.to_width != 0 || plan.legacy16 || !InPlaceKind(keys.kind(), &src->kind)) return false;
  src->keys = keys.keys();
  return true;
}
inline KeySource SourceOf(const Keys& keys, const KeyPlan& plan, bool xxh64, uint64_t seed,
                          StringHasher* hasher) {
  KeySource src;
  if (InPlaceSource(keys, plan, &src)) return src;
  return SourceOfAny(keys, plan, xxh64, seed, hasher);
}
KeySource SourceOf(Keys&& keys, const KeyPlan& plan, bool xxh64, uint64_t seed,
                   StringHasher* hasher) = delete;

// The KeySource of the Murmur3 layouts (guava, guava32: LayoutInfo::murmur128): u64 and u32 keys
// read in place (the kernel hashes them), pre-hashed keys as they are, every other shape through
// hash128_fn (scalar Murmur3 x64 128 of the key's funnel bytes).
KeySource MurmurSourceOf(const Keys& keys, const KeyPlan& plan, uint64_t seed,
                         StringHasher* hasher);
KeySource MurmurSourceOf(Keys&& keys, const KeyPlan& plan, uint64_t seed,
                         StringHasher* hasher) = delete;
// The source of layout `id`'s hash family: MurmurSourceOf or SourceOf (keys read in place:
// inline, InPlaceSource).
KeySource SourceForAny(LayoutId id, const Keys& keys, const KeyPlan& plan, uint64_t seed,
                       StringHasher* hasher);
inline KeySource SourceFor(LayoutId id, const Keys& keys, const KeyPlan& plan, uint64_t seed,
                           StringHasher* hasher) {
  KeySource src;
  if (InPlaceSource(keys, plan, &src)) return src;
  return SourceForAny(id, keys, plan, seed, hasher);
}
KeySource SourceFor(LayoutId id, Keys&& keys, const KeyPlan& plan, uint64_t seed,
                    StringHasher* hasher) = delete;
// out[i] = h1 of key i's Murmur3 x64 128 (`seed`) as `plan` says (Filter::hash of the Guava
// layouts).
void HashKeysMurmur(const Keys& keys, const KeyPlan& plan, uint64_t seed, uint64_t* out);

// out[i] = the hash of key i as `plan` says (keys validated and planned; those out of a kInt32
// filter's range get the hash of their low 32 bits: their results are the caller's to clear), on
// the active target. No allocation.
void HashKeysAs(const Keys& keys, const KeyPlan& plan, bool xxh64, uint64_t seed, uint64_t* out);

// Keys [begin, begin + count) of `keys`, in the same shape. O(1).
Keys SliceKeys(const Keys& keys, size_t begin, size_t count);

// out[j] = the XXH3 (seed) hash of key begin + j for j < m as `plan` says (Prehashed keys are
// copied), on `kernels`' target (u64/u32 keys vectorized, byte strings scalar): for the kinds that
// hash first (the shifting set filters). Keys must have passed ValidateKeys and PlanKeys. No
// allocation.
void HashKeyRange(const Kernels& kernels, const Keys& keys, const KeyPlan& plan, uint64_t seed,
                  size_t begin, size_t m, uint64_t* out);

// Byte-string keys (kHashFn sources without a selection vector) are hashed kStringChunk keys at a
// time into a buffer, and each chunk's hashes then go through the kernels as pre-hashed keys.
// Measured slower than these two passes (perf/README.md, design notes M6 and M29): hashing inside
// the tiled pipeline, 16 keys or whole 256-key tiles at a time between the applies; one key at a
// time through a ring (hash, prefetch, apply the key 16 behind); mini-batches of 16-64 keys; and
// chunks of 512-4096 keys. 16384 keys (128 KiB of hashes) stay in L2. The buffer is allocated
// once per thread (StringChunkBuffer: too large for every caller's stack); where it cannot be, a
// chunk is kStringChunkSmall keys in 32 KiB on the stack. Used by Filter's bulk calls (bulk.cc)
// and SpatialFilter's (spatial.cc).
constexpr size_t kStringChunk = 16384;
constexpr size_t kStringChunkSmall = 4096;

// This thread's buffer of kStringChunk hashes (64-byte aligned), allocated on its first use and
// kept until the thread exits, for one holder at a time: nullptr if not `wanted` (a call of at
// most kStringChunkSmall keys, which one chunk on the stack holds: it never allocates), if it
// cannot be allocated, or if it is held (a nested call then uses its stack). Out of line
// (key_source.cc).
class StringChunkBuffer {
 public:
  explicit StringChunkBuffer(bool wanted);
  ~StringChunkBuffer();
  StringChunkBuffer(const StringChunkBuffer&) = delete;
  StringChunkBuffer& operator=(const StringChunkBuffer&) = delete;
  uint64_t* get() const { return p_; }

 private:
  uint64_t* p_;
};

// (Not for Murmur3 sources: a chunk of their hashes is two words a key, which the pre-hashed path
// cannot carry; their kernel hashes byte strings a tile at a time.)
inline bool ChunkStrings(const KeySource& src, size_t n) {
  return src.kind == KeyKind::kHashFn && src.hash128_fn == nullptr && src.sel == nullptr &&
         n > 1024;
}

// Runs run(hashes, begin, m) over [0, n) in chunks of hashed keys; returns the sum of its results.
// A chunk is at most kStringChunk keys (kStringChunkSmall without this thread's buffer) and at
// most piece(begin, n) (the keys to the end of the caller's current piece: DistanceTuner trials).
// Out of line, so that only calls that take this path reserve its 32 KiB of stack.
template <class Piece, class Run>
__attribute__((noinline)) uint64_t OverHashedChunks(const KeySource& src, size_t n,
                                                    const Piece& piece, const Run& run) {
  alignas(64) uint64_t small[kStringChunkSmall];
  const StringChunkBuffer buffer(n > kStringChunkSmall);
  uint64_t* hashes = buffer.get();
  const size_t chunk = hashes != nullptr ? kStringChunk : kStringChunkSmall;
  if (hashes == nullptr) hashes = small;
  KeySource h;
  h.kind = KeyKind::kHashes;
  h.keys = hashes;
  uint64_t total = 0;
  for (size_t begin = 0, m = 0; begin < n; begin += m) {
    m = std::min(chunk, piece(begin, n));
    src.hash_fn(src.ctx, nullptr, begin, m, hashes);
    total += run(h, begin, m);
  }
  return total;
}

// OverHashedChunks without pieces.
template <class Run>
uint64_t OverHashedChunks(const KeySource& src, size_t n, const Run& run) {
  return OverHashedChunks(
      src, n, [](size_t begin, size_t count) { return count - begin; }, run);
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_KEY_SOURCE_H_
