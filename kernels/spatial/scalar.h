// SPDX-License-Identifier: Apache-2.0
// The spatial filter's scalar cell code (spec.h): one key at a time, cell by cell. Production: the
// library's single-key calls and file checks (lib/kinds/spatial.cc); the oracle (reference.cc)
// applies it key by key as the "reference" target's spatial kernels, which the Highway kernels are
// tested against. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_SPATIAL_SCALAR_H_
#define SIMDBLOOM_KERNELS_SPATIAL_SCALAR_H_

#include <cstdint>

#include "kernels/bits.h"
#include "kernels/spatial/spec.h"

namespace simdbloom {
namespace scalar {

// Cell `c` of block `b`: little-endian u8 or u16 at cell index 64 b + c of the array.
inline uint32_t SpatialGetCell(const void* cells, const detail::SpatialParams& p, uint64_t index) {
  if (p.cell_bytes == 1) return static_cast<const uint8_t*>(cells)[index];
  const uint8_t* at = static_cast<const uint8_t*>(cells) + 2 * index;
  return static_cast<uint32_t>(at[0]) | (static_cast<uint32_t>(at[1]) << 8);
}
inline void SpatialSetCell(void* cells, const detail::SpatialParams& p, uint64_t index,
                           uint32_t v) {
  if (p.cell_bytes == 1) {
    static_cast<uint8_t*>(cells)[index] = static_cast<uint8_t>(v);
    return;
  }
  uint8_t* at = static_cast<uint8_t*>(cells) + 2 * index;
  at[0] = static_cast<uint8_t>(v);
  at[1] = static_cast<uint8_t>(v >> 8);
}

// Raises the key's k cells to `label`; returns how many were below it.
inline uint32_t SpatialInsertHash(void* cells, const detail::SpatialParams& p, uint64_t h,
                                  uint32_t label) {
  const uint64_t base = 64 * detail::BlockIndex(h, p.num_blocks);
  uint32_t raised = 0;
  for (uint32_t i = 0; i < p.k; ++i) {
    const uint64_t at = base + detail::SpatialCellOf(h, i);
    if (SpatialGetCell(cells, p, at) < label) {
      SpatialSetCell(cells, p, at, label);
      ++raised;
    }
  }
  return raised;
}

// The smallest of the key's k cells (0 if one is empty).
inline uint32_t SpatialClassifyHash(const void* cells, const detail::SpatialParams& p, uint64_t h) {
  const uint64_t base = 64 * detail::BlockIndex(h, p.num_blocks);
  uint32_t label = 0xFFFF;
  for (uint32_t i = 0; i < p.k; ++i) {
    const uint32_t c = SpatialGetCell(cells, p, base + detail::SpatialCellOf(h, i));
    if (c < label) label = c;
  }
  return label;
}

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPATIAL_SCALAR_H_
