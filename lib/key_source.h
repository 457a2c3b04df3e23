// Internal (not installed): turning a public Keys into the kernels' KeySource, shared by the bulk
// calls of every filter kind (lib/bulk.cc defines these).
#ifndef SIMDBLOOM_LIB_KEY_SOURCE_H_
#define SIMDBLOOM_LIB_KEY_SOURCE_H_

#include <cstdint>

#include "kernels/registry.h"
#include "kernels/shared.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

// What KeySource::hash_fn reads for byte-string shapes.
struct StringHasher {
  Keys keys;
  uint64_t seed;
};

// Throws Error(kInvalidArgument) for keys the bulk calls cannot read (null pointers with a
// non-zero size, bad Arrow offsets, FixedWidth geometry); `who` starts the message. O(n) for
// Arrow arrays, else O(1).
void ValidateKeys(const char* who, const Keys& keys);

// The KeySource over `keys` (n > 0, already validated), hashed as layout `id` hashes (XXH3 or
// XXH64) with `seed`. `hasher` must outlive the source.
KeySource SourceOf(const Keys& keys, LayoutId id, uint64_t seed, StringHasher* hasher);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KEY_SOURCE_H_
