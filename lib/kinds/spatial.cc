// SPDX-License-Identifier: Apache-2.0
// SpatialFilter (simdbloom/spatial.hpp): construction and sizing, inserts and classification
// through the spatial kernels (kernels/spatial/), the paper's statistics, and its file format
// (lib/FORMAT.md, "Spatial filter").
#include "simdbloom/spatial.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <istream>
#include <iterator>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/layout.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "kernels/scalar/hash.h"
#include "kernels/spatial/scalar.h"
#include "kernels/spatial/spec.h"
#include "lib/core/driver.h"
#include "lib/core/key_source.h"
#include "lib/core/memory.h"
#include "lib/core/prefetch.h"
#include "lib/formats/file_io.h"

namespace simdbloom {
namespace {

using detail::GetU32, detail::GetU64, detail::PutU32, detail::PutU64;  // file_io.h

using detail::Invalid;
using detail::SpatialSpec;

constexpr uint64_t kMaxBlocks = (uint64_t{1} << 32) - 1;

uint32_t CellBytesFor(uint32_t num_areas) {
  return num_areas <= SpatialSpec::kMaxAreasOneByte ? 1 : 2;
}

void CheckGeometry(const char* who, uint64_t num_blocks, uint32_t k, uint32_t num_areas) {
  if (num_areas < 1 || num_areas > SpatialSpec::kMaxAreas) {
    Invalid(std::string(who) + ": num_areas = " + std::to_string(num_areas) +
            " is outside 1..65535");
  }
  if (k < SpatialSpec::kMinK || k > SpatialSpec::kMaxK) {
    Invalid(std::string(who) + ": k = " + std::to_string(k) + " is outside 1..8");
  }
  if (num_blocks == 0 || num_blocks > kMaxBlocks) {
    Invalid(std::string(who) + ": block count " + std::to_string(num_blocks) +
            " is outside 1..2^32 - 1");
  }
}

// Zeroed, 64-byte aligned (huge pages from 2 MiB on, as Filter's words: lib/core/memory.h).
uint8_t* AllocateCells(uint64_t bytes) {
  return static_cast<uint8_t*>(detail::AllocateZeroed(bytes, "spatial filter"));
}

// The prefetch tuner's key for f's kernels (lib/core/prefetch.h): spatial, its cell width as the
// variant, its size class.
detail::TuneTarget TuneOf(const SpatialFilter& f) {
  return detail::TuneTarget::Of(detail::KindSlot::spatial, f.size_bytes(), f.data() != nullptr,
                                false, static_cast<int>(f.cell_bytes()) - 1);
}

// The kernels' parameters; bulk calls pass the kernels they run on: the prefetch distance is then
// measured on first use of f's size class, with the classify kernel on f's cells (as Filter's).
detail::SpatialParams ParamsOf(const SpatialFilter& f, const detail::SpatialKernels* sk = nullptr) {
  detail::SpatialParams p{f.num_blocks(), f.num_hashes(), f.cell_bytes()};
  p.seed = f.seed();
  if (sk != nullptr) {
    p.prefetch_distance =
        detail::MeasuredDistance(TuneOf(f), p, detail::KeyKind::kHashes,
                                 [&](detail::SpatialParams q, const detail::KeySource& s) {
                                   std::vector<uint16_t> out(detail::kCalibKeys);
                                   sk->classify(f.data(), q, s, detail::kCalibKeys, out.data());
                                 });
  }
  return p;
}

// ---- File format ----
constexpr size_t kHeaderSize = 64;
constexpr char kMagic[8] = {'S', 'I', 'M', 'D', 'B', 'S', 'B', 'F'};
constexpr uint32_t kFormatVersion = 1;       // no area names
constexpr uint32_t kFormatVersionNames = 2;  // version 1 + the names table
constexpr uint8_t kHashXxh3 = 1;
// The names table (version 2): u64 size of the entries, u64 XXH3 of them, then per area u16 size
// and the name's bytes.
constexpr uint64_t kNamesPrefix = 16;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "not a valid simdbloom spatial filter: " + what);
}
// ReadPayload's messages ("truncated payload", "payload checksum mismatch") for the names table.
[[noreturn]] void BadNames(const std::string& what) { Bad("names table: " + what); }

