// SPDX-License-Identifier: Apache-2.0
// ScalableFilter's inserts (stage by stage, each within its capacity) and queries: the newest
// stage answers a tile of keys first, older stages only the keys not found yet; results through
// the bulk driver's checks and writer (lib/core/driver.h).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/dispatch.h"
#include "lib/core/driver.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "simdbloom/scalable.hpp"

namespace simdbloom {
namespace {

using detail::BulkOp;
using detail::Form;
using detail::Invalid;

// Keys per tile of a multi-stage query: hashes, unfound hashes, result bytes and selections on
// the stack (26 KiB).
constexpr size_t kTile = 1024;

}  // namespace

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

// A chain's queries for the bulk driver, as a kind that hashes first: a tile of keys is hashed
// once for the whole chain (every stage has the chain's layout, seed and key type; pre-hashed
// keys are read in place), the newest stage answers the tile, older stages the keys not found yet
// (QueryEntries), and the driver's writer places the tile's hit bytes (WriteHits). A chain has no
// size class of its own: each stage's Filter call tunes itself.
struct ScalableBulk {
  using Filter = ScalableFilter;
  using Table = detail::Kernels;
  struct P {};
  static constexpr bool kHashFirst = true;
  static constexpr bool kTuned = false;
  static constexpr size_t kQueryTile = kTile;  // a multiple of 8: tiles are whole bitmap bytes
  static constexpr size_t kWriteTile = kTile;  // (no writes: inserts go stage by stage)
  static bool Usable(const Filter& f) { return !f.stages_.empty(); }
  static KeyType KeyTypeOf(const Filter& f) { return f.key_type(); }
  static void CheckKeys(const char*, const Filter&, const Keys&) {}
  static const Table& Kernels(const Filter&) { return detail::Active(); }
  static P ParamsOf(const Filter&) { return P{}; }
  static const uint64_t* Hash(const Table&, const Filter& f, const P&, const Keys& keys,
                              const detail::KeyPlan& plan, size_t at, size_t m, uint64_t* to) {
    if (keys.kind() == Keys::Kind::kPrehashed)
      return static_cast<const uint64_t*>(keys.keys()) + at;
    detail::HashKeysAs(detail::SliceKeys(keys, at, m), plan, f.xxh64(), f.seed_, to);
    return to;
  }
  static uint64_t RunTile(const Table&, const Filter& f, const detail::BulkCall& c, const P&,
                          const detail::HashTile& t) {
    alignas(64) uint8_t hit[kTile];
    const Keys tile = Prehashed{t.h, t.m};
    f.stages_.back().contains(tile, hit);
    f.QueryEntries(tile, nullptr, t.m, hit, /*newest_done=*/true);
    uint64_t selected = t.done;
    return detail::WriteHits(c, t.begin, t.m, hit, &selected);
  }
};

uint64_t ScalableFilter::contains(const Keys& keys, uint8_t* out) const {
  return contains(keys, out, Threads{1});
}
uint64_t ScalableFilter::contains_bitmap(const Keys& keys, uint8_t* bitmap) const {
  return contains_bitmap(keys, bitmap, Threads{1});
}
uint64_t ScalableFilter::select(const Keys& keys, uint32_t* selection) const {
  return select(keys, selection, Threads{1});
}
uint64_t ScalableFilter::contains(const Keys& keys, uint8_t* out, Threads threads) const {
  CheckUsable("contains");
  if (stages_.size() == 1) return stages_.front().contains(keys, out, threads);
  return detail::RunBulk<ScalableBulk>(
      *this, keys, {"ScalableFilter::contains", BulkOp::kQuery, Form::kBytes, out, threads.count});
}
uint64_t ScalableFilter::contains_bitmap(const Keys& keys, uint8_t* bitmap, Threads threads) const {
  CheckUsable("contains_bitmap");
  if (stages_.size() == 1) return stages_.front().contains_bitmap(keys, bitmap, threads);
  return detail::RunBulk<ScalableBulk>(
      *this, keys,
      {"ScalableFilter::contains_bitmap", BulkOp::kQuery, Form::kBitmap, bitmap, threads.count});
}
uint64_t ScalableFilter::select(const Keys& keys, uint32_t* selection, Threads threads) const {
  CheckUsable("select");
  if (stages_.size() == 1) return stages_.front().select(keys, selection, threads);
  return detail::RunBulk<ScalableBulk>(
      *this, keys,
      {"ScalableFilter::select", BulkOp::kQuery, Form::kSelection, selection, threads.count});
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

}  // namespace simdbloom
