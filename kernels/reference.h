// SPDX-License-Identifier: Apache-2.0
// The oracle: a literal, scalar implementation of lib/FORMAT.md, compiled without target flags, one
// key at a time. It is the specification the SIMD kernels are tested against, and the "reference"
// target (detail::Reference(), kernels/table.h), selectable by SIMDBLOOM_TARGET=reference: that is
// why it is compiled into the library. Its hashes are the production scalar hashes
// (kernels/scalar/hash.h, libxxhash), and each layout's model is the layout's production one-key
// code (kernels/<layout>/scalar.cc), applied key by key: the same math, not a copy. Included by the
// oracle's own units and the tests only; the library's code includes none of the reference.h files
// (tests/scripts/check_includes.py).
#ifndef SIMDBLOOM_KERNELS_REFERENCE_H_
#define SIMDBLOOM_KERNELS_REFERENCE_H_

#include <cstddef>
#include <cstdint>

#include "kernels/bits.h"
#include "kernels/interface.h"
#include "kernels/registry.h"
#include "kernels/scalar/hash.h"
#include "kernels/table.h"

namespace simdbloom {
namespace ref {

using detail::BlockIndex;
using detail::LoadU64;

// The hashes: XXH3_64bits_withSeed / XXH64 of a key's little-endian bytes, of byte strings, the
// file formats' checksum (kernels/scalar/hash.h).
using scalar::Checksum;
using scalar::ChecksumStream;
using scalar::HashBytesXxh3;
using scalar::HashBytesXxh64;
using scalar::HashOfKey;
using scalar::HashU32;
using scalar::HashU32Xxh64;
using scalar::HashU64;
using scalar::HashU64Xxh64;

inline uint64_t HashBytes(detail::LayoutId layout, const void* data, size_t size, uint64_t seed) {
  return scalar::HashBytes(detail::InfoOf(layout).xxh64, data, size, seed);
}

// The hash a layout applies to a u64 key: XXH64 if its spec says kXxh64, else XXH3.
inline uint64_t HashFor(detail::LayoutId layout, uint64_t key, uint64_t seed) {
  return scalar::HashU64Of(detail::InfoOf(layout).xxh64, key, seed);
}

// Any layout, one pre-hashed key: what the bulk kernels must reproduce (the layout's one-key code,
// kernels/<layout>/scalar.cc). InsertHash returns true if the key set a bit that was clear.
inline bool InsertHash(detail::LayoutId layout, uint64_t* words, const detail::Params& p,
                       uint64_t h) {
  return detail::InfoOf(layout).scalar_insert(words, p, h);
}

inline bool ContainsHash(detail::LayoutId layout, const uint64_t* words, const detail::Params& p,
                         uint64_t h) {
  return detail::InfoOf(layout).scalar_contains(words, p, h);
}

// The hash a layout applies to key i of a batch (KeySource semantics, kernels/interface.h).
inline uint64_t HashOf(detail::LayoutId layout, const detail::KeySource& keys, size_t i,
                       uint64_t seed) {
  return HashOfKey(detail::InfoOf(layout).xxh64, keys, i, seed);
}

}  // namespace ref
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REFERENCE_H_