struct Header {
  uint32_t version;
  uint32_t cell_bytes, k, num_areas, current;
  uint64_t num_blocks, seed, checksum;
  uint64_t cell_bytes_total;  // payload part 1
  uint64_t table_bytes;       // payload part 2
  KeyType key_type;
};

// Validates the header; `available` = bytes after the header (SIZE_MAX: unknown, a stream).
Header DecodeHeader(const uint8_t* h, uint64_t available) {
  Header out;
  out.version = GetU32(h + 8);
  if (std::memcmp(h, kMagic, 8) == 0 && out.version != kFormatVersion &&
      out.version != kFormatVersionNames) {
    Bad("format version " + std::to_string(out.version) + " (this library reads versions 1 and 2)");
  }
  detail::CheckHeaderStart(h, kMagic, out.version, /*header_checksum=*/true, Bad);
  out.cell_bytes = h[16];
  if (h[17] != kHashXxh3) Bad("hash id " + std::to_string(h[17]));
  if (!detail::KeyTypeFromByte(h[18], &out.key_type)) Bad("key type " + std::to_string(h[18]));
  if (h[19] != 0) Bad("reserved byte is not zero");
  out.k = GetU32(h + 20);
  if (out.k < SpatialSpec::kMinK || out.k > SpatialSpec::kMaxK) Bad("k = " + std::to_string(out.k));
  out.num_blocks = GetU64(h + 24);
  if (out.num_blocks == 0 || out.num_blocks > kMaxBlocks) {
    Bad("block count " + std::to_string(out.num_blocks));
  }
  out.seed = GetU64(h + 32);
  out.num_areas = GetU32(h + 40);
  if (out.num_areas < 1 || out.num_areas > SpatialSpec::kMaxAreas) {
    Bad("number of areas " + std::to_string(out.num_areas));
  }
  if (out.cell_bytes != CellBytesFor(out.num_areas)) {
    Bad("cell size " + std::to_string(out.cell_bytes) + " for " + std::to_string(out.num_areas) +
        " areas");
  }
  out.current = GetU32(h + 44);
  if (out.current > out.num_areas) Bad("highest label " + std::to_string(out.current));
  out.checksum = GetU64(h + 48);
  out.cell_bytes_total = out.num_blocks * SpatialSpec::kCellsPerBlock * out.cell_bytes;
  out.table_bytes = 16 * uint64_t{out.num_areas};
  const uint64_t need = out.cell_bytes_total + out.table_bytes;
  if (available != SIZE_MAX && out.version == kFormatVersion && need != available) {
    Bad("payload of " + std::to_string(available) + " bytes, the header needs " +
        std::to_string(need));
  }
  // Version 2: the names table follows; its own size field is checked by ParseNames.
  if (available != SIZE_MAX && out.version == kFormatVersionNames &&
      (available < need || available - need < kNamesPrefix)) {
    Bad("payload of " + std::to_string(available) + " bytes, the header needs at least " +
        std::to_string(need + kNamesPrefix) + " (cells, area table, names table)");
  }
  return out;
}

}  // namespace

// ---- Construction ----

SpatialFilter::SpatialFilter(uint64_t num_blocks, uint32_t k, uint32_t num_areas, uint64_t seed)
    : num_blocks_(num_blocks),
      seed_(seed),
      k_(k),
      cell_bytes_(CellBytesFor(num_areas)),
      num_areas_(num_areas),
      members_(num_areas, 0),
      written_(num_areas, 0) {
  cells_ = AllocateCells(num_blocks * SpatialSpec::kCellsPerBlock * cell_bytes_);
}

