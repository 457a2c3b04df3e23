// SPDX-License-Identifier: Apache-2.0
// CountingFilter: sizing, single-key paths (SWAR on the counter words), to_filter, merge. Its
// bulk calls: counting_bulk.cc; its file format (lib/FORMAT.md "Counting filters"):
// lib/formats/counting.cc.
#include "simdbloom/counting.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kernels/counting/scalar.h"
#include "kernels/counting/spec.h"
#include "kernels/dispatch.h"
#include "kernels/scalar/hash.h"
#include "kernels/scalar/probes.h"
#include "lib/core/driver.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/core/prefetch.h"
#include "lib/formats/kinds.h"
#include "lib/kinds/counting_limits.h"

namespace simdbloom {
namespace {

using detail::CountingId;
using detail::CountingSpec;
using detail::Invalid;
using detail::ResultKind;

// The layouts' limits (counting_limits.h, shared with the file format).
using detail::counting::BytesOf, detail::counting::CountersPerBlock, detail::counting::IdOf,
    detail::counting::Known, detail::counting::MaxBlocks, detail::counting::MaxK;

void CheckParams(const char* who, CountingLayout layout, uint64_t num_blocks, uint32_t k) {
  if (!Known(layout)) {
    Invalid(std::string(who) + ": unknown counting layout " +
            std::to_string(static_cast<int>(layout)));
  }
  if (k < 1 || k > MaxK(layout)) {
    Invalid(std::string(who) + ": k = " + std::to_string(k) + " is outside 1.." +
            std::to_string(MaxK(layout)) + " for " + counting_layout_name(layout));
  }
  if (num_blocks == 0 || num_blocks > MaxBlocks(layout)) {
    Invalid(std::string(who) + ": " + std::to_string(num_blocks) + " blocks is outside 1.." +
            std::to_string(MaxBlocks(layout)) + " for " + counting_layout_name(layout));
  }
}

}  // namespace

const char* counting_layout_name(CountingLayout layout) noexcept {
  switch (layout) {  // the names of lib/formats/kinds.h
#define SIMDBLOOM_X(Id, name, C_NAME) \
  case CountingLayout::k##Id:         \
    return name;
    SIMDBLOOM_FOR_EACH_COUNTING_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
  }
  return "unknown";
}

Layout plain_layout(CountingLayout layout) {
  if (!Known(layout)) Invalid("plain_layout: unknown counting layout");
  return layout == CountingLayout::kBlocked ? Layout::kRegister64 : Layout::kClassic;
}

CountingSizing counting_size_for(uint64_t expected_items, double fpp, CountingLayout layout) {
  if (!Known(layout)) Invalid("counting_size_for: unknown counting layout");
  const Layout plain = plain_layout(layout);
  const Sizing s = size_for(expected_items, fpp, plain);
  const uint64_t per = CountersPerBlock(layout);
  const uint64_t blocks = (s.bits + per - 1) / per;
  if (blocks > MaxBlocks(layout)) {
    Invalid("counting_size_for: " + std::to_string(expected_items) + " keys at " +
            std::to_string(fpp) + " need more than " + std::to_string(MaxBlocks(layout)) +
            " blocks");
  }
  CountingSizing r;
  r.counters = blocks * per;
  r.k = s.k;
  r.predicted_fpp = simdbloom::predicted_fpp(plain, r.counters, s.k, expected_items);
  return r;
}

CountingFilter::CountingFilter(CountingLayout layout, uint64_t num_blocks, uint32_t k,
                               uint64_t seed, KeyType key_type, Filter store)
    : store_(std::move(store)),
      layout_(layout),
      num_blocks_(num_blocks),
      seed_(seed),
      k_(k),
      keys_(key_type) {}

CountingFilter CountingFilter::create(uint64_t expected_items, double fpp, CountingLayout layout,
                                      uint64_t seed, KeyType key_type) {
  const CountingSizing s = counting_size_for(expected_items, fpp, layout);
  return with_counters(s.counters, s.k, layout, seed, key_type);
}

CountingFilter CountingFilter::with_counters(uint64_t counters, uint32_t k, CountingLayout layout,
                                             uint64_t seed, KeyType key_type) {
  detail::CheckKeyType("CountingFilter::with_counters", key_type);
  if (!Known(layout)) Invalid("CountingFilter::with_counters: unknown counting layout");
  if (counters == 0) Invalid("CountingFilter::with_counters: counters must be > 0");
  const uint64_t per = CountersPerBlock(layout);
  const uint64_t blocks = counters / per + (counters % per != 0);
  CheckParams("CountingFilter::with_counters", layout, blocks, k);
  return CountingFilter(
      layout, blocks, k, seed, key_type,
      FilterAccess::Make(Layout::kClassic, BytesOf(layout, blocks) / 64, 1, 0, KeyType::kNone));
}

uint64_t CountingFilter::counter_count() const noexcept {
  return num_blocks_ * (layout_ == CountingLayout::kBlocked ? CountingSpec::kBlockedCounters
                                                            : CountingSpec::kClassicCounters);
}
const uint8_t* CountingFilter::data() const noexcept { return store_.data(); }
const uint64_t* CountingFilter::Counters() const noexcept {
  return reinterpret_cast<const uint64_t*>(store_.data());
}
uint64_t* CountingFilter::Counters() { return FilterAccess::Words(store_); }

void CountingFilter::CheckWritable(const char* who) const {
  if (store_.data() == nullptr) {
    Invalid(std::string("CountingFilter::") + who + ": the filter was moved from");
  }
  if (store_.is_view()) {
    throw Error(ErrorCode::kReadOnly,
                std::string("CountingFilter::") + who +
                    (FilterAccess::Mapped(store_) ? ": the filter is a mapped file (read-only)"
                                                  : ": the filter is a read-only view"));
  }
}

// ---- Single keys ----
// kBlocked: the key's 4 counter words and its 64-bit mask; each word's 16 mask bits spread to one
// 1 per selected nibble (SWAR, as the kernels do in vectors). kClassic: the reference (k misses
// dominate).
namespace {
struct BlockedKey {
  uint64_t* w;
  uint64_t ones[4];
};
// The key's counters as one 1 per selected nibble, set probe by probe (counter c = lo32(a * M[i])
// >> 26 is nibble c mod 16 of word c / 16): k shifts and ORs, where the register64 mask spread to
// nibbles took about twice the instructions (perf/README.md, design note M16).
inline BlockedKey LocateBlocked(const uint64_t* counters, uint64_t num_blocks, uint32_t k,
                                uint64_t h) {
  BlockedKey key;
  key.w = const_cast<uint64_t*>(counters) + detail::CountingBlockedWords(h, num_blocks);
  key.ones[0] = key.ones[1] = key.ones[2] = key.ones[3] = 0;
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t c = detail::Register64Bit(h, i);
    key.ones[detail::CounterWord(c)] |= uint64_t{1} << detail::CounterShift(c);
  }
  return key;
}
inline bool AnyZero(const BlockedKey& key) {
  uint64_t zero = 0;
  for (int q = 0; q < 4; ++q) zero |= key.ones[q] & ~detail::NonZeroNibbles(key.w[q]);
  return zero != 0;
}
detail::Params ParamsOf(uint64_t num_blocks, uint32_t k, uint64_t seed) {
  detail::Params p{num_blocks, k, seed};
  return p;
}
}  // namespace

