// SPDX-License-Identifier: Apache-2.0
// How far ahead bulk calls prefetch: measured on the machine the code runs on, not tuned on
// another.
//
// The best software-prefetch distance depends on the machine (DRAM and TLB-walk latency, how many
// misses a core keeps in flight, a VM's nested page tables) and on the filter's size: a constant
// tuned on one machine was far from the best on another (perf/README.md, design note M3). So the
// first bulk call on a filter of a new size class (a power of two of bytes, >= kPrefetchMinBytes)
// for the active SIMD target and kernel (a layout's, or another kind's: counting, spatial,
// shifting sets, each with its own size classes) measures that kernel's query on the caller's
// array at each candidate distance and keeps the fastest, for the rest of the process.
//
// The measurement: kCalibKeys random keys per run, a fresh key set for every run (so no run finds
// lines an earlier one brought into the caches), every candidate in each of kCalibRounds rounds,
// interleaved, the minimum per candidate (robust to a preempted run): 12 runs of 8192 keys once
// per (kernel, size class, target), of the order of allocating and zeroing the filter (design
// note M3 in perf/README.md). Queries only read, so measuring on the caller's filter is safe even
// while other threads insert into it. Only timing depends on the choice, never a filter's bytes or
// a result. perf/calibration.cc checks the choice against a full sweep.
#include "lib/core/prefetch.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "kernels/dispatch.h"
#include "lib/core/layout.h"

