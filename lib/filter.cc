// Filter construction, aligned storage, single-key paths and argument checks for the bulk calls.
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

constexpr uint64_t kMaxBlocks = (uint64_t{1} << 32) - 1;
constexpr uint32_t kMaxK = 16;

[[noreturn]] void Invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

uint64_t* AllocateWords(uint64_t num_blocks) {
  if (num_blocks > SIZE_MAX / 64) throw Error(ErrorCode::kOutOfMemory, "filter too large");
  const size_t bytes = static_cast<size_t>(num_blocks) * 64;
  void* p = nullptr;
  if (posix_memalign(&p, 64, bytes) != 0 || p == nullptr) {
    throw Error(ErrorCode::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes");
  }
  std::memset(p, 0, bytes);
  return static_cast<uint64_t*>(p);
}

detail::Block512Params Params(uint64_t num_blocks, uint32_t k, uint64_t seed) {
  return detail::Block512Params{num_blocks, k, seed};
}

}  // namespace

const char* version() noexcept { return SIMDBLOOM_VERSION_STRING; }

Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed)
    : words_(AllocateWords(num_blocks)),
      num_blocks_(num_blocks),
      seed_(seed),
      k_(k),
      layout_(layout) {}

Filter Filter::with_bits(uint64_t bits, uint32_t k, Layout layout, uint64_t seed) {
  if (layout != Layout::kBlock512) Invalid("unknown layout");
  if (bits == 0) Invalid("with_bits: bits must be > 0");
  if (k < 1 || k > kMaxK) Invalid("with_bits: k must be in 1..16, got " + std::to_string(k));
  const uint64_t blocks = bits / 512 + (bits % 512 != 0);
  if (blocks > kMaxBlocks) Invalid("with_bits: more than 2^32 - 1 blocks of 512 bits");
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here, at construction
  return Filter(layout, blocks, k, seed);
}

Filter::Filter(Filter&& other) noexcept
    : words_(std::exchange(other.words_, nullptr)),
      num_blocks_(std::exchange(other.num_blocks_, 0)),
      seed_(other.seed_),
      k_(other.k_),
      layout_(other.layout_) {}

Filter& Filter::operator=(Filter&& other) noexcept {
  if (this != &other) {
    std::free(words_);
    words_ = std::exchange(other.words_, nullptr);
    num_blocks_ = std::exchange(other.num_blocks_, 0);
    seed_ = other.seed_;
    k_ = other.k_;
    layout_ = other.layout_;
  }
  return *this;
}

Filter::Filter(const Filter& other)
    : words_(AllocateWords(other.num_blocks_)),
      num_blocks_(other.num_blocks_),
      seed_(other.seed_),
      k_(other.k_),
      layout_(other.layout_) {
  std::memcpy(words_, other.words_, size_bytes());
}

Filter& Filter::operator=(const Filter& other) {
  if (this != &other) *this = Filter(other);
  return *this;
}

Filter::~Filter() { std::free(words_); }

void Filter::clear() noexcept { std::memset(words_, 0, size_bytes()); }

void Filter::insert(uint64_t key) noexcept {
  const uint64_t h = ref::HashU64(key, seed_);
  ref::Block512Insert(words_ + 8 * ref::BlockIndex(h, num_blocks_), h, k_);
}

bool Filter::contains(uint64_t key) const noexcept {
  const uint64_t h = ref::HashU64(key, seed_);
  return ref::Block512Contains(words_ + 8 * ref::BlockIndex(h, num_blocks_), h, k_);
}

void Filter::insert(Span<const uint64_t> keys) {
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("insert: null keys with non-zero size");
  detail::Active().insert_u64(words_, Params(num_blocks_, k_, seed_), keys.data(), keys.size());
}

void Filter::contains(Span<const uint64_t> keys, uint8_t* out) const {
  if (keys.empty()) return;
  if (keys.data() == nullptr) Invalid("contains: null keys with non-zero size");
  if (out == nullptr) Invalid("contains: null output with non-zero size");
  detail::Active().contains_u64(words_, Params(num_blocks_, k_, seed_), keys.data(), keys.size(),
                                out);
}

}  // namespace simdbloom
