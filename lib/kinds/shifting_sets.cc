// SPDX-License-Identifier: Apache-2.0
// ShBF_A and ShBF_x (simdbloom/shifting.hpp, lib/FORMAT.md "Shifting set filters"): the shared
// rotate-and-AND block, the models of the paper in blocked form, sizing, inserts and queries.
// Persistence: lib/formats/shifting_sets.cc.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "kernels/bits.h"
#include "kernels/dispatch.h"
#include "kernels/interface.h"
#include "kernels/scalar/hash.h"
#include "kernels/shbf_ax/spec.h"
#include "lib/core/driver.h"
#include "lib/core/key_source.h"
#include "lib/core/memory.h"
#include "lib/core/prefetch.h"
#include "lib/kinds/shifting_limits.h"
#include "simdbloom/shifting.hpp"

namespace simdbloom {
namespace detail {
namespace {

constexpr double kSetHeadroom =
    0.97;  // as Filter's sizing: a model-sized filter measures below fpp
// Bulk inserts: tiles of hashed keys, each block prefetched the measured distance (at most a tile)
// before its use, across tiles.
constexpr size_t kBulkTile = 256;
// Bulk queries hash this many keys, then run the candidates kernel over them.
constexpr size_t kScanChunk = 2048;

[[noreturn]] void Invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

// lo32(a * m) * range >> 32: a value in 0..range-1 from a product no bit position uses.
inline uint32_t Reduce(uint32_t a, uint32_t m, uint32_t range) {
  return static_cast<uint32_t>((uint64_t{a * m} * range) >> 32);
}

void CheckFpp(const char* who, double fpp) {
  if (!(fpp >= 1e-9 && fpp < 1)) Invalid(std::string(who) + ": fpp must be in [1e-9, 1)");
}

// Smallest block count whose single-pattern false-positive rate F(1) is at most headroom * fpp.
uint64_t BlocksFor(const char* who, uint64_t items, double fpp) {
  if (items == 0) Invalid(std::string(who) + ": expected_items must be > 0");
  CheckFpp(who, fpp);
  const double target = kSetHeadroom * fpp;
  const double n = static_cast<double>(items);
  auto ok = [&](uint64_t nb) { return shifting_patterns_set_probability(1, n, nb) <= target; };
  if (!ok(kMaxSetBlocks)) Invalid(std::string(who) + ": more than 2^32 - 1 blocks needed");
  uint64_t lo = 0, hi = kMaxSetBlocks;  // ok(hi), !ok(lo) (lo = 0 is never ok)
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (ok(mid) ? hi : lo) = mid;
  }
  return hi;
}

uint64_t BlocksForBits(const char* who, uint64_t bits) {
  if (bits == 0) Invalid(std::string(who) + ": bits must be > 0");
  const uint64_t nb = bits / 512 + (bits % 512 != 0);
  if (nb > kMaxSetBlocks) Invalid(std::string(who) + ": more than 2^32 - 1 blocks");
  return nb;
}

}  // namespace

void FreeDeleter::operator()(void* p) const noexcept { std::free(p); }

ShiftingBlocks::ShiftingBlocks(uint64_t num_blocks, uint64_t seed)
    : num_blocks_(num_blocks), seed_(seed) {
  if (num_blocks == 0 || num_blocks > kMaxSetBlocks) Invalid("shifting: bad block count");
  // As Filter's words: huge pages from 2 MiB on (lib/core/memory.h), so random access to a
  // DRAM-sized filter mostly avoids page walks.
  void* p = AllocateZeroed(num_blocks * 64, "shifting filter", "shifting: ");
  words_.reset(static_cast<uint64_t*>(p));
}

uint64_t ShiftingBlocks::hash(uint64_t key) const noexcept { return Xxh3U64(key, seed_); }
uint64_t ShiftingBlocks::hash(std::string_view key) const noexcept {
  return scalar::HashBytesXxh3(key.data(), key.size(), seed_);
}

void ShiftingBlocks::set(uint64_t h, uint32_t o) noexcept {
  uint64_t* block = words_.get() + 8 * BlockIndex(h, num_blocks_);
  const uint32_t a = static_cast<uint32_t>(h);
  for (uint32_t w = 0; w < 8; ++w) {
    block[w] |= uint64_t{1} << ((((a * kMultipliers.m[w]) >> 26) + o) & 63);
  }
}

uint64_t ShiftingBlocks::candidates(uint64_t h) const noexcept {
  return ShiftingSetCandidatesAt(words_.get(), num_blocks_, h);
}

}  // namespace detail

