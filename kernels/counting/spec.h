// SPDX-License-Identifier: Apache-2.0
// The counting cell (4-bit saturating counters) over two geometries, and the kernel table every
// target provides for them. lib/FORMAT.md ("Counting filters") specifies the counters; the probe
// positions are exactly those of a plain layout, so counter i > 0 is bit i of that plain filter:
//   blocked: the counters of register64 with 2 * num_blocks words. 64-byte blocks of 128
//            counters; a key's word W = (hi32(h) * 2 num_blocks) >> 32 lies in block W / 2, its
//            counters are the bits of register64's mask of h: one cache line per key.
//   classic: the counters of classic with num_blocks 512-bit units (512 counters = 256 bytes per
//            unit); k counters anywhere.
// Counter i is nibble i of the array: bits 4 (i mod 16) .. +3 of little-endian u64 word i / 16.
#ifndef SIMDBLOOM_KERNELS_COUNTING_SPEC_H_
#define SIMDBLOOM_KERNELS_COUNTING_SPEC_H_

#include <cstddef>
#include <cstdint>

#include "kernels/bits.h"
#include "kernels/interface.h"

namespace simdbloom {
namespace detail {

// Counting geometries by id (= the counting file format's layout byte, frozen).
enum class CountingId : uint8_t {
  kBlocked = 1,  // register64 positions, 2 words (128 counters, 64 bytes) per block
  kClassic = 2,  // classic positions, 512 counters (256 bytes) per unit
};
constexpr int kNumCountingSlots = 3;

struct CountingSpec {
  static constexpr bool kXxh64 = false;  // keys hashed with XXH3 (as register64 and classic)
  static constexpr uint32_t kCounterBits = 4;
  static constexpr uint32_t kMaxCount = 15;  // saturated: sticky, never decremented
  // Counters per block (blocked) and per unit (classic).
  static constexpr uint32_t kBlockedCounters = 128;
  static constexpr uint32_t kClassicCounters = 512;
  // Probes per key allowed: register64's and classic's ranges.
  static constexpr uint32_t kBlockedMaxK = 16;
  static constexpr uint32_t kClassicMaxK = 32;
  // Block count limits: blocked maps to 2 * num_blocks register64 words (< 2^32).
  static constexpr uint64_t kBlockedMaxBlocks = (uint64_t{1} << 31) - 1;
  static constexpr uint64_t kClassicMaxBlocks = (uint64_t{1} << 32) - 1;
};

// Bytes of the counter array.
constexpr uint64_t CountingBytes(CountingId id, uint64_t num_blocks) {
  return id == CountingId::kBlocked ? num_blocks * 64 : num_blocks * 256;
}

// Bulk kernels of one counting geometry. `counters` is the 64-byte-aligned counter array; p's
// num_blocks is the geometry's block (blocked) or unit (classic) count. Keys are applied in key
// order (key i sees keys < i), hashed and located in tiles on the stack; nothing allocates.
struct CountingKernels {
  // Adds 1 to each of a key's distinct counters below 15. Returns the keys that found one of
  // them at 0 (surely new); fresh[i] (if not null) = 1 for those.
  uint64_t (*insert)(uint64_t* counters, Params p, const KeySource& keys, size_t n, uint8_t* fresh);
  // If every one of a key's counters is > 0, subtracts 1 from each distinct one below 15 (the key
  // is removed); else changes nothing (the key is rejected: it was never inserted). Returns the
  // keys removed; removed[i] (if not null) = 1 if key i was removed, 2 if it was removed but every
  // one of its counters was at 15 (saturated: none changed), 0 if rejected.
  uint64_t (*remove)(uint64_t* counters, Params p, const KeySource& keys, size_t n,
                     uint8_t* removed);
  // Every counter of the key > 0; `out` as LayoutKernels::contains. Returns the hits.
  uint64_t (*contains)(const uint64_t* counters, Params p, const KeySource& keys, size_t n,
                       ResultKind result, void* out);
  // out[i] = the smallest of key i's counters (0..15). Returns the sum of out.
  uint64_t (*count)(const uint64_t* counters, Params p, const KeySource& keys, size_t n,
                    uint8_t* out);
  // One key of the blocked geometry: the smallest of hash h's k counters in its 4 `words`
  // (CountingFilter's one-key path out of line, CountingCountOutOfLine: callers compiled without
  // AVX2, string keys, contains_hash / count_hash). Null in the classic geometry and where a vector
  // does not beat the scalar loop (targets below x86 AVX2, the reference): the scalar loop then.
  uint32_t (*count_one)(const uint64_t* words, uint64_t h, uint32_t k) = nullptr;
};

// Entry `table_index` of the per-target tables (kernels/simd/export.h) of each geometry: the
// blocked one from kernels/counting/kernels.cc, the classic one from kernels_classic.cc. Read by
// kernels/dispatch.cc (the kinds' list, kernels/registry.h).
const CountingKernels* CountingBlockedKernelsAt(size_t table_index);
const CountingKernels* CountingClassicKernelsAt(size_t table_index);
// The reference target's: the scalar counter code key by key (kernels/counting/reference.cc).
const CountingKernels& CountingBlockedReference();
const CountingKernels& CountingClassicReference();

// ---- SWAR helpers on u64 words of 16 nibbles (shared by the library's single-key path) ----
constexpr uint64_t kNibbleLow = 0x1111111111111111ull;

// Bit i of the low 16 bits of x -> bit 4i (nibble i = 0 or 1).
constexpr uint64_t SpreadToNibbles(uint64_t x) {
  x &= 0xFFFF;
  x = (x | (x << 24)) & 0x000000FF000000FFull;
  x = (x | (x << 12)) & 0x000F000F000F000Full;
  x = (x | (x << 6)) & 0x0303030303030303ull;
  x = (x | (x << 3)) & kNibbleLow;
  return x;
}
// The inverse: bit 4i of x (x has only kNibbleLow bits) -> bit i.
constexpr uint64_t GatherNibbles(uint64_t x) {
  x = (x | (x >> 3)) & 0x0303030303030303ull;
  x = (x | (x >> 6)) & 0x000F000F000F000Full;
  x = (x | (x >> 12)) & 0x000000FF000000FFull;
  x = (x | (x >> 24)) & 0xFFFF;
  return x;
}
// Bit 4i set iff nibble i of w is non-zero / is 15.
constexpr uint64_t NonZeroNibbles(uint64_t w) {
  return (w | (w >> 1) | (w >> 2) | (w >> 3)) & kNibbleLow;
}
constexpr uint64_t FullNibbles(uint64_t w) {
  return w & (w >> 1) & (w >> 2) & (w >> 3) & kNibbleLow;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_COUNTING_SPEC_H_
