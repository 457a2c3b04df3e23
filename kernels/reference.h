// SPDX-License-Identifier: Apache-2.0
// The scalar reference: a literal implementation of lib/FORMAT.md, compiled without target flags.
// It is the specification the SIMD kernels are tested against, and the "reference" target: the
// hashes here, each layout's one-key model in its folder (kernels/<layout>/reference.h).
#ifndef SIMDBLOOM_KERNELS_REFERENCE_H_
#define SIMDBLOOM_KERNELS_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/dispatch.h"
#include "kernels/registry.h"
#include "kernels/shared.h"

namespace simdbloom {
namespace ref {

using detail::BlockIndex;
using detail::LoadU64;

// XXH3_64bits_withSeed over the key's 8 little-endian bytes (libxxhash's own code).
uint64_t HashU64(uint64_t key, uint64_t seed);
// XXH64 over the key's 8 little-endian bytes (libxxhash's own code).
uint64_t HashU64Xxh64(uint64_t key, uint64_t seed);
// XXH3_64bits_withSeed / XXH64 over the key's 4 little-endian bytes.
uint64_t HashU32(uint32_t key, uint64_t seed);
uint64_t HashU32Xxh64(uint32_t key, uint64_t seed);
// XXH3_64bits_withSeed / XXH64 over `size` bytes: the hash of a byte-string key.
uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed);
uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed);
inline uint64_t HashBytes(detail::LayoutId layout, const void* data, size_t size, uint64_t seed) {
  return detail::InfoOf(layout).xxh64 ? HashBytesXxh64(data, size, seed)
                                      : HashBytesXxh3(data, size, seed);
}
// The file format's checksum: XXH3_64bits (seed 0) of `size` bytes.
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

// The hash a layout applies to a u64 key: XXH64 if its spec says kXxh64, else XXH3.
inline uint64_t HashFor(detail::LayoutId layout, uint64_t key, uint64_t seed) {
  return detail::InfoOf(layout).xxh64 ? HashU64Xxh64(key, seed) : HashU64(key, seed);
}

// Any layout, one pre-hashed key: what the bulk kernels must reproduce (the layout folder's
// reference.h). InsertHash returns true if the key set a bit that was clear.
inline bool InsertHash(detail::LayoutId layout, uint64_t* words, const detail::Params& p,
                       uint64_t h) {
  return detail::InfoOf(layout).ref_insert(words, p, h);
}

inline bool ContainsHash(detail::LayoutId layout, const uint64_t* words, const detail::Params& p,
                         uint64_t h) {
  return detail::InfoOf(layout).ref_contains(words, p, h);
}

// The hash a layout applies to key i of a batch (KeySource semantics, dispatch.h).
uint64_t HashOf(detail::LayoutId layout, const detail::KeySource& keys, size_t i, uint64_t seed);
// The same with the hash family named: XXH64 if xxh64, else XXH3.
uint64_t HashOfKey(bool xxh64, const detail::KeySource& keys, size_t i, uint64_t seed);

const detail::Kernels& Kernels();

}  // namespace ref
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REFERENCE_H_
