// SPDX-License-Identifier: Apache-2.0
// Guava's BloomFilter (lib/FORMAT.md, "guava and guava32"): its writeTo bytes in and out
// (Filter::from_guava, Filter::to_guava), and the single-key calls of the two Guava layouts, which
// hash a key's funnel bytes with Murmur3 x64 128 out of line (their probes need both halves of
// the 128-bit hash, which the inline 64-bit path does not carry).
#include "kernels/scalar/guava.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/guava/scalar.h"
#include "kernels/guava32/scalar.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

using detail::Invalid;

// Bytes of Guava's writeTo header: ordinal, k, the count of longs.
constexpr size_t kGuavaHeader = 6;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "from_guava: not a Guava BloomFilter: " + what);
}

// The Murmur3 x64 128 of `key`'s funnel bytes for a filter of key type `type`: 8 little-endian
// bytes for kInt64 and kNone integers (longFunnel), 4 for kInt32 (integerFunnel), the caller's
// width for kLegacy, a byte string's bytes. False where the key has none (FORMAT.md, "Keys"): a
// key of the other kind, an integer out of a kInt32 filter's range.
bool MurmurOfKey(KeyType type, const Key& key, uint64_t seed, scalar::Hash128* h) {
  if (!key.is_integer()) {
    if (!detail::TakesBytes(type)) return false;
    *h = scalar::Murmur3x64_128(key.bytes().data(), key.bytes().size(), seed);
    return true;
  }
  switch (type) {
    case KeyType::kBytes:
      return false;
    case KeyType::kInt32:
      if (!key.fits_int32()) return false;
      *h = scalar::Murmur3U32(static_cast<uint32_t>(key.bits()), seed);
      return true;
    case KeyType::kLegacy: {
      uint8_t le[8];
      for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(key.bits() >> (8 * i));
      *h = scalar::Murmur3x64_128(le, key.width(), seed);
      return true;
    }
    default:
      *h = scalar::Murmur3U64(key.bits(), seed);
      return true;
  }
}

[[noreturn]] void RefuseKey(const char* who, KeyType type, const Key& key) {
  if (key.is_integer()) detail::RefuseIntKey(who, type, key.bits(), key.is_signed());
  detail::RefuseBytesKey(who, type);
}

}  // namespace

bool Filter::InsertMurmur(const char* who, Key key, bool concurrent) {
  if (!owned_ || words_ == nullptr) RefuseInsert(who);
  KeyType type = keys_.type();
  if (type == KeyType::kNone) type = key.is_integer() ? KeyType::kInt64 : KeyType::kBytes;
  scalar::Hash128 h;
  if (!MurmurOfKey(type, key, seed_, &h)) RefuseKey(who, type, key);
  const detail::Params p{num_blocks_, k_, 0};
  if (concurrent) {
    if (type != keys_.type()) ClaimKeyType(who, type);
    __atomic_fetch_add(&inserted_, 1, __ATOMIC_RELAXED);
    return layout_ == Layout::kGuava ? detail::GuavaScalar::InsertAtomic128(words_, p, h)
                                     : detail::Guava32Scalar::InsertAtomic128(words_, p, h);
  }
  ++inserted_;
  const bool fresh = layout_ == Layout::kGuava ? detail::GuavaScalar::Insert128(words_, p, h)
                                               : detail::Guava32Scalar::Insert128(words_, p, h);
  if (type != keys_.type()) SetKeyTypeOnInsert(type);
  return fresh;
}

bool Filter::ContainsMurmur(Key key) const {
  const KeyType type = keys_.type();
  scalar::Hash128 h;
  if (!MurmurOfKey(type, key, seed_, &h)) {
    if (!key.is_integer() || type == KeyType::kBytes) RefuseKey("contains", type, key);
    return false;  // out of a kInt32 filter's range: absent
  }
  const detail::Params p{num_blocks_, k_, 0};
  return layout_ == Layout::kGuava ? detail::GuavaScalar::Contains128(words_, p, h)
                                   : detail::Guava32Scalar::Contains128(words_, p, h);
}

void Filter::PrefetchMurmur(Key key) const noexcept {
  scalar::Hash128 h;
  if (words_ == nullptr || !MurmurOfKey(keys_.type(), key, seed_, &h)) return;
  const detail::Params p{num_blocks_, k_, 0};
  auto fetch = [&](uint64_t bit) {
    __builtin_prefetch(words_ + (bit >> 6));
    return true;
  };
  if (layout_ == Layout::kGuava) {
    detail::GuavaScalar::Probes(p, h, fetch);
  } else {
    detail::Guava32Scalar::Probes(p, h, fetch);
  }
}

