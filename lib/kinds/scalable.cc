// SPDX-License-Identifier: Apache-2.0
// ScalableFilter: a chain of Filter stages (Almeida et al. 2007). Growth (capacity split at stage
// boundaries), queries newest stage first over tiles on the stack, statistics and merge; the
// chain's file format (lib/FORMAT.md, "Scalable chains") is lib/formats/scalable.cc. The stages
// are plain Filters: every SIMD path, layout and the stage file format are theirs.
#include "simdbloom/scalable.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kernels/scalar/hash.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/kinds/scalable_chain.h"

namespace simdbloom {
namespace {

using detail::Invalid;

constexpr double kMinStageFpp = 1e-9;  // what size_for() sizes
// Capacities stay below 2^62 (a stage that large could not be allocated anyway).
constexpr double kMaxCapacity = 4611686018427387904.0;
// Keys per tile of a multi-stage query: hashes, unfound hashes, result bytes and selections on
// the stack (26 KiB).
constexpr size_t kTile = 1024;

}  // namespace

namespace detail {
namespace scalable {  // scalable_chain.h: shared with the file format (lib/formats/scalable.cc)

// Why (initial, fpp, growth, tightening, layout) cannot make a chain; empty if they can.
std::string ParameterProblem(uint64_t initial, double fpp, double growth, double tightening,
                             Layout layout) {
  if (initial == 0) return "initial_capacity must be > 0";
  if (static_cast<double>(initial) > kMaxCapacity) return "initial_capacity beyond 2^62";
  if (!(fpp > 0 && fpp < 1)) return "fpp must be in (0, 1), got " + std::to_string(fpp);
  if (!(growth >= 1 && growth <= 16)) {
    return "growth must be in [1, 16], got " + std::to_string(growth);
  }
  if (!(tightening > 0 && tightening < 1)) {
    return "tightening must be in (0, 1), got " + std::to_string(tightening);
  }
  if (!(fpp * (1 - tightening) >= kMinStageFpp)) {
    return "the first stage's rate fpp * (1 - tightening) = " +
           std::to_string(fpp * (1 - tightening)) + " is below 1e-9";
  }
  if (!detail::KnownLayout(layout)) {
    return "unknown layout " + std::to_string(static_cast<int>(static_cast<uint8_t>(layout)));
  }
  if (detail::InfoOf(layout)->murmur128) {
    // Its stages would be Guava filters the chain hashes with its own XXH3 hashes.
    return std::string("a chain of ") + layout_name(layout) + " stages is not supported";
  }
  return std::string();
}

// The capacity after `cap`: cap * growth rounded up (exact IEEE arithmetic, the same on every
// machine), or 0 beyond kMaxCapacity.
uint64_t NextCapacity(uint64_t cap, double growth) {
  const double next = std::ceil(static_cast<double>(cap) * growth);
  return next > kMaxCapacity ? 0 : static_cast<uint64_t>(next);
}

// fpp * (1 - r) * r^i, one multiplication per stage (no pow: the same on every machine).
double StageFpp(double fpp, double r, size_t i) {
  double p = fpp * (1 - r);
  for (size_t j = 0; j < i; ++j) p *= r;
  return p;
}

}  // namespace scalable
}  // namespace detail

namespace {

using detail::scalable::NextCapacity, detail::scalable::ParameterProblem,
    detail::scalable::StageFpp;

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

}  // namespace

ScalableFilter ScalableFilter::create(uint64_t initial_capacity, double fpp,
                                      ScalableOptions options) {
  const std::string problem =
      ParameterProblem(initial_capacity, fpp, options.growth, options.tightening, options.layout);
  if (!problem.empty()) Invalid("ScalableFilter::create: " + problem);
  ScalableFilter s;
  s.initial_capacity_ = initial_capacity;
  s.fpp_ = fpp;
  s.growth_ = options.growth;
  s.tightening_ = options.tightening;
  s.layout_ = options.layout;
  s.seed_ = options.seed;
  detail::CheckKeyType("ScalableFilter::create", options.key_type);
  s.keys_.Set(options.key_type);
  s.stages_.reserve(4);
  s.stages_.push_back(Filter::create(initial_capacity, s.stage_fpp(0), options.layout, options.seed,
                                     options.key_type));
  s.counts_.push_back(0);
  s.capacities_.push_back(initial_capacity);
  return s;
}

ScalableFilter::ScalableFilter(ScalableFilter&& other) noexcept
    : stages_(std::move(other.stages_)),
      counts_(std::move(other.counts_)),
      capacities_(std::move(other.capacities_)),
      initial_capacity_(other.initial_capacity_),
      fpp_(other.fpp_),
      growth_(other.growth_),
      tightening_(other.tightening_),
      layout_(other.layout_),
      seed_(other.seed_),
      keys_(other.keys_) {
  other.stages_.clear();
  other.counts_.clear();
  other.capacities_.clear();
}

ScalableFilter& ScalableFilter::operator=(ScalableFilter&& other) noexcept {
  if (this != &other) {
    stages_ = std::move(other.stages_);
    counts_ = std::move(other.counts_);
    capacities_ = std::move(other.capacities_);
    initial_capacity_ = other.initial_capacity_;
    fpp_ = other.fpp_;
    growth_ = other.growth_;
    tightening_ = other.tightening_;
    layout_ = other.layout_;
    seed_ = other.seed_;
    keys_ = other.keys_;
    other.stages_.clear();
    other.counts_.clear();
    other.capacities_.clear();
  }
  return *this;
}

void ScalableFilter::CheckUsable(const char* who) const {
  if (stages_.empty())
    Invalid(std::string("ScalableFilter::") + who + ": the chain was moved from");
}

namespace {

[[noreturn]] void StageFull(size_t i, const std::string& why) {
  throw Error(ErrorCode::kCapacityExhausted,
              "ScalableFilter::insert: capacity exhausted: cannot "
              "add stage " +
                  std::to_string(i) + ": " + why);
}

}  // namespace

void ScalableFilter::AddStage() {
  CheckUsable("insert");
  const size_t i = stages_.size();
  if (i >= kMaxStages) StageFull(i, "the chain has kMaxStages = 64 stages");
  const uint64_t cap = NextCapacity(capacities_.back(), growth_);
  if (cap == 0) StageFull(i, "its capacity would exceed 2^62 keys");
  const double p = stage_fpp(i);
  if (p < kMinStageFpp) {
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.3g", p);  // (%f printed 0.000000)
    StageFull(i, std::string("its rate ") + rate + " would be below 1e-9");
  }
  // Room first, so that nothing below can fail after the new stage exists.
  stages_.reserve(i + 1);
  counts_.reserve(i + 1);
  capacities_.reserve(i + 1);
  Filter next = [&] {
    try {
      return Filter::create(cap, p, layout_, seed_, key_type());
    } catch (const Error& e) {
      if (e.code() != ErrorCode::kInvalidArgument) throw;
      StageFull(i, e.what());  // beyond the layout's 2^32 - 1 blocks
    }
  }();
  stages_.push_back(std::move(next));
  counts_.push_back(0);
  capacities_.push_back(cap);
}

void ScalableFilter::SyncStages() noexcept {
  for (Filter& f : stages_) FilterAccess::SetKeyType(f, keys_.type());
}

void ScalableFilter::set_key_type(KeyType type) {
  keys_.Declare("ScalableFilter::set_key_type", type);
  SyncStages();
}

// ---- Insert ----

uint64_t ScalableFilter::InsertImpl(const Keys& keys, uint8_t* fresh) {
  CheckUsable("insert");
  const size_t n = keys.size();
  if (n == 0) return 0;
  detail::ValidateKeys("ScalableFilter::insert", keys);  // before anything is written
  if (fresh != nullptr) detail::CheckExtent("ScalableFilter::insert", "fresh bytes", fresh, n, 1);
  uint64_t total = 0;
  size_t done = 0;
  while (done < n) {
    if (counts_.back() >= capacities_.back()) AddStage();
    // At most the stage's remaining capacity per call: even if every key is new, the stage ends
    // at exactly its capacity. Repeats leave room, filled by the next piece.
    const uint64_t room = capacities_.back() - counts_.back();
    const size_t take = static_cast<size_t>(std::min<uint64_t>(room, n - done));
    const Keys part = detail::SliceKeys(keys, done, take);
    // The stage's insert applies the key type (and fixes kNone); the chain follows it.
    const KeyType before = stages_.back().key_type();
    const uint64_t got =
        fresh != nullptr ? stages_.back().insert(part, fresh + done) : stages_.back().insert(part);
    if (stages_.back().key_type() != before) {
      keys_.Set(stages_.back().key_type());
      SyncStages();
    }
    counts_.back() += got;
    total += got;
    done += take;
  }
  return total;
}

uint64_t ScalableFilter::insert(const Keys& keys) { return InsertImpl(keys, nullptr); }

uint64_t ScalableFilter::insert(const Keys& keys, uint8_t* fresh) {
  if (fresh == nullptr && keys.size() != 0) {
    Invalid("ScalableFilter::insert: null fresh output with non-zero size");
  }
  return InsertImpl(keys, fresh);
}

// ---- Queries ----

void ScalableFilter::QueryEntries(const Keys& keys, const uint32_t* entries, size_t m, uint8_t* hit,
                                  bool newest_done) const {
  // pos: positions (0..m) of the entries not found yet. With `entries` (refine), val holds their
  // key indices, handed to Filter::refine, which keeps (in order) those the stage may hold.
  uint32_t pos[kTile], val[kTile];
  size_t w = 0;
  size_t stage = stages_.size();
  if (newest_done) {
    for (size_t j = 0; j < m; ++j) {
      pos[w] = static_cast<uint32_t>(j);
      w += hit[j] == 0;
    }
    --stage;
  } else {
    for (size_t j = 0; j < m; ++j) pos[j] = static_cast<uint32_t>(j);
    w = m;
  }
  while (w > 0 && stage-- > 0) {
    if (entries == nullptr) {
      const uint64_t* h = static_cast<const uint64_t*>(keys.keys());
      alignas(64) uint8_t more[kTile];
      if (w * 2 >= m) {
        // Half the tile or more unfound (absent keys): the stage answers for the whole tile and
        // the answers are ORed in, two passes that vectorize, instead of a gather and a scatter
        // per key.
        stages_[stage].contains(keys, more);
        size_t found = 0;
        for (size_t j = 0; j < m; ++j) {
          hit[j] = static_cast<uint8_t>(hit[j] | more[j]);
          found += hit[j];
        }
        w = m - found;
        if (w > 0 && w * 2 < m) {  // the next stage gathers: list the unfound positions
          size_t at = 0;
          for (size_t j = 0; j < m; ++j) {
            pos[at] = static_cast<uint32_t>(j);
            at += hit[j] == 0;
          }
        }
        continue;
      }
      // Few unfound: their hashes are gathered into a contiguous array for Filter::contains (the
      // plain pipeline, no selection), and the answers scattered back.
      alignas(64) uint64_t unfound[kTile];
      for (size_t i = 0; i < w; ++i) unfound[i] = h[pos[i]];
      stages_[stage].contains(Prehashed{unfound, w}, more);
      size_t still = 0;
      for (size_t i = 0; i < w; ++i) {
        const uint32_t p = pos[i];
        hit[p] = more[i];
        pos[still] = p;
        still += more[i] == 0;
      }
      w = still;
      continue;
    }
    for (size_t i = 0; i < w; ++i) val[i] = entries[pos[i]];
    const size_t kept = static_cast<size_t>(stages_[stage].refine(keys, val, w));
    // val[0 .. kept) is the subsequence of the queried values the stage may hold; whether a value
    // is kept depends on the value alone, so a greedy walk matches it position by position.
    size_t j = 0, still = 0;
    for (size_t i = 0; i < w; ++i) {
      const uint32_t p = pos[i];
      const uint32_t v = entries[p];
      if (j < kept && val[j] == v) {
        hit[p] = 1;
        ++j;
      } else {
        pos[still++] = p;
      }
    }
    w = still;
  }
}

template <class Emit>
uint64_t ScalableFilter::QueryTiles(const char* who, const Keys& keys, Emit&& emit) const {
  const size_t n = keys.size();
  detail::ValidateKeys(who, keys);
  const detail::KeyPlan plan = detail::PlanKeys(who, key_type(), keys, false);
  const bool prehashed = keys.kind() == Keys::Kind::kPrehashed;
  alignas(64) uint64_t hashes[kTile];
  alignas(64) uint8_t hit[kTile];
  uint64_t total = 0;
  for (size_t base = 0; base < n; base += kTile) {
    const size_t m = std::min(kTile, n - base);
    // One hash per key for the whole chain: every stage has the chain's layout, seed and key
    // type.
    const uint64_t* h = static_cast<const uint64_t*>(keys.keys()) + base;
    const Keys slice = detail::SliceKeys(keys, base, m);
    if (!prehashed) {
      detail::HashKeysAs(slice, plan, xxh64(), seed_, hashes);
      h = hashes;
    }
    const Keys tile = Prehashed{h, m};
    stages_.back().contains(tile, hit);
    QueryEntries(tile, nullptr, m, hit, /*newest_done=*/true);
    if (plan.out_of_range) detail::ZeroOutOfRange(slice, m, hit);
    total += emit(base, m, hit);
  }
  return total;
}

uint64_t ScalableFilter::contains(const Keys& keys, uint8_t* out) const {
  CheckUsable("contains");
  if (stages_.size() == 1 || keys.size() == 0) return stages_.front().contains(keys, out);
  if (out == nullptr) Invalid("ScalableFilter::contains: null output with non-zero size");
  detail::CheckExtent("ScalableFilter::contains", "result bytes", out, keys.size(), 1);
  return QueryTiles("ScalableFilter::contains", keys,
                    [&](size_t base, size_t m, const uint8_t* hit) {
                      uint64_t ones = 0;
                      for (size_t j = 0; j < m; ++j) {
                        out[base + j] = hit[j];
                        ones += hit[j];
                      }
                      return ones;
                    });
}

uint64_t ScalableFilter::contains_bitmap(const Keys& keys, uint8_t* bitmap) const {
  CheckUsable("contains_bitmap");
  if (stages_.size() == 1 || keys.size() == 0) {
    return stages_.front().contains_bitmap(keys, bitmap);
  }
  if (bitmap == nullptr) Invalid("ScalableFilter::contains_bitmap: null output with non-zero size");
  detail::CheckExtent("ScalableFilter::contains_bitmap", "bitmap bytes", bitmap,
                      (keys.size() + 7) / 8, 1);
  // Tiles are whole bytes of the bitmap (kTile is a multiple of 8).
  return QueryTiles("ScalableFilter::contains_bitmap", keys,
                    [&](size_t base, size_t m, const uint8_t* hit) {
                      uint64_t ones = 0;
                      for (size_t b = 0; b < m; b += 8) {
                        uint8_t byte = 0;
                        for (size_t j = b; j < std::min(b + 8, m); ++j) {
                          byte = static_cast<uint8_t>(byte | (hit[j] << (j - b)));
                          ones += hit[j];
                        }
                        bitmap[(base + b) / 8] = byte;
                      }
                      return ones;
                    });
}

uint64_t ScalableFilter::select(const Keys& keys, uint32_t* selection) const {
  CheckUsable("select");
  if (stages_.size() == 1 || keys.size() == 0) return stages_.front().select(keys, selection);
  if (keys.size() > (uint64_t{1} << 32)) {
    Invalid("ScalableFilter::select: more than 2^32 keys do not fit 32-bit selection indices");
  }
  if (selection == nullptr) Invalid("ScalableFilter::select: null output with non-zero size");
  detail::CheckExtent("ScalableFilter::select", "selection entries", selection, keys.size(), 4);
  uint64_t count = 0;
  QueryTiles("ScalableFilter::select", keys, [&](size_t base, size_t m, const uint8_t* hit) {
    for (size_t j = 0; j < m; ++j) {
      selection[count] = static_cast<uint32_t>(base + j);
      count += hit[j];
    }
    return uint64_t{0};
  });
  return count;
}

uint64_t ScalableFilter::refine(const Keys& keys, uint32_t* selection, size_t count) const {
  CheckUsable("refine");
  if (stages_.size() == 1 || count == 0) return stages_.front().refine(keys, selection, count);
  if (selection == nullptr) Invalid("ScalableFilter::refine: null selection with non-zero count");
  detail::CheckExtent("ScalableFilter::refine", "selection entries", selection, count, 4);
  for (size_t i = 0; i < count; ++i) {
    if (selection[i] >= keys.size()) {
      Invalid("ScalableFilter::refine: selection[" + std::to_string(i) +
              "] = " + std::to_string(selection[i]) + " is not below the number of keys, " +
              std::to_string(keys.size()));
    }
  }
  detail::ValidateKeys("ScalableFilter::refine", keys);
  alignas(64) uint8_t hit[kTile];
  size_t kept = 0;
  for (size_t base = 0; base < count; base += kTile) {
    const size_t m = std::min(kTile, count - base);
    std::memset(hit, 0, m);
    QueryEntries(keys, selection + base, m, hit, /*newest_done=*/false);
    // In place: the write position never passes the read position.
    for (size_t j = 0; j < m; ++j) {
      selection[kept] = selection[base + j];
      kept += hit[j];
    }
  }
  return kept;
}

// ---- The chain ----

const Filter& ScalableFilter::stage(size_t i) const {
  if (i >= stages_.size()) {
    Invalid("ScalableFilter::stage: " + std::to_string(i) +
            " is not below stages() = " + std::to_string(stages_.size()));
  }
  return stages_[i];
}

uint64_t ScalableFilter::stage_count(size_t i) const {
  stage(i);  // checks i
  return counts_[i];
}

uint64_t ScalableFilter::stage_capacity(size_t i) const {
  if (i < capacities_.size()) return capacities_[i];
  if (i >= kMaxStages) {
    Invalid("ScalableFilter::stage_capacity: " + std::to_string(i) + " is not below kMaxStages");
  }
  uint64_t cap = initial_capacity_;
  for (size_t j = 1; j <= i && cap != 0; ++j) cap = NextCapacity(cap, growth_);
  return cap;
}

double ScalableFilter::stage_fpp(size_t i) const { return StageFpp(fpp_, tightening_, i); }

uint64_t ScalableFilter::count() const noexcept {
  uint64_t total = 0;
  for (uint64_t c : counts_) total += c;
  return total;
}

double ScalableFilter::approximate_count() const noexcept {
  double total = 0;
  for (const Filter& f : stages_) total += f.approximate_count();
  return total;
}

size_t ScalableFilter::size_bytes() const noexcept {
  size_t total = 0;
  for (const Filter& f : stages_) total += f.size_bytes();
  return total;
}

double ScalableFilter::bits_per_key() const noexcept {
  const uint64_t n = count();
  return n == 0 ? 0 : 8.0 * static_cast<double>(size_bytes()) / static_cast<double>(n);
}

double ScalableFilter::expected_fpp() const noexcept {
  double none = 1;
  for (const Filter& f : stages_) none *= 1 - f.expected_fpp();
  return 1 - none;
}

void ScalableFilter::clear() {
  CheckUsable("clear");
  stages_.erase(stages_.begin() + 1, stages_.end());
  counts_.resize(1);
  capacities_.resize(1);
  stages_.front().clear();
  counts_.front() = 0;
}

// ---- Merge ----

namespace {

// Why `a` and `b` cannot be merged soundly; empty if they can.
std::string MergeProblem(const ScalableFilter& a, const ScalableFilter& b) {
  if (a.stages() == 0 || b.stages() == 0) return "a chain was moved from";
  if (a.initial_capacity() != b.initial_capacity()) return "initial capacities differ";
  if (!SameBits(a.fpp(), b.fpp())) return "fpp differs";
  if (!SameBits(a.growth(), b.growth())) return "growth differs";
  if (!SameBits(a.tightening(), b.tightening())) return "tightening differs";
  if (a.layout() != b.layout()) return "layouts differ";
  if (a.seed() != b.seed()) return "seeds differ";
  if (!detail::KeyTypesCombine(a.key_type(), b.key_type())) {
    return std::string("key types differ (") + key_type_name(a.key_type()) + " vs " +
           key_type_name(b.key_type()) + ")";
  }
  for (size_t i = 0; i < std::max(a.stages(), b.stages()); ++i) {
    const uint64_t ca = i < a.stages() ? a.stage_count(i) : 0;
    const uint64_t cb = i < b.stages() ? b.stage_count(i) : 0;
    const uint64_t cap = a.stage_capacity(i);
    if (ca > cap || cb > cap - ca) {
      return "stage " + std::to_string(i) + " would hold " + std::to_string(ca) + " + " +
             std::to_string(cb) + " keys, above its capacity " + std::to_string(cap) +
             " (its false-positive rate would exceed its share of fpp)";
    }
  }
  return std::string();
}

}  // namespace

bool ScalableFilter::can_merge(const ScalableFilter& other) const noexcept {
  try {
    return MergeProblem(*this, other).empty();
  } catch (...) {
    return false;  // only std::bad_alloc from building a message
  }
}

void ScalableFilter::merge(const ScalableFilter& other) {
  CheckUsable("merge");
  if (other.stages_.empty()) Invalid("ScalableFilter::merge: the other chain was moved from");
  const std::string problem = MergeProblem(*this, other);
  if (!problem.empty()) throw Error(ErrorCode::kIncompatible, "ScalableFilter::merge: " + problem);
  keys_.Combine("ScalableFilter::merge", other.key_type());
  SyncStages();
  // Copies of the stages only `other` has come first: if one cannot be allocated, this chain is
  // unchanged.
  std::vector<Filter> extra(other.stages_.begin() + std::min(stages_.size(), other.stages_.size()),
                            other.stages_.end());
  stages_.reserve(stages_.size() + extra.size());
  counts_.reserve(stages_.size() + extra.size());
  capacities_.reserve(stages_.size() + extra.size());
  const size_t common = std::min(stages_.size(), other.stages_.size());
  for (size_t i = 0; i < common; ++i) {
    stages_[i].merge(other.stages_[i]);
    counts_[i] += other.counts_[i];
  }
  for (size_t i = 0; i < extra.size(); ++i) {
    stages_.push_back(std::move(extra[i]));
    counts_.push_back(other.counts_[common + i]);
    capacities_.push_back(other.capacities_[common + i]);
  }
}

}  // namespace simdbloom
