// SPDX-License-Identifier: Apache-2.0
// ScalableFilter: a chain of Filter stages (Almeida et al. 2007). Growth (capacity split at stage
// boundaries), statistics and merge; inserts and queries (newest stage first, over tiles on the
// stack) are scalable_bulk.cc, the chain's file format (lib/FORMAT.md, "Scalable chains")
// lib/formats/scalable.cc. The stages are plain Filters: every SIMD path, layout and the stage
// file format are theirs.
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

// The move assignment's fields, from the default (empty) state.
ScalableFilter::ScalableFilter(ScalableFilter&& other) noexcept { *this = std::move(other); }

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

// ---- Insert and queries: scalable_bulk.cc ----

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
