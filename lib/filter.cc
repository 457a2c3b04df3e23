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
      layout_(other.layout_) {}

Filter& Filter::operator=(Filter&& other) noexcept {
  if (this != &other) {
    std::free(words_);
    words_ = std::exchange(other.words_, nullptr);
    num_blocks_ = std::exchange(other.num_blocks_, 0);
    seed_ = other.seed_;
    k_ = other.k_;
    block_bits_ = other.block_bits_;
    layout_ = other.layout_;
  }
  return *this;
}

Filter::Filter(const Filter& other)
    : words_(AllocateWords(other.size_bytes())),
      num_blocks_(other.num_blocks_),
      seed_(other.seed_),
      k_(other.k_),
      block_bits_(other.block_bits_),
      layout_(other.layout_) {
  std::memcpy(words_, other.words_, size_bytes());
}

Filter& Filter::operator=(const Filter& other) {
  if (this != &other) *this = Filter(other);
  return *this;
}

Filter::~Filter() { std::free(words_); }

void Filter::clear() noexcept {
  if (words_ != nullptr) std::memset(words_, 0, size_bytes());
}

void Filter::insert(uint64_t key) noexcept {
  const detail::LayoutId id = detail::IdOf(layout_);
  ref::InsertHash(id, words_, detail::Params{num_blocks_, k_, seed_}, ref::HashFor(id, key, seed_));
}

bool Filter::contains(uint64_t key) const noexcept {
  const detail::LayoutId id = detail::IdOf(layout_);
  return ref::ContainsHash(id, words_, detail::Params{num_blocks_, k_, seed_},
                           ref::HashFor(id, key, seed_));
}

void Filter::insert(Span<const uint64_t> keys) {
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("insert: null keys with non-zero size");
  detail::Active()
      .For(detail::IdOf(layout_))
      .insert_u64(words_, detail::Params{num_blocks_, k_, seed_}, keys.data(), keys.size());
}

void Filter::contains(Span<const uint64_t> keys, uint8_t* out) const {
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("contains: null keys with non-zero size");
  if (out == nullptr) Invalid("contains: null output with non-zero size");
  detail::Active()
      .For(detail::IdOf(layout_))
      .contains_u64(words_, detail::Params{num_blocks_, k_, seed_}, keys.data(), keys.size(), out);
}

}  // namespace simdbloom
