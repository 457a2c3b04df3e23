// SPDX-License-Identifier: Apache-2.0
// Scalar probe formulas (lib/FORMAT.md) that more than one kind uses: classic's double hashing and
// register64's word mask, which the counting cells (kernels/counting/) reuse, so they live beneath
// every kind folder rather than in one of them. Target-free; the vector forms are in
// kernels/simd/probes-inl.h.
#ifndef SIMDBLOOM_KERNELS_SCALAR_PROBES_H_
#define SIMDBLOOM_KERNELS_SCALAR_PROBES_H_

#include <cstdint>

#include "simdbloom/detail/probes.hpp"

namespace simdbloom {
namespace scalar {

// classic: probe i is bit floor(g_i * m / 2^64), g_i = h + i * rotl(h, 32), m = 512 * num_blocks.
// g_{i+1} = g_i + ClassicStep(h).
// floor(g * m / 2^64), m = 512 * num_blocks bits. (Both written once, in the installed header's
// simdbloom/detail/probes.hpp, which the inline single-key path uses too.)
using detail::ClassicBit;
using detail::ClassicStep;

// register64: the key's word mask, bit lo32(a * M[i]) >> 26 for every probe i < k (a = lo32(h)).
using detail::Register64Mask;

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SCALAR_PROBES_H_
