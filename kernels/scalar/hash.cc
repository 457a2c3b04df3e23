// SPDX-License-Identifier: Apache-2.0
// The scalar hashes (hash.h): libxxhash, inlined into this unit.
#include "kernels/scalar/hash.h"

#include <cstring>
#include <new>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace simdbloom {
namespace scalar {

uint64_t HashU64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 8, seed);
}

uint64_t HashU64Xxh64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 8, seed);
}

uint64_t HashU32(uint32_t key, uint64_t seed) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 4, seed);
}

uint64_t HashU32Xxh64(uint32_t key, uint64_t seed) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 4, seed);
}

uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed) {
  return XXH64(data, size, seed);
}

uint64_t HashOfKey(bool xxh64, const detail::KeySource& keys, size_t i, uint64_t seed) {
  const size_t at = keys.sel != nullptr ? keys.sel[i] : i;
  switch (keys.kind) {
    case detail::KeyKind::kU64: {
      const uint64_t key = detail::LoadU64(static_cast<const uint64_t*>(keys.keys) + at);
      return xxh64 ? HashU64Xxh64(key, seed) : HashU64(key, seed);
    }
    case detail::KeyKind::kU32: {
      uint32_t key;
      std::memcpy(&key, static_cast<const uint32_t*>(keys.keys) + at, 4);
      return xxh64 ? HashU32Xxh64(key, seed) : HashU32(key, seed);
    }
    case detail::KeyKind::kHashes:
      return detail::LoadU64(static_cast<const uint64_t*>(keys.keys) + at);
    case detail::KeyKind::kHashFn: {
      uint64_t h;
      keys.hash_fn(keys.ctx, keys.sel, i, 1, &h);
      return h;
    }
  }
  return 0;
}

ChecksumStream::ChecksumStream() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));  // seed 0, as Checksum
}
ChecksumStream::~ChecksumStream() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void ChecksumStream::Update(const void* data, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, size);
}
uint64_t ChecksumStream::Digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

}  // namespace scalar
}  // namespace simdbloom
