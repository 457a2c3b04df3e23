// SPDX-License-Identifier: Apache-2.0
// The spatial filter's literal model (spec.h): one key at a time, cell by cell. The oracle the
// Highway kernels are tested against, and the "reference" target's spatial kernels.
#ifndef SIMDBLOOM_KERNELS_SPATIAL_REFERENCE_H_
#define SIMDBLOOM_KERNELS_SPATIAL_REFERENCE_H_

#include <cstring>

#include "kernels/spatial/spec.h"

namespace simdbloom {
namespace ref {

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

// The reference target's spatial kernels (loops over the two functions above).
const detail::SpatialKernels& SpatialKernelsRef();

}  // namespace ref
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPATIAL_REFERENCE_H_
