// SPDX-License-Identifier: Apache-2.0
// ScalableFilter: a chain of Filter stages (Almeida et al. 2007). Growth (capacity split at stage
// boundaries), queries newest stage first over tiles on the stack, statistics, merge and the
// chain's file format (lib/FORMAT.md, "Scalable chains"). The stages are plain Filters: every
// SIMD path, layout and the stage file format are theirs.
#include "simdbloom/scalable.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <istream>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "kernels/scalar/hash.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/formats/file_io.h"

namespace simdbloom {
namespace {

using detail::GetU32, detail::GetU64, detail::PutU32, detail::PutU64;  // file_io.h

using detail::Invalid;

constexpr size_t kHeaderSize = 64;
constexpr size_t kEntrySize = 16;  // per stage: count, stage bytes
constexpr char kMagic[8] = {'S', 'I', 'M', 'D', 'B', 'S', 'C', 'L'};
constexpr uint32_t kVersion = 1;
constexpr double kMinStageFpp = 1e-9;  // what size_for() sizes
// Capacities stay below 2^62 (a stage that large could not be allocated anyway).
constexpr double kMaxCapacity = 4611686018427387904.0;
// Keys per tile of a multi-stage query: hashes, unfound hashes, result bytes and selections on
// the stack (26 KiB).
constexpr size_t kTile = 1024;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "not a valid simdbloom scalable chain: " + what);
}

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

