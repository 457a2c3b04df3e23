// SPDX-License-Identifier: Apache-2.0
// ShBF_A's and ShBF_x's bulk calls through the bulk driver (lib/core/driver.h) as kinds that hash
// first: the driver hashes the keys a tile ahead, then each tile's blocks are set (inserts) or the
// candidates kernel (kernels/shbf_ax/) runs over it (queries).
#include <algorithm>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/shbf_ax/spec.h"
#include "lib/core/driver.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/kinds/shifting_sets.h"
#include "simdbloom/shifting.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Prefetches the block of key q of the current tile (q < t.m) or of key q - t.m of the next one.
// Always inlined: GCC 12 finds a function whose only effect is a prefetch "const" and deletes the
// calls (no prefetch instruction was left: perf/README.md, design note M2).
SIMDBLOOM_INLINE void PrefetchAt(const uint64_t* words, uint64_t nb, const HashTile& t, size_t q) {
  const uint64_t* line = nullptr;
  if (q < t.m) {
    line = words + 8 * BlockIndex(t.h[q], nb);
  } else if (q - t.m < t.next_m) {
    line = words + 8 * BlockIndex(t.next[q - t.m], nb);
  }
  if (line != nullptr) __builtin_prefetch(line, 1, 3);
}

// A shifting set filter's array for the bulk driver: its tuner row, the candidates kernel as the
// first-use measurement's; inserts (kWriteTile keys hashed a tile ahead, each block prefetched for
// writing the measured distance ahead, at most a tile, across tiles) and queries (kQueryTile keys
// hashed, then the target's candidates kernel: kernels/shbf_ax/spec.h) by the kind's RunTile.
struct ShiftingBulk {
  using Filter = ShiftingBlocks;
  using Table = detail::Kernels;
  using P = detail::Params;
  static constexpr KeyKind kCalibKind = KeyKind::kU64;
  static constexpr bool kHashFirst = true;
  static constexpr bool kTuned = true;
  static constexpr size_t kWriteTile = 256;   // 4 KiB of hashes a tile, two tiles
  static constexpr size_t kQueryTile = 2048;  // 16 KiB of hashes and 16 KiB of candidates
  static bool Usable(const Filter& b) { return b.words() != nullptr; }
  static KeyType KeyTypeOf(const Filter& b) { return b.typing().type(); }
  static void CheckKeys(const char*, const Filter&, const Keys&) {}
  static TuneTarget Tune(const Filter& b) {
    return TuneTarget::Of(TunedKind::shifting_sets, b.num_blocks() * 64, b.words() != nullptr,
                          false);
  }
  static const Table& Kernels(const Filter&) { return Active(); }
  static P ParamsOf(const Filter& b) { return P{b.num_blocks(), 8, b.seed()}; }
  static const uint64_t* Hash(const Table& k, const Filter&, const P& p, const Keys& keys,
                              const detail::KeyPlan& plan, size_t at, size_t m, uint64_t* to) {
    detail::HashKeyRange(k, keys, plan, p.seed, at, m, to);
    return to;
  }
  static uint64_t Run(const Table& k, const Filter& b, const BulkCall&, const P& p,
                      const KeySource& s, size_t m, void* out) {
    k.shifting_sets.candidates(b.words(), p, s, m, static_cast<uint64_t*>(out));
    return 0;
  }
  // Sets the pattern at offset_of(h) of every key of the tile, in order. The tile and parameters
  // are copied: set() is a call, after which their fields in memory would be loaded again.
  template <class OffsetOf>
  static void SetTile(const Filter& f, const P& p, const HashTile& tile,
                      const OffsetOf& offset_of) {
    auto& b = const_cast<Filter&>(f);  // inserts: the blocks are the filter's own
    const HashTile t = tile;
    const uint64_t nb = p.num_blocks;
    const size_t d = std::min<size_t>(p.prefetch_distance, kWriteTile);
    const uint64_t* words = b.words();
    if (d != 0 && t.first) {
      for (size_t q = 0; q < std::min(t.m, d); ++q) PrefetchAt(words, nb, t, q);
    }
    for (size_t i = 0; i < t.m; ++i) {
      if (d != 0) PrefetchAt(words, nb, t, i + d);
      b.set(t.h[i], offset_of(t.h[i]));
    }
  }
  // Calls emit(i, h, candidates) for every key of the tile (i: its index in the call).
  template <class Emit>
  static void ScanTile(const Table& k, const Filter& b, const P& p, const HashTile& t,
                       const Emit& emit) {
    alignas(64) uint64_t c[kQueryTile];
    KeySource src;
    src.kind = KeyKind::kHashes;
    src.keys = t.h;
    k.shifting_sets.candidates(b.words(), p, src, t.m, c);
    for (size_t i = 0; i < t.m; ++i) emit(t.begin + i, t.h[i], c[i]);
  }
};