namespace simdbloom {
namespace detail {

std::atomic<int> g_prefetch_override{-1};

namespace {

// Candidates (keys ahead; the tile pipeline clamps to its tile of 256 keys). 0 is a candidate: a
// filter that fits the last-level cache may run faster without the prefetch instructions.
constexpr uint32_t kCandidates[] = {0, 16, 32, 64, 128, 256};
constexpr int kNumCandidates = sizeof(kCandidates) / sizeof(kCandidates[0]);
constexpr int kCalibRounds = 2;

// [row][variant][log2(bytes)] (TuneTarget): 0 = not measured, else (target index << 16) | kTuned
// (when a large call tuned it, DistanceTuner) | (distance + 1). A target change (set_target)
// re-measures.
constexpr int kNumRows = kNumLayoutSlots + static_cast<int>(TunedKind::kCount);
std::atomic<uint32_t> g_calibrated[kNumRows][2][64];
std::mutex g_calibrating;  // one calibration at a time: parallel ones would measure each other
std::atomic<bool> g_tuning{false};  // one DistanceTuner at a time, for the same reason
constexpr uint32_t kTuned = 0x8000;
constexpr uint32_t kDistanceBits = 0x7FFF;

std::atomic<uint32_t>& SlotOf(const TuneTarget& t) {
  return g_calibrated[t.row][t.variant][63 - __builtin_clzll(t.bytes)];
}

uint32_t TargetIndex(const Kernels& k) {
  return k.hwy_target == 0 ? 0 : 1 + static_cast<uint32_t>(__builtin_ctzll(k.hwy_target));
}

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

uint32_t FastestDistance(size_t num_keys, uint64_t seed,
                         const std::function<void(uint32_t, const uint64_t*)>& run) {
  std::vector<uint64_t> keys(num_keys);
  double best[kNumCandidates];
  std::fill(best, best + kNumCandidates, 1e300);
  for (int round = 0; round < kCalibRounds; ++round) {
    for (int c = 0; c < kNumCandidates; ++c) {
      for (uint64_t& k : keys) k = SplitMix(seed);
      const auto t0 = std::chrono::steady_clock::now();
      run(kCandidates[c], keys.data());
      const auto t1 = std::chrono::steady_clock::now();
      best[c] = std::min(best[c], std::chrono::duration<double>(t1 - t0).count());
    }
  }
  // The fastest; a shorter distance within 2% of it is preferred (fewer lines in flight for the
  // same speed leaves room for the caller's own memory traffic).
  const double fastest = *std::min_element(best, best + kNumCandidates);
  for (int c = 0; c < kNumCandidates; ++c) {
    if (best[c] <= fastest * 1.02) return kCandidates[c];
  }
  return kCandidates[kNumCandidates - 1];
}

int64_t MeasuredDistance(const TuneTarget& t) {
  const uint32_t v = SlotOf(t).load(std::memory_order_relaxed);
  if (v != 0 && (v >> 16) == TargetIndex(Active())) return (v & kDistanceBits) - 1;
  // A view's pages may not be resident yet (an mmapped file): timing page faults would choose
  // noise. Views use a measured size class's distance when there is one, else a middle value.
  if (t.is_view) return v != 0 ? (v & kDistanceBits) - 1 : 64;
  return -1;
}

uint32_t MeasureDistance(const TuneTarget& t,
                         const std::function<void(uint32_t, const uint64_t*)>& measure) {
  std::lock_guard<std::mutex> lock(g_calibrating);
  std::atomic<uint32_t>& slot = SlotOf(t);
  const uint32_t target = TargetIndex(Active());
  const uint32_t v = slot.load(std::memory_order_relaxed);
  if (v != 0 && (v >> 16) == target) return (v & kDistanceBits) - 1;
  const uint32_t d =
      FastestDistance(kCalibKeys, 0x5EED0F5EEDULL ^ t.bytes ^ uint64_t(t.row), measure);
  slot.store((target << 16) | (d + 1), std::memory_order_relaxed);
  return d;
}

// PrefetchDistance(const Filter&): lib/core/bulk.cc (the bulk driver's DistanceOf).

namespace {
// Tuning candidates: those within [d / 4, 4 d] of the distance d the first use measured (0, 16
// and 32 when d < 16), each run twice: at most 8 (16 trials). Calls of fewer than
// kTuneMinTrials x trials x kMinTrialKeys keys are not tuned (the trials would be a large share
// of them).
constexpr uint32_t kTuneCandidates[] = {0, 16, 32, 48, 64, 96, 128, 192, 256};
constexpr int kTuneRounds = 2;
constexpr size_t kTuneMinTrials = 8;

double Seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

bool PrefetchTuned(const TuneTarget& t) {
  if (t.bytes < kPrefetchMinBytes) return false;
  const uint32_t v = SlotOf(t).load(std::memory_order_relaxed);
  return v != 0 && (v >> 16) == TargetIndex(Active()) && (v & kTuned) != 0;
}

static_assert(DistanceTuner::kMinTunedKeys == kTuneMinTrials * DistanceTuner::kMinTrialKeys,
              "the inline test rules out the calls of fewer than kTuneMinTrials trials");

void DistanceTuner::Start(const TuneTarget& t, size_t n, bool has_sel,
                          uint32_t* prefetch_distance) {
  if (has_sel || PrefetchOverride() >= 0 || !t.usable || t.is_view || t.bytes < kPrefetchMinBytes) {
    return;
  }
  const uint32_t d = *prefetch_distance;
  for (uint32_t c : kTuneCandidates) {
    const bool in = d < 16 ? c <= 32 : (c >= d / 4 && c <= 4 * d && c != 0);
    if (in) candidates_[num_candidates_++] = c;
  }
  trials_ = num_candidates_ * kTuneRounds;
  const size_t trials = static_cast<size_t>(trials_);
  if (n < kTuneMinTrials * trials * kMinTrialKeys) return;
  trial_keys_ = std::min(
      kMaxTrialKeys, std::max(kMinTrialKeys, n / (16 * trials) / kMinTrialKeys * kMinTrialKeys));
  std::atomic<uint32_t>& slot = SlotOf(t);
  const uint32_t v = slot.load(std::memory_order_relaxed);
  if (v == 0 || (v >> 16) != TargetIndex(Active()) || (v & kTuned) != 0) return;
  bool expected = false;
  if (!g_tuning.compare_exchange_strong(expected, true, std::memory_order_acquire)) return;
  // Another call may have finished tuning this class between the check above and the exchange.
  if ((slot.load(std::memory_order_relaxed) & kTuned) != 0) {
    g_tuning.store(false, std::memory_order_release);
    return;
  }
  t_ = t;
  distance_ = prefetch_distance;
  active_ = true;
  std::fill(best_, best_ + num_candidates_, 1e300);
}

size_t DistanceTuner::Piece(size_t begin, size_t n) {
  if (!active_ || trial_ >= trials_) return n - begin;
  const size_t boundary = static_cast<size_t>(trial_ + 1) * trial_keys_;
  if (trial_ >= 0 && begin < boundary) return std::min(boundary, n) - begin;  // inside a trial
  const double now = Seconds();
  if (trial_ >= 0) {
    double& b = best_[trial_ % num_candidates_];
    b = std::min(b, now - start_);
  }
  ++trial_;
  if (trial_ == trials_) {
    Finish();
    return n - begin;
  }
  *distance_ = candidates_[trial_ % num_candidates_];
  start_ = Seconds();
  return std::min(begin + trial_keys_, n) - begin;
}

void DistanceTuner::Finish() {
  if (!active_) return;
  active_ = false;
  if (trial_ >= trials_) {
    // Every trial ran: of the candidates within 4% of the fastest, the middle one. The time
    // against distance falls steeply up to some distance, then stays flat over a range: a
    // 65,536-key trial's noise (a few %) makes any point of that range look fastest, and its
    // middle is the farthest from the steep side (preferring the shortest, as the first-use
    // measurement does, picked a distance on the steep side: perf/README.md, design note M4).
    const double fastest = *std::min_element(best_, best_ + num_candidates_);
    int near[16];
    int num_near = 0;
    for (int c = 0; c < num_candidates_; ++c) {
      if (best_[c] <= fastest * 1.04) near[num_near++] = c;
    }
    const uint32_t d = candidates_[near[(num_near - 1) / 2]];
    *distance_ = d;
    SlotOf(t_).store((TargetIndex(Active()) << 16) | kTuned | (d + 1), std::memory_order_relaxed);
  }
  g_tuning.store(false, std::memory_order_release);
}

void SetPrefetchOverride(int distance) {
  g_prefetch_override.store(distance < 0 ? -1 : distance, std::memory_order_relaxed);
}

void ResetPrefetchCalibration() {
  std::lock_guard<std::mutex> lock(g_calibrating);
  for (auto& row : g_calibrated) {
    for (auto& variant : row) {
      for (auto& slot : variant) slot.store(0, std::memory_order_relaxed);
    }
  }
}

}  // namespace detail
}  // namespace simdbloom
