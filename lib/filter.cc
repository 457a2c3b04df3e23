// Filter construction, aligned storage, single-key paths and argument checks for the bulk calls.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "simdbloom stores filters little-endian and supports little-endian hosts only"
#endif

namespace simdbloom {
namespace {

using detail::Invalid;

// Zeroed, 64-byte aligned, rounded up to whole cache lines (the padding stays zero).
uint64_t* AllocateWords(uint64_t bytes) {
  if (bytes > SIZE_MAX - 64) throw Error(ErrorCode::kOutOfMemory, "filter too large");
  const size_t rounded = static_cast<size_t>((bytes + 63) / 64 * 64);
  void* p = nullptr;
  if (posix_memalign(&p, 64, rounded) != 0 || p == nullptr) {
    throw Error(ErrorCode::kOutOfMemory, "cannot allocate " + std::to_string(rounded) + " bytes");
  }
  std::memset(p, 0, rounded);
  return static_cast<uint64_t*>(p);
}

}  // namespace

const char* version() noexcept { return SIMDBLOOM_VERSION_STRING; }

Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed)
    : words_(AllocateWords(num_blocks * block_bits(layout) / 8)),
      num_blocks_(num_blocks),
      seed_(seed),
      k_(k),
      block_bits_(block_bits(layout)),
      layout_(layout) {}

Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed, const uint64_t* view)
    : words_(const_cast<uint64_t*>(view)),  // never written: every mutation checks owned_
      num_blocks_(num_blocks),
      seed_(seed),
      k_(k),
      block_bits_(block_bits(layout)),
      layout_(layout),
      owned_(false) {}

void Filter::CheckWritable(const char* who) const {
  if (!owned_) {
    throw Error(ErrorCode::kReadOnly,
                std::string(who) + ": the filter is a read-only view of caller-owned bytes");
  }
}

Filter Filter::with_bits(uint64_t bits, uint32_t k, Layout layout, uint64_t seed) {
  detail::CheckLayoutAndK("with_bits", layout, k);
  if (bits == 0) Invalid("with_bits: bits must be > 0");
  const uint64_t blocks = detail::BlocksFor(bits, block_bits(layout));
  if (blocks > detail::kMaxBlocks) {
    Invalid(std::string("with_bits: more than 2^32 - 1 blocks of ") + layout_name(layout));
  }
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here, at construction
  return Filter(layout, blocks, k, seed);
}

Filter Filter::create(uint64_t expected_items, double fpp, Layout layout, uint64_t seed) {
  const Sizing s = size_for(expected_items, fpp, layout);
  return with_bits(s.bits, s.k, layout, seed);
}

Filter::Filter(Filter&& other) noexcept
    : words_(std::exchange(other.words_, nullptr)),
      num_blocks_(std::exchange(other.num_blocks_, 0)),
      seed_(other.seed_),
      k_(other.k_),
      block_bits_(other.block_bits_),
      layout_(other.layout_),
      owned_(other.owned_),
      inserted_(other.inserted_) {}

Filter& Filter::operator=(Filter&& other) noexcept {
  if (this != &other) {
    if (owned_) std::free(words_);
    words_ = std::exchange(other.words_, nullptr);
    num_blocks_ = std::exchange(other.num_blocks_, 0);
    seed_ = other.seed_;
    k_ = other.k_;
    block_bits_ = other.block_bits_;
    layout_ = other.layout_;
    owned_ = other.owned_;
    inserted_ = other.inserted_;
  }
  return *this;
}

