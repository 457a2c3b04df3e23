// Internal (not installed): per-layout constants shared by construction, sizing and statistics.
#ifndef SIMDBLOOM_LIB_LAYOUT_H_
#define SIMDBLOOM_LIB_LAYOUT_H_

#include <cstdint>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/registry.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

constexpr uint64_t kMaxBlocks = (uint64_t{1} << 32) - 1;

[[noreturn]] inline void Invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

// The registry's entry of `layout` (kernels/registry.h), or nullptr for an unknown value.
inline const LayoutInfo* InfoOf(Layout layout) { return FindLayout(static_cast<uint8_t>(layout)); }
inline bool KnownLayout(Layout layout) { return InfoOf(layout) != nullptr; }

inline LayoutId IdOf(Layout layout) { return static_cast<LayoutId>(layout); }

// Probes per key a layout allows (the layout must be known).
inline uint32_t MinK(Layout layout) { return InfoOf(layout)->min_k; }
inline uint32_t MaxK(Layout layout) { return InfoOf(layout)->max_k; }
// Whether the layout hashes with XXH64 (else XXH3).
inline bool UsesXxh64(Layout layout) { return InfoOf(layout)->xxh64; }

// Throws Error(kInvalidArgument) unless `layout` is known and k is in its range; `who` names the
// calling function in the message.
inline void CheckLayoutAndK(const char* who, Layout layout, uint32_t k) {
  if (!KnownLayout(layout)) {
    Invalid(std::string(who) + ": unknown layout " +
            std::to_string(static_cast<int>(static_cast<uint8_t>(layout))));
  }
  if (k < MinK(layout) || k > MaxK(layout)) {
    Invalid(std::string(who) + ": k = " + std::to_string(k) + " is outside " +
            std::to_string(MinK(layout)) + ".." + std::to_string(MaxK(layout)) + " for " +
            layout_name(layout));
  }
}

// Whole blocks holding at least `bits` bits.
inline uint64_t BlocksFor(uint64_t bits, uint32_t block_bits) {
  return bits / block_bits + (bits % block_bits != 0);
}

// The false-positive model of `layout` (its folder's model.cc, FORMAT.md) with n distinct keys in
// num_blocks blocks; 0 for n <= 0.
inline double ModelFpr(Layout layout, uint32_t k, double n, uint64_t num_blocks) {
  return n <= 0 ? 0 : InfoOf(layout)->model_fpr(k, n, num_blocks);
}

// ---- Memory tuning (lib/prefetch.cc, lib/memory.cc) ----
// Keys between a software prefetch and its use in a bulk call on `f`: 0 (no prefetching) below
// 1 MiB, where the filter stays in the caches; else the distance measured on this machine for f's
// layout, size class and the active target (the first call measures: 0.3-1.5 ms, once per
// process; thread-safe). Only timing depends on it.
uint32_t PrefetchDistance(const Filter& f);
// Benchmarks only: forgets every measured distance (the next bulk call measures again).
void ResetPrefetchCalibration();
// Probe lines a classic query prefetches per key, chosen by filter size (bulk.cc).
uint32_t QueryPrefetchProbes(Layout layout, uint64_t bytes);
// Benchmarks only (process-wide, not synchronized with running calls): -1 restores the automatic
// choice, 0 turns prefetching off, d > 0 prefetches d keys ahead whatever the filter's size.
void SetPrefetchOverride(int distance);
// The value SetPrefetchOverride set (-1: automatic); counting filters honour it too.
int PrefetchOverride();
// Benchmarks only: whether filters of 2 MiB and more (every kind: detail::AllocateZeroed,
// lib/memory.h) ask for transparent huge pages (default true). Filters allocated afterwards follow
// the setting.
void SetHugePages(bool enabled);

// ---- Bulk-call helpers for kinds built from Filters (lib/bulk.cc) ----
// Throws Error(kInvalidArgument) for keys (keys.size() > 0) the bulk calls cannot read: null
// pointers, bad Arrow offsets (O(n)), FixedWidth geometry; `who` starts the message.
void ValidateBulkKeys(const char* who, const Keys& keys);
// Keys [begin, begin + count) of `keys`, in the same shape. O(1).
Keys SliceKeys(const Keys& keys, size_t begin, size_t count);

}  // namespace detail

// The library's own access to a filter's internals (declared a friend by Filter).
struct FilterAccess {
  // An owning, zeroed filter; parameters must already be valid.
  static Filter Make(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed);
  // A read-only view over `words` (64-byte aligned, valid parameters).
  static Filter MakeView(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                         const uint64_t* words);
  static uint64_t* Words(Filter& f) { return f.words_; }
  static void SetInserted(Filter& f, uint64_t n) { f.inserted_ = n; }
};

}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_LAYOUT_H_
