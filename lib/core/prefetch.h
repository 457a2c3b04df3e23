// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): how far ahead bulk calls prefetch (lib/core/prefetch.cc): the distance
// measured per layout, size class and target, the in-call tuner, the benchmarks' overrides.
#ifndef SIMDBLOOM_LIB_CORE_PREFETCH_H_
#define SIMDBLOOM_LIB_CORE_PREFETCH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "kernels/interface.h"
#include "kernels/registry.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

// The kinds (not layouts) whose bulk kernels are tuned: kernels/registry.h's kind list, numbered
// (a kind's row in the distance table follows the layouts').
enum class TunedKind : int {
#define SIMDBLOOM_X(member, Type, TableAt, Reference) member,
  SIMDBLOOM_FOR_EACH_KIND(SIMDBLOOM_X)
#undef SIMDBLOOM_X
      kCount
};

// What a prefetch distance is measured and tuned for: one kernel (a layout's, or another kind's)
// on arrays of one size class (a power of two of bytes) and one variant (spatial cells of 1 or 2
// bytes; 0 for the others), on the active target.
struct TuneTarget {
  int row = 0;           // LayoutId, or kNumLayoutSlots + TunedKind
  int variant = 0;       // 0 or 1
  uint64_t bytes = 0;    // the array the kernel reads
  bool usable = false;   // an array is there (not moved from)
  bool is_view = false;  // caller-owned bytes (maybe an mmapped file not yet resident)

  static TuneTarget Of(const Filter& f) {
    // (A layout's row is its LayoutId, which is its Layout's value: lib/core/layout.h, IdOf.)
    return {static_cast<int>(f.layout()), 0, f.size_bytes(), f.data() != nullptr, f.is_view()};
  }
  static TuneTarget Of(TunedKind kind, uint64_t bytes, bool usable, bool is_view, int variant = 0) {
    return {kNumLayoutSlots + static_cast<int>(kind), variant, bytes, usable, is_view};
  }
};

// Keys between a software prefetch and its use in a bulk call on `t`: 0 (no prefetching) below
// 1 MiB, where the array stays in the caches; else the distance measured on this machine for t's
// kernel, size class and the active target: the first call measures, running
// measure(distance, keys) (a query of 8192 u64 keys on the caller's array at that distance) for
// each candidate, once per process (perf/README.md, design note M3); thread-safe. A view whose
// class was never measured gets 64 (its pages may not be resident: timing page faults would choose
// noise). Only timing depends on it. The cached case is a few loads, no allocation. (The bulk
// driver's DistanceOf, lib/core/driver.h, is this for every kind.) Filter's: its layout's query
// kernel on its words.
uint32_t PrefetchDistance(const Filter& f);
// Benchmarks only: forgets every measured distance (the next bulk call measures again).
void ResetPrefetchCalibration();
// The first-use measurement, for any kernel (Filter's layouts here, SpatialFilter's cells in
// spatial.cc): run(distance, keys) runs the kernel on num_keys random keys (fresh ones every time,
// from `seed`) at each candidate distance 0..256, twice, interleaved; returns the fastest (a
// shorter one within 2% preferred).
uint32_t FastestDistance(size_t num_keys, uint64_t seed,
                         const std::function<void(uint32_t, const uint64_t*)>& run);
// Tests and benchmarks: whether a call has tuned t's size class for the active target.
bool PrefetchTuned(const TuneTarget& t);
inline bool PrefetchTuned(const Filter& f) { return PrefetchTuned(TuneTarget::Of(f)); }

// Filters smaller than this stay in L2/L3 across a batch; prefetching them costs instructions and
// saves little (bench: --only memory, 1e5 keys).
constexpr uint64_t kPrefetchMinBytes = uint64_t{1} << 20;
// The benchmarks' override (SetPrefetchOverride): -1, or the distance every call uses.
extern std::atomic<int> g_prefetch_override;
// The value SetPrefetchOverride set (-1: automatic); counting filters honour it too.
inline int PrefetchOverride() { return g_prefetch_override.load(std::memory_order_relaxed); }

