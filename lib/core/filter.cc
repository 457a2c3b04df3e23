// SPDX-License-Identifier: Apache-2.0
// Filter construction, aligned (huge-page) storage, single-key paths, set operations. The bulk
// calls are in bulk.cc.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "kernels/dispatch.h"
#include "kernels/scalar/guava.h"
#include "kernels/scalar/hash.h"
#include "kernels/scalar/probes.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/core/memory.h"
#include "simdbloom/simdbloom.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "simdbloom stores filters little-endian and supports little-endian hosts only"
#endif

namespace simdbloom {
namespace {

using detail::Invalid;

// Zeroed, 64-byte aligned, rounded up to whole cache lines; huge pages from 2 MiB on
// (lib/core/memory.h).
uint64_t* AllocateWords(uint64_t bytes) {
  return static_cast<uint64_t*>(detail::AllocateZeroed(bytes, "filter"));
}

// kClassic's k probes of hash h: on(bit) for each bit index (kernels/scalar/probes.h).
template <class On>
inline void ForEachClassicBit(uint64_t h, uint32_t k, uint64_t num_blocks, const On& on) {
  const uint64_t step = scalar::ClassicStep(h);
  uint64_t g = h;
  for (uint32_t i = 0; i < k; ++i, g += step) on(scalar::ClassicBit(g, num_blocks));
}

}  // namespace

const char* version() noexcept { return SIMDBLOOM_VERSION_STRING; }

// The view's fields, over words of its own (64-byte aligned: AllocateWords).
Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed, KeyType key_type)
    : Filter(layout, num_blocks, k, seed, key_type,
             AllocateWords(num_blocks * block_bits(layout) / 8)) {
  owned_ = true;
  UpdateFast();
}

Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed, KeyType key_type,
               const uint64_t* view)
    : words_(const_cast<uint64_t*>(view)),  // never written: every mutation checks owned_
      num_blocks_(num_blocks),
      seed_(seed),
      xxh3_bitflip_(detail::Xxh3Bitflip(seed)),
      k_(k),
      block_bits_(block_bits(layout)),
      layout_(layout),
      owned_(false),
      keys_(key_type) {
  // The kernels load whole blocks with aligned vector loads (view() checks this for callers).
  if (reinterpret_cast<uintptr_t>(view) % 64 != 0)
    Invalid("view: the bits must be 64-byte aligned");
  UpdateFast();
}

void Filter::SetKeyTypeOnInsert(KeyType type) noexcept {
  keys_.Set(type);
  UpdateFast();
}

void Filter::ClaimKeyType(const char* who, KeyType type) {
  if (!keys_.Claim(type)) {
    throw KeyTypeError(std::string(who) + ": " + key_type_name(type) + " keys on a filter of " +
                       key_type_name(keys_.type()) + " keys");
  }
  UpdateFast();
}

void Filter::set_key_type(KeyType type) {
  keys_.Declare("set_key_type", type);
  UpdateFast();
}

void Filter::RefuseInsert(const char* who) const {
  CheckWritable(who);  // throws: called for views and moved-from filters only
  throw Error(ErrorCode::kInvalidArgument, std::string(who) + ": refused");
}

void Filter::RefuseQuery(const char* who) const {
  CheckNotMovedFrom(who);  // throws: called for moved-from filters only
  throw Error(ErrorCode::kInvalidArgument, std::string(who) + ": refused");
}

void Filter::CheckWritable(const char* who) const {
  CheckNotMovedFrom(who);
  if (!owned_) {
    throw Error(
        ErrorCode::kReadOnly,
        std::string(who) + (keeper_ != nullptr
                                ? ": the filter is a mapped file (read-only)"
                                : ": the filter is a read-only view of caller-owned bytes"));
  }
}

