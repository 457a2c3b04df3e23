// SPDX-License-Identifier: Apache-2.0
// ShBF_A's and ShBF_x's bulk calls: keys hashed a tile ahead, then the blocks set (BulkSet) or
// the candidates kernel (kernels/shbf_ax/) run over them (BulkScan), the prefetch distance
// through the bulk driver (lib/core/driver.h).
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
// Bulk inserts: tiles of hashed keys, each block prefetched the measured distance (at most a tile)
// before its use, across tiles.
constexpr size_t kBulkTile = 256;
// Bulk queries hash this many keys, then run the candidates kernel over them.
constexpr size_t kScanChunk = 2048;

}  // namespace
}  // namespace detail

using detail::AnswerOf, detail::AssocOffsets, detail::OffsetsOf, detail::SmallestCount;

namespace {
// Prefetches the block of key q of the current tile (q < m) or of key q - m of the next one.
// Always inlined: GCC 12 finds a function whose only effect is a prefetch "const" and deletes the
// calls (no prefetch instruction was left: perf/README.md, design note M2).
SIMDBLOOM_INLINE void PrefetchAt(const uint64_t* words, uint64_t nb, const uint64_t* cur, size_t m,
                                 const uint64_t* next, size_t next_m, size_t q, bool write) {
  const uint64_t* line = nullptr;
  if (q < m) {
    line = words + 8 * detail::BlockIndex(cur[q], nb);
  } else if (q - m < next_m) {
    line = words + 8 * detail::BlockIndex(next[q - m], nb);
  }
  if (line == nullptr) return;
  if (write) {
    __builtin_prefetch(line, 1, 3);
  } else {
    __builtin_prefetch(line, 0, 3);
  }
}

// A shifting set filter's array for the bulk driver's prefetch distance (lib/core/driver.h): its
// tuner row, and the candidates kernel as the first-use measurement's.
struct ShiftingBulk {
  using Filter = detail::ShiftingBlocks;
  using Table = detail::Kernels;
  using P = detail::Params;
  static constexpr detail::KeyKind kCalibKind = detail::KeyKind::kU64;
  static detail::TuneTarget Tune(const Filter& b) {
    return detail::TuneTarget::Of(detail::TunedKind::shifting_sets, b.num_blocks() * 64,
                                  b.words() != nullptr, false);
  }
  static const Table& Kernels(const Filter&) { return detail::Active(); }
  static P ParamsOf(const Filter& b) { return P{b.num_blocks(), 8, b.seed()}; }
  static uint64_t Run(const Table& k, const Filter& b, const detail::BulkCall&, const P& p,
                      const detail::KeySource& s, size_t m, void* out) {
    k.shifting_sets.candidates(b.words(), p, s, m, static_cast<uint64_t*>(out));
    return 0;
  }
};

// Keys the bulk calls prefetch ahead on b: measured on first use of b's size class, 0 below 1 MiB.
uint32_t PrefetchDistance(const detail::ShiftingBlocks& b) {
  return detail::DistanceOf<ShiftingBulk>(b, ShiftingBulk::ParamsOf(b));
}

// Sets the pattern at offset_of(h) of every key, in order: hashed a tile ahead by the active
// target's bulk XXH3, each block prefetched (for writing) the measured distance ahead (at most a
// tile). No allocation.
template <class OffsetOf>
inline void BulkSet(detail::ShiftingBlocks& b, const Keys& keys, const detail::KeyPlan& plan,
                    const OffsetOf& offset_of) {
  const size_t n = keys.size();
  if (n == 0) return;
  constexpr size_t T = detail::kBulkTile;
  const detail::Kernels& k = detail::Active();
  const size_t D = std::min<size_t>(PrefetchDistance(b), T);
  uint64_t* words = b.words();
  const uint64_t nb = b.num_blocks();
  uint64_t h[2][T];
  auto hash_tile = [&](size_t begin, uint64_t* out) {
    const size_t m = std::min(T, n - begin);
    detail::HashKeyRange(k, keys, plan, b.seed(), begin, m, out);
    return m;
  };
  size_t cur = 0, m = hash_tile(0, h[0]);
  if (D != 0) {
    for (size_t q = 0; q < std::min(m, D); ++q) PrefetchAt(words, nb, h[0], m, nullptr, 0, q, true);
  }
  for (size_t begin = 0; begin < n; begin += T, cur ^= 1) {
    m = std::min(T, n - begin);
    const size_t next_m = begin + T < n ? hash_tile(begin + T, h[cur ^ 1]) : 0;
    for (size_t i = 0; i < m; ++i) {
      if (D != 0) PrefetchAt(words, nb, h[cur], m, h[cur ^ 1], next_m, i + D, true);
      b.set(h[cur][i], offset_of(h[cur][i]));
    }
  }
}

// Calls emit(i, h, candidates) for every key in order, in the prefetch tuner's pieces (lib/core/
// driver.h's driver, one piece unless a large call tunes the distance) and within them
// kScanChunk keys at a time: hashed by the active target's bulk XXH3, then the candidates from
// the target's kernel (kernels/shbf_ax/spec.h: the tile pipeline, a vector of 8 lanes per
// key, each block prefetched the measured distance ahead; the reference target's: key by key).
// 32 KiB of stack, no allocation.
template <class Emit>
inline void BulkScan(const detail::ShiftingBlocks& b, const Keys& keys, const detail::KeyPlan& plan,
                     const Emit& emit) {
  const size_t n = keys.size();
  constexpr size_t C = detail::kScanChunk;
  const detail::Kernels& k = detail::Active();
  detail::Params p = ShiftingBulk::ParamsOf(b);
  p.prefetch_distance = PrefetchDistance(b);
  detail::DistanceTuner tuner(ShiftingBulk::Tune(b), n, false, &p.prefetch_distance);
  alignas(64) uint64_t h[C], c[C];
  detail::KeySource src;
  src.kind = detail::KeyKind::kHashes;
  src.keys = h;
  for (size_t begin = 0, piece = 0; begin < n; begin += piece) {
    piece = tuner.Piece(begin, n);
    for (size_t at = begin; at < begin + piece; at += C) {
      const size_t m = std::min(C, begin + piece - at);
      detail::HashKeyRange(k, keys, plan, b.seed(), at, m, h);
      k.shifting_sets.candidates(b.words(), p, src, m, c);
      for (size_t i = 0; i < m; ++i) emit(at + i, h[i], c[i]);
    }
  }
}
}  // namespace