void PutF64(uint8_t* p, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  PutU64(p, bits);
}
double GetF64(const uint8_t* p) {
  const uint64_t bits = GetU64(p);
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// The header, stage table and their checksum: what precedes the stages in a file.
struct ChainHeader {
  Layout layout;
  uint32_t stages;
  uint64_t initial;
  double fpp, growth, tightening;
  uint64_t seed;
  std::vector<uint64_t> counts, bytes, capacities;
  uint64_t stage_bytes_total;  // sum of bytes
  KeyType key_type = KeyType::kLegacy;
};

size_t PrefixSize(uint32_t stages) { return kHeaderSize + kEntrySize * stages + 8; }

// Validates the fixed 64 bytes (everything but what the checksum alone can tell) and returns the
// stage count.
uint32_t DecodeFixed(const uint8_t* h) {
  // The header checksum covers the stage table too: DecodePrefix checks it.
  detail::CheckHeaderStart(h, kMagic, kVersion, /*header_checksum=*/false, Bad);
  if (!detail::KnownLayout(static_cast<Layout>(h[16]))) {
    Bad("unknown layout " + std::to_string(h[16]));
  }
  KeyType type;
  if (!detail::KeyTypeFromByte(h[17], &type)) Bad("key type " + std::to_string(h[17]));
  if (h[18] != 0 || h[19] != 0) Bad("reserved bytes are not zero");
  const uint32_t stages = GetU32(h + 20);
  if (stages == 0 || stages > ScalableFilter::kMaxStages) {
    Bad("stage count " + std::to_string(stages));
  }
  return stages;
}

// Validates header + table + checksum (PrefixSize(stages) bytes at h); `available`: bytes that
// follow them. Nothing is allocated beyond the 64-entry table.
ChainHeader DecodePrefix(const uint8_t* h, uint64_t available) {
  ChainHeader c;
  c.stages = DecodeFixed(h);
  const size_t table_end = kHeaderSize + kEntrySize * c.stages;
  if (scalar::Checksum(h, table_end) != GetU64(h + table_end)) Bad("header checksum mismatch");
  c.layout = static_cast<Layout>(h[16]);
  detail::KeyTypeFromByte(h[17], &c.key_type);  // (checked by DecodeFixed)
  c.initial = GetU64(h + 24);
  c.fpp = GetF64(h + 32);
  c.growth = GetF64(h + 40);
  c.tightening = GetF64(h + 48);
  c.seed = GetU64(h + 56);
  const std::string problem = ParameterProblem(c.initial, c.fpp, c.growth, c.tightening, c.layout);
  if (!problem.empty()) Bad(problem);
  c.stage_bytes_total = 0;
  uint64_t cap = c.initial;
  for (uint32_t i = 0; i < c.stages; ++i) {
    if (i > 0) cap = NextCapacity(cap, c.growth);
    if (cap == 0) Bad("stage " + std::to_string(i) + " capacity beyond 2^62");
    const uint8_t* e = h + kHeaderSize + kEntrySize * i;
    const uint64_t count = GetU64(e), bytes = GetU64(e + 8);
    if (count > cap) {
      Bad("stage " + std::to_string(i) + " holds " + std::to_string(count) +
          " keys, its capacity is " + std::to_string(cap));
    }
    if (bytes < kHeaderSize || bytes > available - c.stage_bytes_total) {
      Bad("stage " + std::to_string(i) + " of " + std::to_string(bytes) + " bytes, " +
          std::to_string(available - c.stage_bytes_total) + " left in the input");
    }
    c.stage_bytes_total += bytes;
    c.counts.push_back(count);
    c.bytes.push_back(bytes);
    c.capacities.push_back(cap);
  }
  if (c.stage_bytes_total != available) {
    Bad(std::to_string(available - c.stage_bytes_total) + " trailing bytes after the stages");
  }
  return c;
}

// A std::streambuf that appends to a vector (to_bytes reuses Filter::save).
class AppendBuf : public std::streambuf {
 public:
  explicit AppendBuf(std::vector<uint8_t>* out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_->insert(out_->end(), reinterpret_cast<const uint8_t*>(s),
                 reinterpret_cast<const uint8_t*>(s) + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      out_->push_back(static_cast<uint8_t>(c));
    }
    return traits_type::not_eof(c);
  }

 private:
  std::vector<uint8_t>* out_;
};

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

// ---- Persistence ----

size_t ScalableFilter::serialized_size() const noexcept {
  size_t total = PrefixSize(static_cast<uint32_t>(stages_.size()));
  for (const Filter& f : stages_) total += f.serialized_size();
  return total;
}

namespace {

std::vector<uint8_t> EncodePrefix(const ScalableFilter& s) {
  const uint32_t n = static_cast<uint32_t>(s.stages());
  std::vector<uint8_t> h(PrefixSize(n), 0);
  std::memcpy(h.data(), kMagic, 8);
  PutU32(&h[8], kVersion);
  PutU32(&h[12], static_cast<uint32_t>(kHeaderSize));
  h[16] = static_cast<uint8_t>(s.layout());
  h[17] = static_cast<uint8_t>(s.key_type());
  PutU32(&h[20], n);
  PutU64(&h[24], s.initial_capacity());
  PutF64(&h[32], s.fpp());
  PutF64(&h[40], s.growth());
  PutF64(&h[48], s.tightening());
  PutU64(&h[56], s.seed());
  for (uint32_t i = 0; i < n; ++i) {
    PutU64(&h[kHeaderSize + kEntrySize * i], s.stage_count(i));
    PutU64(&h[kHeaderSize + kEntrySize * i + 8], s.stage(i).serialized_size());
  }
  const size_t table_end = kHeaderSize + kEntrySize * n;
  PutU64(&h[table_end], scalar::Checksum(h.data(), table_end));
  return h;
}

}  // namespace

void ScalableFilter::save(std::ostream& out) const {
  CheckUsable("save");
  const std::vector<uint8_t> prefix = EncodePrefix(*this);
  out.write(reinterpret_cast<const char*>(prefix.data()),
            static_cast<std::streamsize>(prefix.size()));
  if (!out) throw Error(ErrorCode::kIo, "ScalableFilter::save: the stream failed while writing");
  for (const Filter& f : stages_) f.save(out);
}

void ScalableFilter::save_file(const std::string& path) const {
  CheckUsable("save_file");
  detail::SaveFile(path, "ScalableFilter::save_file", [this](std::ostream& out) { save(out); });
}

std::vector<uint8_t> ScalableFilter::to_bytes() const {
  CheckUsable("to_bytes");
  std::vector<uint8_t> out = EncodePrefix(*this);
  out.reserve(serialized_size());
  AppendBuf buf(&out);
  std::ostream stream(&buf);
  for (const Filter& f : stages_) f.save(stream);
  return out;
}

// The loaders' access to a chain under construction (declared a friend by ScalableFilter).
struct ScalableAccess {
  static ScalableFilter Empty(const ChainHeader& c) {
    ScalableFilter s;
    s.initial_capacity_ = c.initial;
    s.fpp_ = c.fpp;
    s.growth_ = c.growth;
    s.tightening_ = c.tightening;
    s.layout_ = c.layout;
    s.seed_ = c.seed;
    s.keys_.Set(c.key_type);
    s.stages_.reserve(c.stages);
    s.counts_.reserve(c.stages);
    s.capacities_.reserve(c.stages);
    return s;
  }
  // Loads stage i from exactly its `size` bytes and checks it belongs to the chain.
  static void Adopt(ScalableFilter* s, const ChainHeader& c, uint32_t i, const uint8_t* data,
                    size_t size) {
    const std::string which = "stage " + std::to_string(i) + ": ";
    Filter f = [&] {
      try {
        return Filter::load(data, size);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kFormat) throw;
        Bad(which + e.what());
      }
    }();
    if (f.layout() != c.layout) Bad(which + "layout differs from the chain's");
    if (f.seed() != c.seed) Bad(which + "seed differs from the chain's");
    if (f.key_type() != c.key_type) Bad(which + "key type differs from the chain's");
    // Sized for its share of fpp at its capacity (create() aims at 0.97 of it).
    const double share = StageFpp(c.fpp, c.tightening, i);
    if (!(f.predicted_fpp(c.capacities[i]) <= share)) {
      Bad(which + "too small for its capacity " + std::to_string(c.capacities[i]) + " at rate " +
          std::to_string(share));
    }
    s->stages_.push_back(std::move(f));
    s->counts_.push_back(c.counts[i]);
    s->capacities_.push_back(c.capacities[i]);
  }
};