bool CountingFilter::insert_hash(uint64_t h) {
  CheckWritable("insert");
  ++present_;
  if (layout_ == CountingLayout::kBlocked) {
    const BlockedKey key = LocateBlocked(Counters(), num_blocks_, k_, h);
    const bool fresh = AnyZero(key);
    for (int q = 0; q < 4; ++q) key.w[q] += key.ones[q] & ~detail::FullNibbles(key.w[q]);
    return fresh;
  }
  return scalar::CountingInsert(CountingId::kClassic, Counters(), ParamsOf(num_blocks_, k_, seed_),
                                h);
}

CountingFilter::Removal CountingFilter::remove_hash(uint64_t h) {
  CheckWritable("remove");
  Removal r;
  if (layout_ == CountingLayout::kBlocked) {
    const BlockedKey key = LocateBlocked(Counters(), num_blocks_, k_, h);
    r = kAbsent;
    if (!AnyZero(key)) {
      uint64_t stepped = 0;  // the counters decremented: none when every one is saturated
      for (int q = 0; q < 4; ++q) {
        const uint64_t step = key.ones[q] & ~detail::FullNibbles(key.w[q]);
        key.w[q] -= step;
        stepped |= step;
      }
      r = stepped != 0 ? kRemoved : kSaturated;
    }
  } else {
    r = static_cast<Removal>(scalar::CountingRemove(CountingId::kClassic, Counters(),
                                                    ParamsOf(num_blocks_, k_, seed_), h));
  }
  // A saturated key may be removed more often than it was inserted: size() stops at 0.
  present_ -= r != kAbsent && present_ > 0 ? 1 : 0;
  return r;
}

uint32_t detail::CountingCountOutOfLine(uint8_t layout, const uint64_t* counters,
                                        uint64_t num_blocks, uint32_t k, uint64_t h) noexcept {
  if (layout == static_cast<uint8_t>(CountingLayout::kBlocked)) {
    // the target's vector count or the scalar loop (kernels/counting/scalar.h)
    return detail::ActiveOneKey().counting_count(
        counters + detail::CountingBlockedWords(h, num_blocks), h, k);
  }
  return scalar::CountingCount(CountingId::kClassic, counters, ParamsOf(num_blocks, k, 0), h);
}

void CountingFilter::RefuseQuery(const char* who) const {
  Invalid(std::string("CountingFilter::") + who + ": the filter was moved from");
}

