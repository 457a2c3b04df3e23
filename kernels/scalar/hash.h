// SPDX-License-Identifier: Apache-2.0
// The scalar hashes (production): XXH3 and XXH64 of one key's bytes, the file formats' checksum,
// and the hash of key i of any key source. Target-free, one key at a time; libxxhash's own code
// (hash.cc). Used by the library core (string keys, file formats) and by the oracle
// (kernels/reference.h), which takes its hashes from here.
#ifndef SIMDBLOOM_KERNELS_SCALAR_HASH_H_
#define SIMDBLOOM_KERNELS_SCALAR_HASH_H_

#include <cstddef>
#include <cstdint>

#include "kernels/interface.h"

namespace simdbloom {
namespace scalar {

// XXH3_64bits_withSeed / XXH64 over the key's 8 little-endian bytes.
uint64_t HashU64(uint64_t key, uint64_t seed);
uint64_t HashU64Xxh64(uint64_t key, uint64_t seed);
// XXH3_64bits_withSeed / XXH64 over the key's 4 little-endian bytes.
uint64_t HashU32(uint32_t key, uint64_t seed);
uint64_t HashU32Xxh64(uint32_t key, uint64_t seed);
// XXH3_64bits_withSeed / XXH64 over `size` bytes: the hash of a byte-string key.
uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed);
uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed);
// The same with the hash family named (a layout's spec kXxh64).
inline uint64_t HashBytes(bool xxh64, const void* data, size_t size, uint64_t seed) {
  return xxh64 ? HashBytesXxh64(data, size, seed) : HashBytesXxh3(data, size, seed);
}
inline uint64_t HashU64Of(bool xxh64, uint64_t key, uint64_t seed) {
  return xxh64 ? HashU64Xxh64(key, seed) : HashU64(key, seed);
}

// The hash of key i of a batch (KeySource semantics, kernels/interface.h): XXH64 if xxh64, else
// XXH3.
uint64_t HashOfKey(bool xxh64, const detail::KeySource& keys, size_t i, uint64_t seed);

// The file formats' checksum: XXH3_64bits (seed 0) of `size` bytes.
inline uint64_t Checksum(const void* data, size_t size) { return HashBytesXxh3(data, size, 0); }
// The same checksum over bytes that arrive in pieces: after Update with each piece in order,
// Digest() equals Checksum of all of them. Holds libxxhash's XXH3 state (one allocation).
class ChecksumStream {
 public:
  ChecksumStream();
  ~ChecksumStream();
  ChecksumStream(const ChecksumStream&) = delete;
  ChecksumStream& operator=(const ChecksumStream&) = delete;
  void Update(const void* data, size_t size);
  uint64_t Digest() const;

 private:
  void* state_;
};

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SCALAR_HASH_H_