SpatialFilter SpatialFilter::with_blocks(uint64_t num_blocks, uint32_t k, uint32_t num_areas,
                                         uint64_t seed, KeyType key_type) {
  CheckGeometry("SpatialFilter::with_blocks", num_blocks, k, num_areas);
  detail::CheckKeyType("SpatialFilter::with_blocks", key_type);
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here
  SpatialFilter f(num_blocks, k, num_areas, seed);
  f.keys_.Set(key_type);
  return f;
}

SpatialFilter SpatialFilter::create(uint64_t expected_items, double fpp, uint32_t num_areas,
                                    uint64_t seed, KeyType key_type) {
  const char* who = "SpatialFilter::create";
  if (expected_items == 0) Invalid(std::string(who) + ": expected_items must be > 0");
  if (!(fpp >= 1e-9 && fpp < 1)) {
    Invalid(std::string(who) + ": fpp = " + std::to_string(fpp) + " is outside [1e-9, 1)");
  }
  CheckGeometry(who, 1, 1, num_areas);
  const double target = kSizingHeadroom * fpp;
  const double n = static_cast<double>(expected_items);
  uint64_t best_blocks = 0;
  uint32_t best_k = 0;
  for (uint32_t k = SpatialSpec::kMinK; k <= SpatialSpec::kMaxK; ++k) {
    auto ok = [&](uint64_t blocks) {
      return detail::SpatialAllWritten(k, n / static_cast<double>(blocks)) <= target;
    };
    uint64_t hi = 1;
    while (hi < kMaxBlocks && !ok(hi)) hi = std::min(kMaxBlocks, hi * 2);
    if (!ok(hi)) continue;
    uint64_t lo = hi / 2;  // !ok(lo) or lo == 0
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (ok(mid) ? hi : lo) = mid;
    }
    if (best_blocks == 0 || hi < best_blocks) {
      best_blocks = hi;
      best_k = k;
    }
  }
  if (best_blocks == 0) {
    Invalid(std::string(who) + ": " + std::to_string(expected_items) + " keys at fpp " +
            std::to_string(fpp) + " need more than 2^32 - 1 blocks");
  }
  return with_blocks(best_blocks, best_k, num_areas, seed, key_type);
}

SpatialFilter::SpatialFilter(const SpatialFilter& other)
    : num_blocks_(other.num_blocks_),
      seed_(other.seed_),
      k_(other.k_),
      cell_bytes_(other.cell_bytes_),
      num_areas_(other.num_areas_),
      current_(other.current_),
      keys_(other.keys_),
      members_(other.members_),
      written_(other.written_),
      names_(other.names_) {
  if (other.cells_ != nullptr) {
    cells_ = AllocateCells(other.size_bytes());
    std::memcpy(cells_, other.cells_, other.size_bytes());
  }
}

SpatialFilter& SpatialFilter::operator=(const SpatialFilter& other) {
  if (this != &other) *this = SpatialFilter(other);
  return *this;
}

SpatialFilter::SpatialFilter(SpatialFilter&& other) noexcept
    : cells_(std::exchange(other.cells_, nullptr)),
      num_blocks_(other.num_blocks_),
      seed_(other.seed_),
      k_(other.k_),
      cell_bytes_(other.cell_bytes_),
      num_areas_(other.num_areas_),
      current_(other.current_),
      keys_(other.keys_),
      members_(std::move(other.members_)),
      written_(std::move(other.written_)),
      names_(std::move(other.names_)) {}

SpatialFilter& SpatialFilter::operator=(SpatialFilter&& other) noexcept {
  if (this != &other) {
    Release();
    cells_ = std::exchange(other.cells_, nullptr);
    num_blocks_ = other.num_blocks_;
    seed_ = other.seed_;
    k_ = other.k_;
    cell_bytes_ = other.cell_bytes_;
    num_areas_ = other.num_areas_;
    current_ = other.current_;
    keys_ = other.keys_;
    members_ = std::move(other.members_);
    written_ = std::move(other.written_);
    names_ = std::move(other.names_);
  }
  return *this;
}

SpatialFilter::~SpatialFilter() { Release(); }

void SpatialFilter::Release() noexcept {
  std::free(cells_);
  cells_ = nullptr;
}

