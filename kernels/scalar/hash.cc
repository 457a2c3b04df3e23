// SPDX-License-Identifier: Apache-2.0
// The scalar hashes (hash.h) out of line: hash_inline.h's, and the checksum stream.
#include "kernels/scalar/hash.h"

#include <new>

#include "kernels/interface.h"
#include "kernels/scalar/hash_inline.h"

namespace simdbloom {
namespace scalar {

uint64_t HashU64(uint64_t key, uint64_t seed) { return inlined::HashU64(key, seed); }
uint64_t HashU64Xxh64(uint64_t key, uint64_t seed) { return inlined::HashU64Xxh64(key, seed); }
uint64_t HashU32(uint32_t key, uint64_t seed) { return inlined::HashU32(key, seed); }
uint64_t HashU32Xxh64(uint32_t key, uint64_t seed) { return inlined::HashU32Xxh64(key, seed); }
uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed) {
  return inlined::HashBytesXxh3(data, size, seed);
}
uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed) {
  return inlined::HashBytesXxh64(data, size, seed);
}
uint64_t HashOfKey(bool xxh64, const detail::KeySource& keys, size_t i, uint64_t seed) {
  return inlined::HashOfKey(xxh64, keys, i, seed);
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