bool CountingFilter::contains_hash(uint64_t h) const {
  if (Counters() == nullptr) RefuseQuery("contains");
  return detail::CountingCountOutOfLine(static_cast<uint8_t>(layout_), Counters(), num_blocks_, k_,
                                        h) != 0;
}

uint32_t CountingFilter::count_hash(uint64_t h) const {
  if (Counters() == nullptr) RefuseQuery("count");
  return detail::CountingCountOutOfLine(static_cast<uint8_t>(layout_), Counters(), num_blocks_, k_,
                                        h);
}

// ---- Bulk: counting_bulk.cc ----

// ---- Plain filter, statistics ----
Filter CountingFilter::to_filter() const {
  if (data() == nullptr) Invalid("CountingFilter::to_filter: the filter was moved from");
  const uint64_t plain_blocks = layout_ == CountingLayout::kBlocked ? 2 * num_blocks_ : num_blocks_;
  Filter plain = FilterAccess::Make(plain_layout(), plain_blocks, k_, seed_, key_type());
  uint8_t* bits = reinterpret_cast<uint8_t*>(FilterAccess::Words(plain));
  const uint64_t* c = Counters();
  const uint64_t words = size_bytes() / 8;
  // Counter word t (16 counters) gives bits 16t .. 16t + 15: two little-endian bytes.
  for (uint64_t t = 0; t < words; ++t) {
    const uint64_t b = detail::GatherNibbles(detail::NonZeroNibbles(c[t]));
    bits[2 * t] = static_cast<uint8_t>(b);
    bits[2 * t + 1] = static_cast<uint8_t>(b >> 8);
  }
  FilterAccess::SetInserted(plain, present_);
  return plain;
}

double CountingFilter::predicted_fpp(uint64_t n) const {
  return simdbloom::predicted_fpp(plain_layout(), counter_count(), k_, n);
}

uint64_t CountingFilter::saturated_count() const noexcept {
  const uint64_t* c = Counters();
  if (c == nullptr) return 0;
  uint64_t total = 0;
  for (uint64_t t = 0; t < size_bytes() / 8; ++t) {
    total += static_cast<uint64_t>(__builtin_popcountll(detail::FullNibbles(c[t])));
  }
  return total;
}

void CountingFilter::clear() {
  CheckWritable("clear");
  std::memset(Counters(), 0, size_bytes());
  present_ = 0;
}

// ---- Set operations ----
bool CountingFilter::compatible(const CountingFilter& other) const noexcept {
  return layout_ == other.layout_ && num_blocks_ == other.num_blocks_ && k_ == other.k_ &&
         seed_ == other.seed_ && detail::KeyTypesCombine(key_type(), other.key_type());
}

namespace {
// Sixteen 4-bit counters a + b, each sum capped at 15. The even and the odd nibbles are added in
// separate bytes (a byte's sum is at most 30, so no carry leaves it); a byte at 16 or more has bit
// 7 set after adding 0x70, which becomes the 0x0F that caps it.
uint64_t SaturatingNibbleAdd(uint64_t a, uint64_t b) noexcept {
  constexpr uint64_t kLow = 0x0F0F0F0F0F0F0F0Full;
  auto add = [](uint64_t x, uint64_t y) {
    const uint64_t sum = x + y;
    const uint64_t over = ((sum + 0x7070707070707070ull) & 0x8080808080808080ull) >> 7;
    return (sum | (over * 0x0F)) & kLow;
  };
  return add(a & kLow, b & kLow) | (add((a >> 4) & kLow, (b >> 4) & kLow) << 4);
}
}  // namespace

void CountingFilter::merge(const CountingFilter& other) {
  CheckWritable("merge");
  if (other.data() == nullptr) Invalid("CountingFilter::merge: the other filter was moved from");
  std::string what;
  if (layout_ != other.layout_) {
    what = std::string("layout ") + counting_layout_name(layout_) + " vs " +
           counting_layout_name(other.layout_);
  } else if (num_blocks_ != other.num_blocks_) {
    what = "size " + std::to_string(counter_count()) + " vs " +
           std::to_string(other.counter_count()) + " counters";
  } else if (k_ != other.k_) {
    what = "k " + std::to_string(k_) + " vs " + std::to_string(other.k_);
  } else if (seed_ != other.seed_) {
    what = "seed " + std::to_string(seed_) + " vs " + std::to_string(other.seed_);
  }
  if (!what.empty()) {
    throw Error(ErrorCode::kIncompatible, "CountingFilter::merge: filters differ in " + what);
  }
  keys_.Combine("CountingFilter::merge", other.key_type());
  uint64_t* c = Counters();
  const uint64_t* o = other.Counters();
  const uint64_t n = size_bytes() / 8;
  for (uint64_t t = 0; t < n; ++t) c[t] = SaturatingNibbleAdd(c[t], o[t]);
  present_ += other.present_;
}

}  // namespace simdbloom