Filter Filter::with_bits(uint64_t bits, uint32_t k, Layout layout, uint64_t seed,
                         KeyType key_type) {
  detail::CheckLayoutAndK("with_bits", layout, k);
  if (bits == 0) Invalid("with_bits: bits must be > 0");
  const uint64_t blocks = detail::BlocksFor(bits, block_bits(layout));
  if (blocks > detail::kMaxBlocks) {
    Invalid(std::string("with_bits: more than 2^32 - 1 blocks of ") + layout_name(layout));
  }
  if (detail::InfoOf(layout)->murmur128) {
    if (blocks > detail::kMaxGuavaLongs) {
      Invalid(std::string("with_bits: more than 2^31 - 1 longs (Guava's limit) for ") +
              layout_name(layout));
    }
  }
  detail::CheckKeyType("with_bits", key_type);
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here, at construction
  return Filter(layout, blocks, k, seed, key_type);
}

Filter Filter::create(uint64_t expected_items, double fpp, Layout layout, uint64_t seed,
                      KeyType key_type) {
  // Errors name create, the function the caller called, not the size_for / with_bits it calls.
  try {
    const Sizing s = size_for(expected_items, fpp, layout);
    return with_bits(s.bits, s.k, layout, seed, key_type);
  } catch (const Error& e) {
    std::string what = e.what();
    for (const char* inner : {"size_for: ", "with_bits: "}) {
      if (what.compare(0, std::strlen(inner), inner) == 0) what.erase(0, std::strlen(inner));
    }
    throw Error(e.code(), "Filter::create: " + what);
  }
}

// The move assignment's fields, from the default (empty) state.
Filter::Filter(Filter&& other) noexcept { *this = std::move(other); }

Filter& Filter::operator=(Filter&& other) noexcept {
  if (this != &other) {
    if (owned_) std::free(words_);
    words_ = std::exchange(other.words_, nullptr);
    num_blocks_ = std::exchange(other.num_blocks_, 0);
    seed_ = other.seed_;
    xxh3_bitflip_ = other.xxh3_bitflip_;
    k_ = other.k_;
    block_bits_ = other.block_bits_;
    layout_ = other.layout_;
    owned_ = other.owned_;
    keys_ = other.keys_;
    inserted_ = other.inserted_;
    keeper_ = std::move(other.keeper_);
    UpdateFast();
    other.UpdateFast();
  }
  return *this;
}

void Filter::CheckNotMovedFrom(const char* who) const {
  if (words_ == nullptr) Invalid(std::string(who) + ": the filter was moved from");
}

Filter::Filter(const Filter& other)
    : words_(other.words_ != nullptr ? AllocateWords(other.size_bytes()) : nullptr),
      num_blocks_(other.num_blocks_),
      seed_(other.seed_),
      xxh3_bitflip_(other.xxh3_bitflip_),
      k_(other.k_),
      block_bits_(other.block_bits_),
      layout_(other.layout_),
      keys_(other.keys_),
      inserted_(other.inserted_) {
  if (size_bytes() != 0) std::memcpy(words_, other.words_, size_bytes());
  UpdateFast();
}

Filter& Filter::operator=(const Filter& other) {
  if (this != &other) *this = Filter(other);
  return *this;
}

Filter::~Filter() {
  if (owned_) std::free(words_);
}

void Filter::clear() {
  CheckWritable("clear");
  if (words_ != nullptr) std::memset(words_, 0, size_bytes());
  inserted_ = 0;
}

bool detail::InsertHashOutOfLine(uint8_t layout, uint64_t* words, uint64_t num_blocks, uint32_t k,
                                 uint64_t h) noexcept {
  const detail::Params p{num_blocks, k, 0};
  return detail::FindLayout(layout)->scalar_insert(words, p, h);
}

bool detail::ContainsHashOutOfLine(uint8_t layout, const uint64_t* words, uint64_t num_blocks,
                                   uint32_t k, uint64_t h) noexcept {
  if (layout == static_cast<uint8_t>(Layout::kClassic)) {
    // All k probes, no early exit: an absent key's first clear bit is unpredictable, and the k
    // loads overlap anyway.
    uint64_t hit = 1;
    ForEachClassicBit(h, k, num_blocks, [&](uint64_t bit) {
      hit &= detail::LoadWord(words + (bit >> 6)) >> (bit & 63);
    });
    return (hit & 1) != 0;
  }
  const detail::Params p{num_blocks, k, 0};
  return detail::FindLayout(layout)->scalar_contains(words, p, h);
}