// ShiftingAssociation: inserts at the offset of c.label's membership, queries' answer bytes.
struct AssociationBulk : ShiftingBulk {
  static uint64_t RunTile(const Table& k, const Filter& b, const BulkCall& c, const P& p,
                          const HashTile& t) {
    if (c.op == BulkOp::kInsert) {
      const uint16_t membership = c.label;
      SetTile(b, p, t, [membership](uint64_t h) {
        const AssocOffsets off = OffsetsOf(h);
        return membership == ShiftingAssociation::kOnlyFirst
                   ? 0u
                   : (membership == ShiftingAssociation::kBoth ? off.o1 : off.o2);
      });
    } else {
      uint8_t* out = static_cast<uint8_t*>(c.out);
      ScanTile(k, b, p, t,
               [out](size_t i, uint64_t h, uint64_t cand) { out[i] = AnswerOf(cand, h); });
    }
    return 0;
  }
};

// ShiftingMultiplicity: inserts of count c.label, counts (max_count c.label) as uint32_t.
struct MultiplicityBulk : ShiftingBulk {
  static uint64_t RunTile(const Table& k, const Filter& b, const BulkCall& c, const P& p,
                          const HashTile& t) {
    const uint32_t count = c.label;
    if (c.op == BulkOp::kInsert) {
      SetTile(b, p, t, [count](uint64_t) { return count - 1; });
    } else {
      uint32_t* out = static_cast<uint32_t*>(c.out);
      ScanTile(k, b, p, t, [out, count](size_t i, uint64_t, uint64_t cand) {
        out[i] = SmallestCount(cand, count);
      });
    }
    return 0;
  }
};

}  // namespace
}  // namespace detail

using detail::BulkOp;
using detail::Form;

void ShiftingAssociation::query(const Keys& keys, uint8_t* out) const {
  detail::RunBulk<detail::AssociationBulk>(
      blocks_, keys, {"ShiftingAssociation::query", BulkOp::kQuery, Form::kBytes, out});
}

void ShiftingMultiplicity::count(const Keys& keys, uint32_t* out) const {
  detail::RunBulk<detail::MultiplicityBulk>(
      blocks_, keys,
      {"ShiftingMultiplicity::count", BulkOp::kCount, Form::kCounts32, out, 1,
       static_cast<uint16_t>(max_count_)});
}

void ShiftingAssociation::query(const Keys& keys, uint8_t* out, Threads threads) const {
  detail::RunBulk<detail::AssociationBulk>(
      blocks_, keys,
      {"ShiftingAssociation::query", BulkOp::kQuery, Form::kBytes, out, threads.count});
}

void ShiftingMultiplicity::count(const Keys& keys, uint32_t* out, Threads threads) const {
  detail::RunBulk<detail::MultiplicityBulk>(
      blocks_, keys,
      {"ShiftingMultiplicity::count", BulkOp::kCount, Form::kCounts32, out, threads.count,
       static_cast<uint16_t>(max_count_)});
}

void ShiftingAssociation::insert(const Keys& keys, uint8_t membership) {
  const char* who = "ShiftingAssociation::insert";
  if (membership != kOnlyFirst && membership != kBoth && membership != kOnlySecond) {
    detail::Invalid(std::string(who) +
                    ": membership must be kOnlyFirst, kBoth or kOnlySecond, not " +
                    std::to_string(membership));
  }
  detail::KeyPlan plan;
  detail::RunBulk<detail::AssociationBulk>(
      blocks_, keys, {who, BulkOp::kInsert, Form::kFlags, nullptr, 1, membership}, &plan);
  blocks_.typing().Set(plan.type);
  items_ += keys.size();
}

void ShiftingMultiplicity::insert(const Keys& keys, uint32_t count) {
  const char* who = "ShiftingMultiplicity::insert";
  if (count < 1 || count > max_count_) {
    detail::Invalid(std::string(who) + ": count " + std::to_string(count) + " is outside 1.." +
                    std::to_string(max_count_));
  }
  detail::KeyPlan plan;
  detail::RunBulk<detail::MultiplicityBulk>(
      blocks_, keys, {who, BulkOp::kInsert, Form::kFlags, nullptr, 1, static_cast<uint16_t>(count)},
      &plan);
  blocks_.typing().Set(plan.type);
  items_ += keys.size();
}

}  // namespace simdbloom