uint64_t Filter::HashMurmur(Key key) const {
  const KeyType type = keys_.type();
  scalar::Hash128 h;
  if (!MurmurOfKey(type, key, seed_, &h)) RefuseKey("hash", type, key);
  return h.h1;
}

void Filter::RefusePrehashed(const char* who) const {
  Invalid(std::string(who) +
          ": pre-hashed keys on a guava filter: its probes need both 64-bit halves of the key's "
          "Murmur3 x64 128 hash; pass the keys (guava32 takes Filter::hash values)");
}

std::vector<uint8_t> Filter::to_guava() const {
  if (!murmur()) {
    throw Error(ErrorCode::kIncompatible, std::string("to_guava: a ") + layout_name(layout_) +
                                              " filter is not a Guava filter (guava, guava32)");
  }
  if (seed_ != 0) {
    throw Error(ErrorCode::kIncompatible, "to_guava: the filter's seed is " +
                                              std::to_string(seed_) +
                                              "; Guava's BloomFilter hashes with Murmur3 seed 0");
  }
  CheckNotMovedFrom("to_guava");
  std::vector<uint8_t> out(kGuavaHeader + 8 * num_blocks_);
  out[0] = layout_ == Layout::kGuava ? detail::GuavaSpec::kGuavaOrdinal
                                     : detail::Guava32Spec::kGuavaOrdinal;
  out[1] = static_cast<uint8_t>(k_);                          // 1..255 (the layout's range)
  const uint32_t longs = static_cast<uint32_t>(num_blocks_);  // <= 2^31 - 1 (with_bits)
  for (int i = 0; i < 4; ++i) out[2 + i] = static_cast<uint8_t>(longs >> (24 - 8 * i));
  uint8_t* p = out.data() + kGuavaHeader;
  for (uint64_t w = 0; w < num_blocks_; ++w, p += 8) {
    const uint64_t word = detail::LoadRelaxed(words_ + w);
    for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(word >> (56 - 8 * i));
  }
  return out;
}

Filter Filter::from_guava(const uint8_t* data, size_t size, KeyType key_type, size_t* consumed) {
  detail::CheckKeyType("from_guava", key_type);
  if (data == nullptr && size != 0) Invalid("from_guava: null data with non-zero size");
  if (size < kGuavaHeader) {
    Bad(std::to_string(size) + " bytes, shorter than its 6-byte header");
  }
  Layout layout;
  if (data[0] == detail::GuavaSpec::kGuavaOrdinal) {
    layout = Layout::kGuava;
  } else if (data[0] == detail::Guava32Spec::kGuavaOrdinal) {
    layout = Layout::kGuava32;
  } else {
    Bad("strategy ordinal " + std::to_string(static_cast<int8_t>(data[0])) +
        " is neither 0 (MURMUR128_MITZ_32) nor 1 (MURMUR128_MITZ_64)");
  }
  const uint32_t k = data[1];
  if (k == 0) Bad("k = 0 hash functions");
  const int32_t longs = static_cast<int32_t>((uint32_t{data[2]} << 24) | (uint32_t{data[3]} << 16) |
                                             (uint32_t{data[4]} << 8) | uint32_t{data[5]});
  if (longs <= 0) Bad("a bit array of " + std::to_string(longs) + " longs");
  const uint64_t need = kGuavaHeader + 8 * static_cast<uint64_t>(longs);
  if (size < need) {
    Bad(std::to_string(longs) + " longs need " + std::to_string(need) + " bytes, " +
        std::to_string(size) + " given");
  }
  if (consumed == nullptr && size != need) {
    Bad(std::to_string(size - need) + " bytes after the " + std::to_string(longs) +
        " longs (pass `consumed` to read a filter followed by other bytes)");
  }
  // Allocated only once the bytes are known to be there.
  Filter f = FilterAccess::Make(layout, static_cast<uint64_t>(longs), k, 0, key_type);
  uint64_t* words = FilterAccess::Words(f);
  const uint8_t* p = data + kGuavaHeader;
  for (int32_t w = 0; w < longs; ++w, p += 8) {
    uint64_t word = 0;
    for (int i = 0; i < 8; ++i) word = (word << 8) | p[i];
    words[w] = word;
  }
  if (consumed != nullptr) *consumed = static_cast<size_t>(need);
  return f;
}

}  // namespace simdbloom