// The first use's two halves: the cached distance (or -1 when t's class must be measured),
// and the measurement (serialized process-wide; stores and returns the result). The override and
// the small filters (no prefetching) are answered inline: a short call (a packet burst) on a
// filter in cache pays no call; MeasuredDistance reads the table of measured classes.
int64_t MeasuredDistance(const TuneTarget& t);
inline int64_t CachedDistance(const TuneTarget& t) {
  const int forced = PrefetchOverride();
  if (forced >= 0) return forced;
  if (t.bytes < kPrefetchMinBytes || !t.usable) return 0;
  return MeasuredDistance(t);
}
uint32_t MeasureDistance(const TuneTarget& t,
                         const std::function<void(uint32_t, const uint64_t*)>& measure);
// The keys a first-use measurement runs (each candidate's run: measure(distance, keys)).
constexpr size_t kCalibKeys = 8192;

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
// alongside the filter's misses, and picked distances far from a long call's best
// (perf/README.md, design note M4). Only timing depends on it. Not thread-safe itself: one per
// call, on the calling thread.
class DistanceTuner {
 public:
  // Trial lengths: multiples of kMinTrialKeys, so pieces end at bitmap bytes and hashing chunks.
  static constexpr size_t kMinTrialKeys = 65536;
  static constexpr size_t kMaxTrialKeys = 16 * kMinTrialKeys;

  // Calls shorter than this are never tuned (the trials would be a large share of them).
  static constexpr size_t kMinTunedKeys = 8 * kMinTrialKeys;

  // Tunes *prefetch_distance (which DistanceOf set) for a call of n keys on t when the
  // conditions above hold; else inactive (Piece returns the rest, the distance untouched). A short
  // call (a packet burst) is ruled out inline, at the cost of a compare.
  DistanceTuner(const TuneTarget& t, size_t n, bool has_sel, uint32_t* prefetch_distance) {
    if (n >= kMinTunedKeys) Start(t, n, has_sel, prefetch_distance);
  }
  DistanceTuner(const Filter& f, size_t n, bool has_sel, Params* p) {
    if (n >= kMinTunedKeys) Start(TuneTarget::Of(f), n, has_sel, &p->prefetch_distance);
  }
  ~DistanceTuner() {
    if (active_) Finish();
  }
  DistanceTuner(const DistanceTuner&) = delete;
  DistanceTuner& operator=(const DistanceTuner&) = delete;

  bool active() const { return active_; }
  // Call before running the keys from `begin` (of n; pieces follow each other from 0): returns
  // how many to run next (to the end of the current trial, or the rest of the call), sets
  // p->prefetch_distance for them, and records the trial that just ended.
  size_t Piece(size_t begin, size_t n);

 private:
  void Start(const TuneTarget& t, size_t n, bool has_sel, uint32_t* prefetch_distance);
  void Finish();

  TuneTarget t_;
  uint32_t* distance_ = nullptr;
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
// Probe lines a classic query prefetches per key, chosen by filter size: prefetching only the first
// 2 probe lines (absent keys mostly stop there) is faster while the filter fits the caches; from
// 8 MB on, where most lines come from DRAM, prefetching all k is faster, and absent keys are no
// slower (perf/README.md, design note M5). The Guava layouts place their probes as classic does:
// the same rule. Inline: every bulk call's parameters ask.
inline uint32_t QueryPrefetchProbes(Layout layout, uint64_t bytes) {
  constexpr uint64_t kAllProbesMinBytes = uint64_t{8} << 20;
  const bool anywhere =
      layout == Layout::kClassic || layout == Layout::kGuava || layout == Layout::kGuava32;
  return anywhere && bytes >= kAllProbesMinBytes ? 32 : 2;
}
// Benchmarks only (process-wide, not synchronized with running calls): -1 restores the automatic
// choice, 0 turns prefetching off, d > 0 prefetches d keys ahead whatever the filter's size.
void SetPrefetchOverride(int distance);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_PREFETCH_H_