ScalableFilter ScalableFilter::from_bytes(const uint8_t* data, size_t size) {
  if (data == nullptr && size > 0) {
    Invalid("ScalableFilter::from_bytes: null data with non-zero size");
  }
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const uint32_t n = DecodeFixed(data);
  if (size < PrefixSize(n)) Bad("truncated stage table (" + std::to_string(size) + " bytes)");
  // Every size is checked against the input here, before any stage is allocated.
  const ChainHeader c = DecodePrefix(data, size - PrefixSize(n));
  ScalableFilter s = ScalableAccess::Empty(c);
  size_t at = PrefixSize(n);
  for (uint32_t i = 0; i < n; ++i) {
    ScalableAccess::Adopt(&s, c, i, data + at, static_cast<size_t>(c.bytes[i]));
    at += static_cast<size_t>(c.bytes[i]);
  }
  return s;
}

ScalableFilter ScalableFilter::load(std::istream& in) {
  const auto check_readable = [&] {
    if (in.bad())
      throw Error(ErrorCode::kIo, "ScalableFilter::load: the stream failed while reading");
  };
  uint8_t prefix[kHeaderSize + kEntrySize * kMaxStages + 8];
  in.read(reinterpret_cast<char*>(prefix), kHeaderSize);
  check_readable();
  if (in.gcount() != static_cast<std::streamsize>(kHeaderSize)) {
    Bad("truncated header (" + std::to_string(in.gcount()) + " bytes)");
  }
  const uint32_t n = DecodeFixed(prefix);
  const size_t rest = PrefixSize(n) - kHeaderSize;
  in.read(reinterpret_cast<char*>(prefix + kHeaderSize), static_cast<std::streamsize>(rest));
  check_readable();
  if (in.gcount() != static_cast<std::streamsize>(rest)) Bad("truncated stage table");
  // The stage sizes come from the checksummed table; a seekable stream must hold exactly them.
  // Any other is read a stage at a time into a buffer that grows with the bytes received, so a
  // table claiming gigabytes costs no more memory than the stream delivers.
  const std::istream::pos_type start = in.tellg();
  uint64_t available = UINT64_MAX;
  if (start != std::istream::pos_type(-1)) {
    in.seekg(0, std::ios::end);
    const std::istream::pos_type end = in.tellg();
    in.seekg(start);
    if (end == std::istream::pos_type(-1) || !in) Bad("stream cannot be measured");
    available = static_cast<uint64_t>(end - start);
  }
  // With an unmeasured stream, `available` is taken as the table's own total; the reads below
  // then find out whether the stream holds it.
  uint64_t claimed = 0;
  if (available == UINT64_MAX) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t b = GetU64(prefix + kHeaderSize + kEntrySize * i + 8);
      claimed = b > UINT64_MAX - claimed ? UINT64_MAX - 1 : claimed + b;
    }
    available = claimed;
  }
  const ChainHeader c = DecodePrefix(prefix, available);
  ScalableFilter s = ScalableAccess::Empty(c);
  // Each stage is a Filter file: its header is read, then its payload in bounded pieces, and the
  // stage's memory is allocated only once that payload has matched the checksum in the stage's
  // header (detail::ReadPayload): a table or a stage header claiming gigabytes costs no more memory
  // than the stream delivers, nor does a stage of the claimed size whose bytes are wrong.
  std::vector<uint8_t> staged;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t want = c.bytes[i];  // at least kHeaderSize (DecodePrefix)
    const std::string which = "stage " + std::to_string(i);
    uint8_t stage_header[kHeaderSize];
    in.read(reinterpret_cast<char*>(stage_header), kHeaderSize);
    if (static_cast<size_t>(in.gcount()) != kHeaderSize) {
      check_readable();
      Bad(which + " truncated (" + std::to_string(in.gcount()) + " of " + std::to_string(want) +
          " bytes)");
    }
    // A header that is not a filter's is refused with Filter::load's reason, before its payload.
    if (scalar::Checksum(stage_header, 56) != GetU64(stage_header + 56)) {
      ScalableAccess::Adopt(&s, c, i, stage_header, kHeaderSize);
    }
    staged.clear();
    detail::ReadPayload(
        in, want - kHeaderSize, GetU64(stage_header + 48),
        [&](const std::string& what) { Bad(which + ": " + what); },
        "ScalableFilter::load: the stream failed while reading",
        [&] {
          staged.resize(static_cast<size_t>(want));
          std::memcpy(staged.data(), stage_header, kHeaderSize);
          return staged.data() + kHeaderSize;
        });
    ScalableAccess::Adopt(&s, c, i, staged.data(), staged.size());
  }
  if (in.peek() != std::char_traits<char>::eof()) Bad("trailing bytes after the stages");
  check_readable();
  return s;
}

ScalableFilter ScalableFilter::load_file(const std::string& path) {
  return detail::LoadFile(path, "ScalableFilter::load_file",
                          [](std::istream& in) { return load(in); });
}

}  // namespace simdbloom
