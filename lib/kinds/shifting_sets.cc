// SPDX-License-Identifier: Apache-2.0
// ShBF_A and ShBF_x (simdbloom/shifting.hpp, lib/FORMAT.md "Shifting set filters"): the shared
// rotate-and-AND block, the models of the paper in blocked form, sizing and single keys. The bulk
// calls: shifting_sets_bulk.cc; persistence: lib/formats/shifting_sets.cc.
#include "lib/kinds/shifting_sets.h"

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
#include "lib/core/key_source.h"
#include "lib/core/memory.h"
#include "lib/core/prefetch.h"
#include "simdbloom/shifting.hpp"

namespace simdbloom {
using detail::AnswerOf, detail::AssocOffsets, detail::OffsetsOf, detail::SmallestCount;
namespace detail {
namespace {

constexpr double kSetHeadroom =
    0.97;  // as Filter's sizing: a model-sized filter measures below fpp
[[noreturn]] void Invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
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

uint8_t ShiftingAssociation::query_hash(uint64_t hash) const {
  detail::CheckUsable("ShiftingAssociation::query", blocks_);
  return AnswerOf(blocks_.candidates(hash), hash);
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

uint32_t ShiftingMultiplicity::count_hash(uint64_t hash) const {
  detail::CheckUsable("ShiftingMultiplicity::count", blocks_);
  return SmallestCount(blocks_.candidates(hash), max_count_);
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

}  // namespace simdbloom
