// SPDX-License-Identifier: Apache-2.0
// SpatialFilter (simdbloom/spatial.hpp): construction and sizing, single keys and the paper's
// statistics. Its bulk calls: spatial_bulk.cc; its file format (lib/FORMAT.md, "Spatial
// filter"): lib/formats/spatial.cc.
#include "simdbloom/spatial.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/scalar/hash.h"
#include "kernels/spatial/scalar.h"
#include "kernels/spatial/spec.h"
#include "lib/core/driver.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/core/memory.h"
#include "lib/core/prefetch.h"
#include "lib/kinds/spatial_geometry.h"

namespace simdbloom {
namespace {

using detail::Invalid;
using detail::SpatialSpec;

using detail::spatial::CellBytesFor, detail::spatial::kMaxBlocks;  // spatial_geometry.h

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

// The kernels' parameters (the bulk calls' are spatial_bulk.cc's, with the prefetch distance).
detail::SpatialParams ParamsOf(const SpatialFilter& f) {
  detail::SpatialParams p{f.num_blocks(), f.num_hashes(), f.cell_bytes()};
  p.seed = f.seed();
  return p;
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

// The move assignment's fields, from the default (empty) state.
SpatialFilter::SpatialFilter(SpatialFilter&& other) noexcept { *this = std::move(other); }

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

// SpatialFilter::insert(label, keys): spatial_bulk.cc.

uint32_t detail::SpatialClassifyOutOfLine(const uint8_t* cells, uint64_t num_blocks, uint32_t k,
                                          uint32_t cell_bytes, uint64_t h) noexcept {
  if (cell_bytes == 1) {  // the target's vector classify or the scalar loop
    return detail::ActiveOneKey().spatial_classify(cells + 64 * detail::BlockOf(h, num_blocks), h,
                                                   k);
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

// SpatialFilter::classify(keys, labels): spatial_bulk.cc.

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

}  // namespace simdbloom
