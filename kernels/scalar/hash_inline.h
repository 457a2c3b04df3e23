// SPDX-License-Identifier: Apache-2.0
// The scalar hashes of hash.h inline, libxxhash compiled into the including unit (XXH_INLINE_ALL):
// for the units that hash key after key in a loop. hash.cc compiles them out of line for the
// library; the oracle's loops (kernels/reference.cc) inline them. Other units include hash.h.
#ifndef SIMDBLOOM_KERNELS_SCALAR_HASH_INLINE_H_
#define SIMDBLOOM_KERNELS_SCALAR_HASH_INLINE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/bits.h"
#include "kernels/interface.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace simdbloom {
namespace scalar {
namespace inlined {

inline uint64_t HashU64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 8, seed);
}

inline uint64_t HashU64Xxh64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 8, seed);
}

inline uint64_t HashU32(uint32_t key, uint64_t seed) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 4, seed);
}

inline uint64_t HashU32Xxh64(uint32_t key, uint64_t seed) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 4, seed);
}

inline uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

inline uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed) {
  return XXH64(data, size, seed);
}

inline uint64_t HashOfKey(bool xxh64, const detail::KeySource& keys, size_t i, uint64_t seed) {
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

}  // namespace inlined
}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SCALAR_HASH_INLINE_H_