double shifting_patterns_set_probability(uint32_t t, double keys, uint64_t num_blocks) {
  if (t > 64) detail::Invalid("shifting_patterns_set_probability: t must be <= 64");
  if (num_blocks == 0) detail::Invalid("shifting_patterns_set_probability: num_blocks is 0");
  if (t == 0) return 1;
  const double lambda = keys / static_cast<double>(num_blocks);
  if (!(lambda > 0)) return 0;
  // Beyond this load a given bit is clear with probability below exp(-300): every pattern is set.
  // (Also bounds the work for a hostile or absurd item count read from a file.)
  if (lambda > 20000) return 1;
  // Over the block's load L ~ Poisson(lambda): P(t given bits of a word set after L throws)^8,
  // the 8 words independent given L. p[j] = P(j of the t bits hit so far).
  const double spread = 10 * std::sqrt(lambda) + 20;
  const uint64_t lo = static_cast<uint64_t>(std::max(0.0, std::floor(lambda - spread)));
  const uint64_t hi = static_cast<uint64_t>(std::ceil(lambda + spread));
  double p[65] = {1};
  double sum = 0;
  for (uint64_t L = 0; L <= hi; ++L) {
    if (L >= lo) {
      const double pois = std::exp(static_cast<double>(L) * std::log(lambda) - lambda -
                                   std::lgamma(static_cast<double>(L) + 1));
      sum += pois * std::pow(p[t], 8);
    }
    for (uint32_t j = t; j >= 1; --j)
      p[j] = p[j] * (64.0 - t + j) / 64 + p[j - 1] * (t - j + 1) / 64;
    p[0] *= (64.0 - t) / 64;
  }
  return std::min(1.0, std::max(0.0, sum));
}

namespace {
// sum_{t=0..j} (-1)^t C(j, t) F(t): no pattern of j given ones complete.
double NoneOfComplete(uint32_t j, double keys, uint64_t num_blocks) {
  long double sum = 0, binom = 1;
  for (uint32_t t = 0; t <= j; ++t) {
    const long double f = shifting_patterns_set_probability(t, keys, num_blocks);
    sum += (t % 2 ? -binom : binom) * f;
    binom = binom * (j - t) / (t + 1);
  }
  return std::min(1.0, std::max(0.0, static_cast<double>(sum)));
}

// ShBF_A's offsets of a hash: o1 in 1..31 (both sets), o2 in o1 + 1 .. o1 + 31 (S2 only).
struct AssocOffsets {
  uint32_t o1, o2;
};
inline AssocOffsets OffsetsOf(uint64_t h) {
  const uint32_t a = static_cast<uint32_t>(h);
  const uint32_t o1 = 1 + detail::Reduce(a, detail::kMultipliers.m[8], 31);
  return {o1, o1 + 1 + detail::Reduce(a, detail::kMultipliers.m[9], 31)};
}

std::vector<uint64_t> SortedUnique(Span<const uint64_t> keys) {
  std::vector<uint64_t> v(keys.begin(), keys.end());
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
}  // namespace

// ---- ShBF_A ----

ShiftingAssociation ShiftingAssociation::create(uint64_t expected_items, double fpp, uint64_t seed,
                                                KeyType key_type) {
  detail::CheckKeyType("ShiftingAssociation::create", key_type);
  ShiftingAssociation f(detail::BlocksFor("ShiftingAssociation::create", expected_items, fpp),
                        seed);
  f.blocks_.typing().Set(key_type);
  return f;
}

ShiftingAssociation ShiftingAssociation::with_bits(uint64_t bits, uint64_t seed, KeyType key_type) {
  detail::CheckKeyType("ShiftingAssociation::with_bits", key_type);
  ShiftingAssociation f(detail::BlocksForBits("ShiftingAssociation::with_bits", bits), seed);
  f.blocks_.typing().Set(key_type);
  return f;
}

ShiftingAssociation ShiftingAssociation::build(Span<const uint64_t> s1, Span<const uint64_t> s2,
                                               double fpp, uint64_t seed) {
  detail::CheckFpp("ShiftingAssociation::build", fpp);
  const std::vector<uint64_t> a = SortedUnique(s1), b = SortedUnique(s2);
  // Merge walk: S1 only, both, S2 only; then one bulk insert per group.
  std::vector<uint64_t> only1, both, only2;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i] < b[j])) {
      only1.push_back(a[i++]);
    } else if (i == a.size() || b[j] < a[i]) {
      only2.push_back(b[j++]);
    } else {
      both.push_back(a[i]);
      ++i, ++j;
    }
  }
  ShiftingAssociation f =
      create(std::max<uint64_t>(only1.size() + both.size() + only2.size(), 1), fpp, seed);
  f.insert(only1, kOnlyFirst);
  f.insert(both, kBoth);
  f.insert(only2, kOnlySecond);
  return f;
}

void ShiftingAssociation::insert_hash(uint64_t hash, uint8_t membership) {
  detail::CheckUsable("ShiftingAssociation::insert", blocks_);
  uint32_t o;
  const AssocOffsets off = OffsetsOf(hash);
  switch (membership) {
    case kOnlyFirst:
      o = 0;
      break;
    case kBoth:
      o = off.o1;
      break;
    case kOnlySecond:
      o = off.o2;
      break;
    default:
      detail::Invalid(
          "ShiftingAssociation::insert: membership must be kOnlyFirst, kBoth or "
          "kOnlySecond, not " +
          std::to_string(membership));
  }
  blocks_.set(hash, o);
  ++items_;
}

