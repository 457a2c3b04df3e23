// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the bulk calls' key handling (lib/bulk.cc) for other filter kinds
// (SpatialFilter): argument checks and hashing of any Keys shape on a chosen target.
#ifndef SIMDBLOOM_LIB_KEYS_H_
#define SIMDBLOOM_LIB_KEYS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/dispatch.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

// Throws Error(kInvalidArgument), naming `who`, for keys the bulk calls cannot read (null pointers
// with a non-zero size, bad Arrow offsets, FixedWidth geometry). O(n) for Arrow arrays, else O(1).
void CheckKeys(const char* who, const Keys& keys);

// out[j] = XXH3_64bits_withSeed(bytes of key begin + j, seed) for j < m (Prehashed keys are
// copied), on `kernels`' target (u64/u32 keys vectorized, byte strings scalar). Keys must have
// passed CheckKeys. No allocation.
void HashKeyRange(const Kernels& kernels, const Keys& keys, uint64_t seed, size_t begin, size_t m,
                  uint64_t* out);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KEYS_H_