void detail::PrefetchHashOutOfLine(uint8_t layout, const uint64_t* words, uint64_t num_blocks,
                                   uint32_t k, uint64_t h) noexcept {
  if (layout == static_cast<uint8_t>(Layout::kClassic)) {
    ForEachClassicBit(h, k, num_blocks,
                      [&](uint64_t bit) { __builtin_prefetch(words + (bit >> 6)); });
  } else if (layout == static_cast<uint8_t>(Layout::kShifting)) {
    __builtin_prefetch(words + 8 * detail::BlockIndex(h, num_blocks));
  } else if (layout == static_cast<uint8_t>(Layout::kGuava32)) {
    const scalar::GuavaMod mod(num_blocks);
    scalar::GuavaMitz32Probes(mod, k, h, [&](uint64_t bit) {
      __builtin_prefetch(words + (bit >> 6));
      return true;
    });
  }  // (guava: a 64-bit hash does not define its probes; prefetch(key) prefetches them)
}

bool Filter::insert_hash_concurrent(uint64_t hash) {
  if (!owned_ || words_ == nullptr) CheckWritable("insert_concurrent");  // throws
  if (layout_ == Layout::kGuava) RefusePrehashed("insert_hash_concurrent");
  __atomic_fetch_add(&inserted_, 1, __ATOMIC_RELAXED);
  const detail::Params p{num_blocks_, k_, seed_};
  return detail::InfoOf(layout_)->scalar_insert_atomic(words_, p, hash);
}

bool Filter::compatible(const Filter& other) const noexcept {
  return layout_ == other.layout_ && num_blocks_ == other.num_blocks_ && k_ == other.k_ &&
         seed_ == other.seed_ && detail::KeyTypesCombine(key_type(), other.key_type());
}

namespace {
void CheckCompatible(const char* who, const Filter& a, const Filter& b) {
  if (b.data() == nullptr) Invalid(std::string(who) + ": the other filter was moved from");
  std::string what;
  if (a.layout() != b.layout()) {
    what = std::string("layout ") + layout_name(a.layout()) + " vs " + layout_name(b.layout());
  } else if (a.num_blocks() != b.num_blocks()) {
    what =
        "size " + std::to_string(a.bit_count()) + " vs " + std::to_string(b.bit_count()) + " bits";
  } else if (a.num_hashes() != b.num_hashes()) {
    what = "k " + std::to_string(a.num_hashes()) + " vs " + std::to_string(b.num_hashes());
  } else if (a.seed() != b.seed()) {
    what = "seed " + std::to_string(a.seed()) + " vs " + std::to_string(b.seed());
  } else if (!detail::KeyTypesCombine(a.key_type(), b.key_type())) {
    what = std::string("key type ") + key_type_name(a.key_type()) + " vs " +
           key_type_name(b.key_type());
  } else {
    return;
  }
  throw Error(ErrorCode::kIncompatible, std::string(who) + ": filters differ in " + what);
}
}  // namespace

void Filter::merge(const Filter& other) {
  CheckWritable("merge");
  CheckCompatible("merge", *this, other);
  keys_.Combine("merge", other.key_type());
  UpdateFast();
  if (&other == this) {  // the bits stay; the count adds as for a copy of this filter
    inserted_ += inserted_;
    return;
  }
  detail::Active().or_words(words_, other.words_, size_bytes() / 8);
  inserted_ += other.inserted_;
}

void Filter::intersect(const Filter& other) {
  CheckWritable("intersect");
  CheckCompatible("intersect", *this, other);
  keys_.Combine("intersect", other.key_type());
  UpdateFast();
  if (&other == this) return;
  detail::Active().and_words(words_, other.words_, size_bytes() / 8);
  inserted_ = inserted_ < other.inserted_ ? inserted_ : other.inserted_;
}

Filter FilterAccess::Make(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                          KeyType key_type) {
  return Filter(layout, num_blocks, k, seed, key_type);
}

Filter FilterAccess::MakeView(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                              KeyType key_type, const uint64_t* words) {
  return Filter(layout, num_blocks, k, seed, key_type, words);
}

}  // namespace simdbloom