namespace {
inline uint8_t AnswerOf(uint64_t cand, uint64_t h) {
  const AssocOffsets off = OffsetsOf(h);
  return static_cast<uint8_t>((cand & 1) | (((cand >> off.o1) & 1) << 1) |
                              (((cand >> off.o2) & 1) << 2));
}

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
    return detail::TuneTarget::Of(detail::KindSlot::shifting_sets, b.num_blocks() * 64,
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

uint8_t ShiftingAssociation::query_hash(uint64_t hash) const {
  detail::CheckUsable("ShiftingAssociation::query", blocks_);
  return AnswerOf(blocks_.candidates(hash), hash);
}

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

double ShiftingAssociation::clear_answer_probability() const {
  const double n = static_cast<double>(items_);
  return 1 - 2 * shifting_patterns_set_probability(1, n, num_blocks()) +
         shifting_patterns_set_probability(2, n, num_blocks());
}

double ShiftingAssociation::paper_clear_answer_probability() const {
  const double f = shifting_patterns_set_probability(1, static_cast<double>(items_), num_blocks());
  return (1 - f) * (1 - f);
}

double ShiftingAssociation::false_positive_probability() const {
  return 1 - NoneOfComplete(3, static_cast<double>(items_), num_blocks());
}

// ---- ShBF_x ----

namespace {
void CheckMaxCount(const char* who, uint32_t max_count) {
  if (max_count < 1 || max_count > 64) {
    detail::Invalid(std::string(who) + ": max_count must be in 1..64, not " +
                    std::to_string(max_count));
  }
}
}  // namespace

ShiftingMultiplicity ShiftingMultiplicity::create(uint64_t expected_items, double fpp,
                                                  uint32_t max_count, uint64_t seed,
                                                  KeyType key_type) {
  CheckMaxCount("ShiftingMultiplicity::create", max_count);
  detail::CheckKeyType("ShiftingMultiplicity::create", key_type);
  ShiftingMultiplicity f(detail::BlocksFor("ShiftingMultiplicity::create", expected_items, fpp),
                         max_count, seed);
  f.blocks_.typing().Set(key_type);
  return f;
}

ShiftingMultiplicity ShiftingMultiplicity::with_bits(uint64_t bits, uint32_t max_count,
                                                     uint64_t seed, KeyType key_type) {
  CheckMaxCount("ShiftingMultiplicity::with_bits", max_count);
  detail::CheckKeyType("ShiftingMultiplicity::with_bits", key_type);
  ShiftingMultiplicity f(detail::BlocksForBits("ShiftingMultiplicity::with_bits", bits), max_count,
                         seed);
  f.blocks_.typing().Set(key_type);
  return f;
}

ShiftingMultiplicity ShiftingMultiplicity::build(Span<const uint64_t> keys, double fpp,
                                                 uint32_t max_count, uint64_t seed) {
  CheckMaxCount("ShiftingMultiplicity::build", max_count);
  detail::CheckFpp("ShiftingMultiplicity::build", fpp);
  std::vector<uint64_t> v(keys.begin(), keys.end());
  std::sort(v.begin(), v.end());
  std::vector<std::vector<uint64_t>> by_count(max_count + 1);
  uint64_t distinct = 0;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    if (j - i > max_count) {
      detail::Invalid("ShiftingMultiplicity::build: key " + std::to_string(v[i]) + " occurs " +
                      std::to_string(j - i) + " times, more than max_count " +
                      std::to_string(max_count));
    }
    by_count[j - i].push_back(v[i]);
    ++distinct;
    i = j;
  }
  ShiftingMultiplicity f = create(std::max<uint64_t>(distinct, 1), fpp, max_count, seed);
  for (uint32_t x = 1; x <= max_count; ++x) f.insert(by_count[x], x);
  return f;
}

void ShiftingMultiplicity::insert_hash(uint64_t hash, uint32_t count) {
  detail::CheckUsable("ShiftingMultiplicity::insert", blocks_);
  if (count < 1 || count > max_count_) {
    detail::Invalid("ShiftingMultiplicity::insert: count " + std::to_string(count) +
                    " is outside 1.." + std::to_string(max_count_));
  }
  blocks_.set(hash, count - 1);
  ++items_;
}

namespace {
inline uint32_t SmallestCount(uint64_t cand, uint32_t max_count) {
  const uint64_t mask = max_count == 64 ? ~uint64_t{0} : (uint64_t{1} << max_count) - 1;
  cand &= mask;
  return cand == 0 ? 0 : static_cast<uint32_t>(__builtin_ctzll(cand)) + 1;
}
}  // namespace

uint32_t ShiftingMultiplicity::count_hash(uint64_t hash) const {
  detail::CheckUsable("ShiftingMultiplicity::count", blocks_);
  return SmallestCount(blocks_.candidates(hash), max_count_);
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

double ShiftingMultiplicity::correct_probability(uint32_t x) const {
  if (x < 1 || x > max_count_) {
    detail::Invalid("ShiftingMultiplicity::correct_probability: x must be in 1..max_count");
  }
  return NoneOfComplete(x - 1, static_cast<double>(items_), num_blocks());
}

double ShiftingMultiplicity::false_positive_probability() const {
  return 1 - NoneOfComplete(max_count_, static_cast<double>(items_), num_blocks());
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