Filter::Filter(const Filter& other)
    : words_(AllocateWords(other.size_bytes())),
      num_blocks_(other.num_blocks_),
      seed_(other.seed_),
      k_(other.k_),
      block_bits_(other.block_bits_),
      layout_(other.layout_),
      inserted_(other.inserted_) {
  if (size_bytes() != 0) std::memcpy(words_, other.words_, size_bytes());
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

void Filter::insert(uint64_t key) {
  CheckWritable("insert");
  const detail::LayoutId id = detail::IdOf(layout_);
  ref::InsertHash(id, words_, detail::Params{num_blocks_, k_, seed_}, ref::HashFor(id, key, seed_));
  ++inserted_;
}

void Filter::insert(std::string_view key) {
  CheckWritable("insert");
  const detail::LayoutId id = detail::IdOf(layout_);
  ref::InsertHash(id, words_, detail::Params{num_blocks_, k_, seed_},
                  ref::HashBytes(id, key.data(), key.size(), seed_));
  ++inserted_;
}

bool Filter::contains(std::string_view key) const noexcept {
  const detail::LayoutId id = detail::IdOf(layout_);
  return ref::ContainsHash(id, words_, detail::Params{num_blocks_, k_, seed_},
                           ref::HashBytes(id, key.data(), key.size(), seed_));
}

bool Filter::contains(uint64_t key) const noexcept {
  const detail::LayoutId id = detail::IdOf(layout_);
  return ref::ContainsHash(id, words_, detail::Params{num_blocks_, k_, seed_},
                           ref::HashFor(id, key, seed_));
}

void Filter::insert(Span<const uint64_t> keys) {
  CheckWritable("insert");
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("insert: null keys with non-zero size");
  detail::Active()
      .For(detail::IdOf(layout_))
      .insert_u64(words_, detail::Params{num_blocks_, k_, seed_}, keys.data(), keys.size());
  inserted_ += keys.size();
}

namespace {
// Byte-string keys in tiles: hash a tile into a stack buffer, then the pre-hashed kernel.
constexpr size_t kStringTile = 256;

template <class Apply>
void StringTiles(detail::LayoutId id, uint64_t seed, Span<const std::string_view> keys,
                 const Apply& apply) {
  uint64_t hashes[kStringTile];
  for (size_t i = 0; i < keys.size(); i += kStringTile) {
    const size_t m = keys.size() - i < kStringTile ? keys.size() - i : kStringTile;
    for (size_t j = 0; j < m; ++j) {
      const std::string_view key = keys.data()[i + j];
      hashes[j] = ref::HashBytes(id, key.data(), key.size(), seed);
    }
    apply(hashes, i, m);
  }
}
}  // namespace

void Filter::insert(Span<const std::string_view> keys) {
  CheckWritable("insert");
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("insert: null keys with non-zero size");
  const detail::LayoutId id = detail::IdOf(layout_);
  const detail::LayoutKernels& kernels = detail::Active().For(id);
  const detail::Params p{num_blocks_, k_, seed_};
  StringTiles(id, seed_, keys, [&](const uint64_t* hashes, size_t, size_t m) {
    kernels.insert_hashes(words_, p, hashes, m);
  });
  inserted_ += keys.size();
}

void Filter::contains(Span<const std::string_view> keys, uint8_t* out) const {
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("contains: null keys with non-zero size");
  if (out == nullptr) Invalid("contains: null output with non-zero size");
  const detail::LayoutId id = detail::IdOf(layout_);
  const detail::LayoutKernels& kernels = detail::Active().For(id);
  const detail::Params p{num_blocks_, k_, seed_};
  StringTiles(id, seed_, keys, [&](const uint64_t* hashes, size_t i, size_t m) {
    kernels.contains_hashes(words_, p, hashes, m, out + i);
  });
}

bool Filter::compatible(const Filter& other) const noexcept {
  return layout_ == other.layout_ && num_blocks_ == other.num_blocks_ && k_ == other.k_ &&
         seed_ == other.seed_;
}

namespace {
void CheckCompatible(const char* who, const Filter& a, const Filter& b) {
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
  } else {
    return;
  }
  throw Error(ErrorCode::kIncompatible, std::string(who) + ": filters differ in " + what);
}
}  // namespace

void Filter::merge(const Filter& other) {
  CheckWritable("merge");
  CheckCompatible("merge", *this, other);
  if (&other == this) return;
  detail::Active().or_words(words_, other.words_, size_bytes() / 8);
  inserted_ += other.inserted_;
}

void Filter::intersect(const Filter& other) {
  CheckWritable("intersect");
  CheckCompatible("intersect", *this, other);
  if (&other == this) return;
  detail::Active().and_words(words_, other.words_, size_bytes() / 8);
  inserted_ = inserted_ < other.inserted_ ? inserted_ : other.inserted_;
}

void Filter::contains(Span<const uint64_t> keys, uint8_t* out) const {
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("contains: null keys with non-zero size");
  if (out == nullptr) Invalid("contains: null output with non-zero size");
  detail::Active()
      .For(detail::IdOf(layout_))
      .contains_u64(words_, detail::Params{num_blocks_, k_, seed_}, keys.data(), keys.size(), out);
}

Filter FilterAccess::Make(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed) {
  return Filter(layout, num_blocks, k, seed);
}

Filter FilterAccess::MakeView(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                              const uint64_t* words) {
  return Filter(layout, num_blocks, k, seed, words);
}

}  // namespace simdbloom