uint64_t SpatialFilter::members(uint16_t label) const noexcept {
  return label >= 1 && label <= members_.size() ? members_[label - 1] : 0;
}

double SpatialFilter::predicted_fpp(uint64_t n) const {
  return detail::SpatialAllWritten(k_, static_cast<double>(n) / static_cast<double>(num_blocks_));
}

void SpatialFilter::set_area_name(uint16_t label, std::string_view name) {
  const char* who = "SpatialFilter::set_area_name";
  if (cells_ == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (label < 1 || label > num_areas_) {
    Invalid(std::string(who) + ": label " + std::to_string(label) + " is outside 1.." +
            std::to_string(num_areas_));
  }
  if (name.size() > kMaxAreaNameBytes) {
    Invalid(std::string(who) + ": a name of " + std::to_string(name.size()) + " bytes (at most " +
            std::to_string(kMaxAreaNameBytes) + ")");
  }
  if (names_.empty()) {
    if (name.empty()) return;
    names_.resize(num_areas_);
  }
  names_[label - 1].assign(name.data(), name.size());
}

std::string_view SpatialFilter::area_name(uint16_t label) const noexcept {
  if (label < 1 || label > names_.size()) return {};
  return names_[label - 1];
}

bool SpatialFilter::has_area_names() const noexcept {
  for (const std::string& n : names_) {
    if (!n.empty()) return true;
  }
  return false;
}


// ---- Insert and classify ----

void SpatialFilter::CheckLabel(const char* who, uint16_t label) const {
  if (cells_ == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (label < 1 || label > num_areas_) {
    Invalid(std::string(who) + ": label " + std::to_string(label) + " is outside 1.." +
            std::to_string(num_areas_));
  }
  if (label < current_) {
    Invalid(std::string(who) + ": label " + std::to_string(label) + " after label " +
            std::to_string(current_) + ": areas must be inserted in ascending label order");
  }
}

uint64_t SpatialFilter::insert_hash(uint16_t label, uint64_t hash) {
  CheckLabel("SpatialFilter::insert", label);
  const uint64_t raised = scalar::SpatialInsertHash(cells_, ParamsOf(*this), hash, label);
  current_ = label;
  members_[label - 1] += 1;
  written_[label - 1] += raised;
  return raised;
}

uint64_t SpatialFilter::insert(uint16_t label, const Keys& keys) {
  const char* who = "SpatialFilter::insert";
  CheckLabel(who, label);
  detail::ValidateKeys(who, keys);
  const detail::KeyPlan plan = detail::PlanKeys(who, key_type(), keys, true);
  keys_.Set(plan.type);
  const detail::SpatialKernels& sk = detail::Active().spatial;
  detail::SpatialParams p = ParamsOf(*this, &sk);
  detail::StringHasher hasher;
  const detail::KeySource src =
      detail::SourceOf(keys, plan, detail::SpatialSpec::kXxh64, seed_, &hasher);
  auto run = [&](const detail::KeySource& s, size_t, size_t m) {
    return sk.insert(cells_, p, s, m, label);
  };
  const uint64_t raised =
      detail::OverTunedPieces(TuneOf(*this), src, keys.size(), &p.prefetch_distance, run);
  current_ = label;
  members_[label - 1] += keys.size();
  written_[label - 1] += raised;
  return raised;
}

uint32_t detail::SpatialClassifyOutOfLine(const uint8_t* cells, uint64_t num_blocks, uint32_t k,
                                          uint32_t cell_bytes, uint64_t h) noexcept {
  if (cell_bytes == 1) {
    const detail::Kernels* target = detail::ActiveOrNull();
    if (target != nullptr && target->spatial.classify_one != nullptr) {
      return target->spatial.classify_one(cells + 64 * detail::BlockOf(h, num_blocks), h, k);
    }
  }
  detail::SpatialParams p{num_blocks, k, cell_bytes};
  return scalar::SpatialClassifyHash(cells, p, h);
}

void SpatialFilter::RefuseQuery(const char* who) const {
  Invalid(std::string("SpatialFilter::") + who + ": the filter was moved from");
}

uint16_t SpatialFilter::classify_hash(uint64_t hash) const {
  if (cells_ == nullptr) RefuseQuery("classify");
  return static_cast<uint16_t>(
      detail::SpatialClassifyOutOfLine(cells_, num_blocks_, k_, cell_bytes_, hash));
}

uint64_t SpatialFilter::classify(const Keys& keys, uint16_t* labels) const {
  const char* who = "SpatialFilter::classify";
  if (cells_ == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (keys.size() == 0) return 0;
  if (labels == nullptr) Invalid(std::string(who) + ": null labels with non-zero size");
  detail::ValidateKeys(who, keys);
  detail::CheckExtent(who, "labels", labels, keys.size(), 2);
  const detail::KeyPlan plan = detail::PlanKeys(who, key_type(), keys, false);
  const detail::SpatialKernels& sk = detail::Active().spatial;
  detail::SpatialParams p = ParamsOf(*this, &sk);
  detail::StringHasher hasher;
  const detail::KeySource src =
      detail::SourceOf(keys, plan, detail::SpatialSpec::kXxh64, seed_, &hasher);
  auto run = [&](const detail::KeySource& s, size_t begin, size_t m) {
    return sk.classify(cells_, p, s, m, labels + begin);
  };
  uint64_t labelled =
      detail::OverTunedPieces(TuneOf(*this), src, keys.size(), &p.prefetch_distance, run);
  if (plan.out_of_range) {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (labels[i] != 0 && detail::OutOfInt32(keys, i)) {
        labels[i] = 0;
        --labelled;
      }
    }
  }
  return labelled;
}

// ---- Statistics ----

SpatialStats SpatialFilter::stats(bool measure) const {
  if (cells_ == nullptr) Invalid("SpatialFilter::stats: the filter was moved from");
  SpatialStats s;
  s.num_cells = num_cells();
  s.cell_bytes = cell_bytes_;
  s.k = k_;
  for (uint64_t m : members_) s.members += m;
  s.apriori_fpp = predicted_fpp(s.members);
  const std::vector<detail::SpatialAreaModel> model =
      detail::SpatialModel(members_, num_blocks_, k_);
  s.areas.resize(num_areas_);
  for (uint32_t i = 0; i < num_areas_; ++i) {
    SpatialAreaStats& a = s.areas[i];
    a.label = static_cast<uint16_t>(i + 1);
    a.members = members_[i];
    a.expected_emersion = model[i].emersion;
    a.apriori_fpp = model[i].fpp;
    a.apriori_isep = model[i].isep;
    a.expected_cells = model[i].expected_cells;
    a.cells_written = written_[i];
  }
  if (!measure) return s;

  // Per block: the distinct labels present, ascending; for each, the probability Pb(l) that a key
  // in no area finds all k of its cells >= l (mean over its first group w0 of the product of its
  // groups' fractions of cells >= l). A key with this block gets exactly label l with probability
  // Pb(l) - Pb(next label present), added to acc[l].
  const detail::SpatialParams p = ParamsOf(*this);
  std::vector<double> acc(num_areas_ + 1, 0);
  std::vector<uint64_t> hist(num_areas_ + 1, 0);
  uint32_t cells[64];
  uint32_t distinct[64];
  for (uint64_t b = 0; b < num_blocks_; ++b) {
    int d = 0;
    for (uint32_t c = 0; c < 64; ++c) {
      cells[c] = scalar::SpatialGetCell(cells_, p, 64 * b + c);
      ++hist[cells[c]];
      if (cells[c] != 0) distinct[d++] = cells[c];
    }
    if (d == 0) continue;
    std::sort(distinct, distinct + d);
    d = static_cast<int>(std::unique(distinct, distinct + d) - distinct);
    double prev_label_prob = 0;
    for (int j = d - 1; j >= 0; --j) {  // descending, so Pb(next) is known
      const uint32_t l = distinct[j];
      double frac[8];
      for (int g = 0; g < 8; ++g) {
        int at_least = 0;
        for (int c = 0; c < 8; ++c) at_least += cells[8 * g + c] >= l;
        frac[g] = at_least / 8.0;
      }
      double prob = 0;
      for (uint32_t w0 = 0; w0 < 8; ++w0) {
        double q = 1;
        for (uint32_t i = 0; i < k_; ++i) q *= frac[(w0 + i) & 7];
        prob += q / 8;
      }
      acc[l] += prob - prev_label_prob;
      prev_label_prob = prob;
    }
  }
  s.measured = true;
  s.sparsity = static_cast<double>(hist[0]) / static_cast<double>(s.num_cells);
  for (uint32_t i = 0; i < num_areas_; ++i) {
    SpatialAreaStats& a = s.areas[i];
    a.cells = hist[i + 1];
    a.emersion = a.cells_written == 0
                     ? 1.0
                     : static_cast<double>(a.cells) / static_cast<double>(a.cells_written);
    a.fpp = std::max(0.0, acc[i + 1] / static_cast<double>(num_blocks_));
    s.fpp += a.fpp;
  }
  return s;
}

// ---- Persistence ----

namespace {

void EncodeHeader(const SpatialFilter& f, uint64_t checksum, uint8_t* h) {
  std::memset(h, 0, kHeaderSize);
  std::memcpy(h, kMagic, 8);
  PutU32(h + 8, f.has_area_names() ? kFormatVersionNames : kFormatVersion);
  PutU32(h + 12, static_cast<uint32_t>(kHeaderSize));
  h[16] = static_cast<uint8_t>(f.cell_bytes());
  h[17] = kHashXxh3;
  h[18] = static_cast<uint8_t>(f.key_type());
  PutU32(h + 20, f.num_hashes());
  PutU64(h + 24, f.num_blocks());
  PutU64(h + 32, f.seed());
  PutU32(h + 40, f.num_areas());
  PutU32(h + 44, f.current_label());
  PutU64(h + 48, checksum);
  PutU64(h + 56, scalar::Checksum(h, 56));
}

std::vector<uint8_t> AreaTable(const SpatialFilter& f, const std::vector<uint64_t>& written) {
  std::vector<uint8_t> t(16 * size_t{f.num_areas()});
  for (uint32_t i = 0; i < f.num_areas(); ++i) {
    PutU64(t.data() + 16 * i, f.members(static_cast<uint16_t>(i + 1)));
    PutU64(t.data() + 16 * i + 8, written[i]);
  }
  return t;
}

// The largest names table s areas can have (every name at the limit): a bound on a header's claim.
uint64_t MaxNamesBytes(uint32_t num_areas) {
  return uint64_t{num_areas} * (2 + SpatialFilter::kMaxAreaNameBytes);
}

// The names table's entries (without its 16-byte prefix): per area u16 size, then the bytes.
std::vector<uint8_t> NamesEntries(const SpatialFilter& f) {
  std::vector<uint8_t> t;
  for (uint32_t i = 1; i <= f.num_areas(); ++i) {
    const std::string_view name = f.area_name(static_cast<uint16_t>(i));
    t.push_back(static_cast<uint8_t>(name.size()));
    t.push_back(static_cast<uint8_t>(name.size() >> 8));
    t.insert(t.end(), name.begin(), name.end());
  }
  return t;
}

// Reads the names table at `p` (`size` bytes: the rest of the input, prefix included) into one
// string per area, checking the prefix's size against `size`, its checksum, and every entry's size
// against the bytes left; nothing is read past p + size.
std::vector<std::string> ParseNames(const uint8_t* p, uint64_t size, uint32_t num_areas) {
  if (size < kNamesPrefix) Bad("truncated names table (" + std::to_string(size) + " bytes)");
  const uint64_t entries = GetU64(p);
  if (entries != size - kNamesPrefix) {
    Bad("names table of " + std::to_string(entries) + " bytes, " +
        std::to_string(size - kNamesPrefix) + " present");
  }
  const uint8_t* at = p + kNamesPrefix;
  if (scalar::Checksum(at, entries) != GetU64(p + 8)) Bad("names table checksum mismatch");
  std::vector<std::string> names(num_areas);
  uint64_t left = entries;
  for (uint32_t i = 0; i < num_areas; ++i) {
    if (left < 2) Bad("names table ends before the name of label " + std::to_string(i + 1));
    const uint64_t n = uint64_t{at[0]} | uint64_t{at[1]} << 8;
    at += 2;
    left -= 2;
    if (n > left) {
      Bad("name of label " + std::to_string(i + 1) + ": " + std::to_string(n) + " bytes, " +
          std::to_string(left) + " left in the names table");
    }
    names[i].assign(reinterpret_cast<const char*>(at), static_cast<size_t>(n));
    at += n;
    left -= n;
  }
  if (left != 0) Bad(std::to_string(left) + " bytes after the last name");
  return names;
}

}  // namespace

size_t SpatialFilter::serialized_size() const noexcept {
  size_t n = 64 + size_bytes() + 16 * size_t{num_areas_};
  if (!has_area_names()) return n;
  n += kNamesPrefix + 2 * size_t{num_areas_};
  for (const std::string& name : names_) n += name.size();
  return n;
}

void SpatialFilter::save(std::ostream& out) const {
  if (cells_ == nullptr) Invalid("SpatialFilter::save: the filter was moved from");
  const std::vector<uint8_t> table = AreaTable(*this, written_);
  // XXH3 of the cells followed by the table (streamed: equals the one-shot hash of the two).
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, cells_, size_bytes());
  XXH3_64bits_update(&state, table.data(), table.size());
  uint8_t h[kHeaderSize];
  EncodeHeader(*this, XXH3_64bits_digest(&state), h);
  out.write(reinterpret_cast<const char*>(h), kHeaderSize);
  out.write(reinterpret_cast<const char*>(cells_), static_cast<std::streamsize>(size_bytes()));
  out.write(reinterpret_cast<const char*>(table.data()),
            static_cast<std::streamsize>(table.size()));
  if (has_area_names()) {
    const std::vector<uint8_t> names = NamesEntries(*this);
    uint8_t prefix[kNamesPrefix];
    PutU64(prefix, names.size());
    PutU64(prefix + 8, scalar::Checksum(names.data(), names.size()));
    out.write(reinterpret_cast<const char*>(prefix), kNamesPrefix);
    out.write(reinterpret_cast<const char*>(names.data()),
              static_cast<std::streamsize>(names.size()));
  }
  if (!out) throw Error(ErrorCode::kIo, "SpatialFilter::save: the stream failed");
}

void SpatialFilter::save_file(const std::string& path) const {
  detail::SaveFile(path, "SpatialFilter::save_file", [this](std::ostream& out) { save(out); });
}

SpatialFilter SpatialFilter::load(const uint8_t* data, size_t size) {
  if (data == nullptr && size > 0) Invalid("SpatialFilter::load: null data with non-zero size");
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const Header h = DecodeHeader(data, size - kHeaderSize);
  const uint8_t* payload = data + kHeaderSize;
  if (scalar::Checksum(payload, h.cell_bytes_total + h.table_bytes) != h.checksum) {
    Bad("payload checksum mismatch");
  }
  const uint8_t* table = payload + h.cell_bytes_total;
  std::vector<std::string> names;
  if (h.version == kFormatVersionNames) {
    const uint64_t at = h.cell_bytes_total + h.table_bytes;  // DecodeHeader: <= size - 64 - 16
    names = ParseNames(payload + at, size - kHeaderSize - at, h.num_areas);
  }
  std::vector<uint64_t> members(h.num_areas), written(h.num_areas);
  for (uint32_t i = 0; i < h.num_areas; ++i) {
    members[i] = GetU64(table + 16 * i);
    written[i] = GetU64(table + 16 * i + 8);
    if (i + 1 > h.current && (members[i] != 0 || written[i] != 0)) {
      Bad("keys recorded for label " + std::to_string(i + 1) + " above the highest label");
    }
    if (members[i] > UINT64_MAX / h.k || written[i] > members[i] * h.k) {
      Bad("more cells written than keys x k for label " + std::to_string(i + 1));
    }
  }
  // Every cell is at most the highest label inserted (before anything is allocated).
  const detail::SpatialParams p{h.num_blocks, h.k, h.cell_bytes};
  const uint64_t n_cells = h.num_blocks * SpatialSpec::kCellsPerBlock;
  for (uint64_t c = 0; c < n_cells; ++c) {
    if (scalar::SpatialGetCell(payload, p, c) > h.current) {
      Bad("cell " + std::to_string(c) + " holds a label above the highest label inserted");
    }
  }
  SpatialFilter f(h.num_blocks, h.k, h.num_areas, h.seed);
  f.keys_.Set(h.key_type);
  std::memcpy(f.cells_, payload, h.cell_bytes_total);
  f.current_ = static_cast<uint16_t>(h.current);
  f.members_ = std::move(members);
  f.written_ = std::move(written);
  f.names_ = std::move(names);
  return f;
}

SpatialFilter SpatialFilter::load(std::istream& in) {
  uint8_t h[kHeaderSize];
  in.read(reinterpret_cast<char*>(h), kHeaderSize);
  if (in.bad()) throw Error(ErrorCode::kIo, "SpatialFilter::load: the stream failed while reading");
  if (static_cast<size_t>(in.gcount()) != kHeaderSize) {
    Bad("truncated header (" + std::to_string(in.gcount()) + " bytes)");
  }
  const Header hd = DecodeHeader(h, SIZE_MAX);
  const uint64_t want = hd.cell_bytes_total + hd.table_bytes;
  // The payload is kept once it has arrived and matched its checksum, read in bounded pieces before
  // that: a header cannot make this allocate what the stream does not hold (detail::ReadPayload).
  std::vector<uint8_t> bytes;
  detail::ReadPayload(in, want, hd.checksum, Bad, "SpatialFilter::load: the stream failed", [&] {
    bytes.resize(static_cast<size_t>(kHeaderSize + want));
    std::memcpy(bytes.data(), h, kHeaderSize);
    return bytes.data() + kHeaderSize;
  });
  if (hd.version == kFormatVersionNames) {
    // The names table: its prefix, then its entries read as the payload was (bounded pieces,
    // checked against the prefix's checksum before they are kept).
    uint8_t prefix[kNamesPrefix];
    in.read(reinterpret_cast<char*>(prefix), kNamesPrefix);
    if (in.bad()) throw Error(ErrorCode::kIo, "SpatialFilter::load: the stream failed");
    if (static_cast<size_t>(in.gcount()) != kNamesPrefix) {
      Bad("truncated names table (" + std::to_string(in.gcount()) + " bytes)");
    }
    const uint64_t entries = GetU64(prefix);
    if (entries > MaxNamesBytes(hd.num_areas)) {
      Bad("names table of " + std::to_string(entries) + " bytes (at most " +
          std::to_string(MaxNamesBytes(hd.num_areas)) + " for " + std::to_string(hd.num_areas) +
          " areas)");
    }
    const size_t at = bytes.size();
    detail::ReadPayload(in, entries, GetU64(prefix + 8), BadNames,
                        "SpatialFilter::load: the stream failed", [&] {
                          bytes.resize(at + kNamesPrefix + static_cast<size_t>(entries));
                          std::memcpy(bytes.data() + at, prefix, kNamesPrefix);
                          return bytes.data() + at + kNamesPrefix;
                        });
  }
  if (in.peek() != std::char_traits<char>::eof()) Bad("trailing bytes after the payload");
  return load(bytes.data(), bytes.size());
}

SpatialFilter SpatialFilter::load_file(const std::string& path) {
  return detail::LoadFile(path, "SpatialFilter::load_file",
                          [](std::istream& in) { return load(in); });
}

}  // namespace simdbloom