void ShiftingAssociation::query(const Keys& keys, uint8_t* out) const {
  detail::CheckUsable("ShiftingAssociation::query", blocks_);
  detail::ValidateKeys("ShiftingAssociation::query", keys);
  detail::CheckExtent("ShiftingAssociation::query", "result bytes", out, keys.size(), 1);
  const detail::KeyPlan plan =
      detail::PlanKeys("ShiftingAssociation::query", key_type(), keys, false);
  BulkScan(blocks_, keys, plan,
           [&](size_t i, uint64_t h, uint64_t cand) { out[i] = AnswerOf(cand, h); });
  if (plan.out_of_range) detail::ZeroOutOfRange(keys, keys.size(), out);
}

void ShiftingMultiplicity::count(const Keys& keys, uint32_t* out) const {
  detail::CheckUsable("ShiftingMultiplicity::count", blocks_);
  detail::ValidateKeys("ShiftingMultiplicity::count", keys);
  detail::CheckExtent("ShiftingMultiplicity::count", "counts", out, keys.size(), 4);
  const uint32_t c = max_count_;
  const detail::KeyPlan plan =
      detail::PlanKeys("ShiftingMultiplicity::count", key_type(), keys, false);
  BulkScan(blocks_, keys, plan,
           [&](size_t i, uint64_t, uint64_t cand) { out[i] = SmallestCount(cand, c); });
  if (plan.out_of_range) detail::ZeroOutOfRange(keys, keys.size(), out);
}

// ---- Bulk inserts (after BulkSet) ----

void ShiftingAssociation::insert(const Keys& keys, uint8_t membership) {
  detail::CheckUsable("ShiftingAssociation::insert", blocks_);
  detail::ValidateKeys("ShiftingAssociation::insert", keys);
  if (membership != kOnlyFirst && membership != kBoth && membership != kOnlySecond) {
    detail::Invalid(
        "ShiftingAssociation::insert: membership must be kOnlyFirst, kBoth or "
        "kOnlySecond, not " +
        std::to_string(membership));
  }
  const detail::KeyPlan plan =
      detail::PlanKeys("ShiftingAssociation::insert", key_type(), keys, true);
  blocks_.typing().Set(plan.type);
  BulkSet(blocks_, keys, plan, [membership](uint64_t h) {
    const AssocOffsets off = OffsetsOf(h);
    return membership == kOnlyFirst ? 0u : (membership == kBoth ? off.o1 : off.o2);
  });
  items_ += keys.size();
}

void ShiftingMultiplicity::insert(const Keys& keys, uint32_t count) {
  detail::CheckUsable("ShiftingMultiplicity::insert", blocks_);
  detail::ValidateKeys("ShiftingMultiplicity::insert", keys);
  if (count < 1 || count > max_count_) {
    detail::Invalid("ShiftingMultiplicity::insert: count " + std::to_string(count) +
                    " is outside 1.." + std::to_string(max_count_));
  }
  const detail::KeyPlan plan =
      detail::PlanKeys("ShiftingMultiplicity::insert", key_type(), keys, true);
  blocks_.typing().Set(plan.type);
  BulkSet(blocks_, keys, plan, [count](uint64_t) { return count - 1; });
  items_ += keys.size();
}

}  // namespace simdbloom
