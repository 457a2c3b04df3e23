// SPDX-License-Identifier: Apache-2.0
// Scalar probe formulas (lib/FORMAT.md) that more than one kind uses: classic's double hashing and
// register64's word mask, which the counting cells (kernels/counting/) reuse, so they live beneath
// every kind folder rather than in one of them. Target-free; the vector forms are in
// kernels/simd/probes-inl.h.
#ifndef SIMDBLOOM_KERNELS_SCALAR_PROBES_H_
#define SIMDBLOOM_KERNELS_SCALAR_PROBES_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace scalar {

// classic: probe i is bit floor(g_i * m / 2^64), g_i = h + i * rotl(h, 32), m = 512 * num_blocks.
// g_{i+1} = g_i + ClassicStep(h).
inline uint64_t ClassicStep(uint64_t h) { return (h << 32) | (h >> 32); }
// floor(g * m / 2^64), m = 512 * num_blocks bits.
inline uint64_t ClassicBit(uint64_t g, uint64_t num_blocks) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(g) * (num_blocks * 512)) >> 64);
}

// register64: the key's word mask, bit lo32(a * M[i]) >> 26 for every probe i < k (a = lo32(h)).
inline uint64_t Register64Mask(uint64_t h, uint32_t k) {
  const uint32_t a = static_cast<uint32_t>(h);
  uint64_t mask = 0;
  for (uint32_t i = 0; i < k; ++i) mask |= uint64_t{1} << ((a * detail::kMultipliers.m[i]) >> 26);
  return mask;
}

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SCALAR_PROBES_H_
