// SPDX-License-Identifier: Apache-2.0
// Internal: a spatial filter's geometry limits, which construction (lib/kinds/spatial.cc) and the
// file format (lib/formats/spatial.cc: a header is checked against them) share.
#ifndef SIMDBLOOM_LIB_KINDS_SPATIAL_GEOMETRY_H_
#define SIMDBLOOM_LIB_KINDS_SPATIAL_GEOMETRY_H_

#include <cstdint>

#include "kernels/spatial/spec.h"

namespace simdbloom {
namespace detail {
namespace spatial {

constexpr uint64_t kMaxBlocks = (uint64_t{1} << 32) - 1;

// Bytes per cell for `num_areas` labels: 1 up to SpatialSpec::kMaxAreasOneByte, else 2.
inline uint32_t CellBytesFor(uint32_t num_areas) {
  return num_areas <= SpatialSpec::kMaxAreasOneByte ? 1 : 2;
}

}  // namespace spatial
}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KINDS_SPATIAL_GEOMETRY_H_
