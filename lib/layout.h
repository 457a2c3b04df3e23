// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): per-layout constants shared by construction, sizing and statistics.
#ifndef SIMDBLOOM_LIB_LAYOUT_H_
#define SIMDBLOOM_LIB_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
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
// The first-use measurement, for any kernel (Filter's layouts here, SpatialFilter's cells in
// spatial.cc): run(distance, keys) runs the kernel on num_keys random keys (fresh ones every time,
// from `seed`) at each candidate distance 0..256, twice, interleaved; returns the fastest (a
// shorter one within 2% preferred).
uint32_t FastestDistance(size_t num_keys, uint64_t seed,
                         const std::function<void(uint32_t, const uint64_t*)>& run);
// Tests and benchmarks: whether a call has tuned f's size class for the active target.
bool PrefetchTuned(const Filter& f);

// Tunes the prefetch distance inside one large bulk call, on its own keys: the first call of at
// least 8 x (trials) x kMinTrialKeys keys (at most 8.4M; with a selection vector: never) on a
// filter of a size class not yet tuned for this layout and target runs its first keys in trials
// at candidate distances around PrefetchDistance(f) (from a quarter to 4 times it), twice each,
// interleaved; the rest of the call, and later calls on that size class, use the middle one of
// those within 4% of the fastest (prefetch.cc says why). A trial is 1/16 of the call's keys over
// the number of trials (so the trials take 1/16 of the call), kept within
// kMinTrialKeys..kMaxTrialKeys (so calls of 8-16 x trials x kMinTrialKeys keys spend up to 1/8 of
// their keys in trials): longer trials average out more of a shared machine's noise. Only one call
// tunes at a time, process-wide (other calls run at the stored distance meanwhile). Why: the
// first-use measurement reads 8192 keys from L2, while a long call streams its keys from DRAM
// alongside the filter's misses; on a Zen 5 VM it picked 128 where 48 was up to 1.14x faster at 1e8
// keys. Only timing depends on it. Not thread-safe itself: one per call, on the calling thread.
class DistanceTuner {
 public:
  // Trial lengths: multiples of kMinTrialKeys, so pieces end at bitmap bytes and hashing chunks.
  static constexpr size_t kMinTrialKeys = 65536;
  static constexpr size_t kMaxTrialKeys = 16 * kMinTrialKeys;

  // Tunes *p's prefetch_distance for a call of n keys on f when the conditions above hold; else
  // inactive (Piece returns the rest, *p untouched).
  DistanceTuner(const Filter& f, size_t n, bool has_sel, Params* p);
  ~DistanceTuner();
  DistanceTuner(const DistanceTuner&) = delete;
  DistanceTuner& operator=(const DistanceTuner&) = delete;

  bool active() const { return active_; }
  // Call before running the keys from `begin` (of n; pieces follow each other from 0): returns
  // how many to run next (to the end of the current trial, or the rest of the call), sets
  // p->prefetch_distance for them, and records the trial that just ended.
  size_t Piece(size_t begin, size_t n);

 private:
  void Finish();

  const Filter* f_ = nullptr;
  Params* p_ = nullptr;
  bool active_ = false;
  int trial_ = -1;  // running trial; trials_ when done
  int trials_ = 0;
  int num_candidates_ = 0;
  size_t trial_keys_ = kMinTrialKeys;
  // Written before they are read (the first num_candidates_ entries, when active): left
  // uninitialized so a short call (a packet burst) does not pay 192 bytes of zeroing.
  uint32_t candidates_[16];
  double best_[16];
  double start_ = 0;
};
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
