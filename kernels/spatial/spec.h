// SPDX-License-Identifier: Apache-2.0
// The spatial Bloom filter's cell geometry (Calderoni, Palmieri, Maio 2015; lib/FORMAT.md,
// "Spatial filter"): constants, the kernel interface and the probe -> cell mapping shared by the
// scalar cell code (scalar.h), the Highway kernel (kernel-inl.h, kernels.cc) and the model
// (model.cc). Not a Filter layout: a SpatialFilter has its own class, file magic and kernel table.
#ifndef SIMDBLOOM_KERNELS_SPATIAL_SPEC_H_
#define SIMDBLOOM_KERNELS_SPATIAL_SPEC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/bits.h"
#include "kernels/interface.h"

namespace simdbloom {
namespace detail {

// A block is 64 cells: 8 groups of 8 cells. With 1-byte cells a block is one 64-byte line (group
// w = u64 word w); with 2-byte cells it is two adjacent lines (group w = u64 words 2w, 2w + 1).
// A key's k <= 8 cells lie in k distinct groups of one block (one cell per group), so they are
// always distinct and one (or two adjacent) cache lines hold all of them.
struct SpatialSpec {
  static constexpr const char* kName = "spatial";
  static constexpr bool kXxh64 = false;  // keys hashed with XXH3
  static constexpr uint32_t kCellsPerBlock = 64;
  static constexpr uint32_t kGroups = 8;
  static constexpr uint32_t kCellsPerGroup = 8;
  static constexpr uint32_t kMinK = 1, kMaxK = 8;
  static constexpr uint32_t kMaxAreas = 65535;
  // Areas up to this many use 1-byte cells, more use 2-byte cells.
  static constexpr uint32_t kMaxAreasOneByte = 255;
};

// Geometry of a spatial filter, passed by value to kernels.
struct SpatialParams {
  uint64_t num_blocks;  // 1 .. 2^32 - 1
  uint32_t k;           // 1 .. 8
  uint32_t cell_bytes;  // 1 or 2
  // Keys between a software prefetch of a key's line(s) and its use; 0: none. Never changes
  // results.
  uint32_t prefetch_distance = 0;
  uint64_t seed = 0;  // of XXH3, for keys the kernels hash (KeySource other than kHashes)

  // The same as the tile pipeline's parameters (the spatial cell is a layout of it).
  Params Geometry() const {
    Params p{num_blocks, k, seed};
    p.prefetch_distance = prefetch_distance;
    return p;
  }
};

// Bulk kernels over a KeySource (kernels/interface.h: u64, u32, pre-hashed or byte-string keys,
// hashed with XXH3 and p.seed as Filter's block512). `cells` is the 64-byte-aligned cell array;
// keys and `labels` may be unaligned. None allocates.
struct SpatialKernels {
  // For each key in order, every one of its k cells becomes max(cell, label). Returns how many
  // cells were raised (a cell raised by two keys of one call counts once per raise).
  uint64_t (*insert)(void* cells, SpatialParams p, const KeySource& keys, size_t n, uint16_t label);
  // labels[i] = the smallest of key i's k cells (0: some cell is empty, the key is in no area).
  // Returns how many labels are non-zero.
  uint64_t (*classify)(const void* cells, SpatialParams p, const KeySource& keys, size_t n,
                       uint16_t* labels);
  // One key of 1-byte cells: the smallest of hash h's k cells in its 64-byte `block`
  // (SpatialFilter's one-key path out of line, SpatialClassifyOutOfLine: callers compiled without
  // AVX2, string keys, classify_hash). Null where a vector does not beat the scalar loop (targets
  // below x86 AVX2, the reference): the scalar loop then.
  uint32_t (*classify_one)(const uint8_t* block, uint64_t h, uint32_t k) = nullptr;
};
// Entry `table_index` of the per-target table (kernels/spatial/kernels.cc, kernels/simd/export.h),
// read by kernels/dispatch.cc.
const SpatialKernels* SpatialKernelsAt(size_t table_index);
// The "reference" target's table: the scalar cell code (scalar.h) key by key (reference.cc).
const SpatialKernels& SpatialReference();

// Probe i (< k) of hash h: group (w0 + i) mod 8 with w0 = hi32(h) mod 8; within the group, cell
// lo32(lo32(h) * M[group]) >> 29 (M of kernels/bits.h). Returns the cell's index in its block.
inline uint32_t SpatialCellOf(uint64_t h, uint32_t i) {
  const uint32_t a = static_cast<uint32_t>(h);
  const uint32_t w = (static_cast<uint32_t>(h >> 32) + i) & 7;
  return 8 * w + ((a * kMultipliers.m[w]) >> 29);
}

// ---- Model (model.cc; lib/FORMAT.md "Spatial filter: formulas") ----
// Probability that all k cells of a query (k distinct groups, one uniform cell each) are written by
// a Poisson(lambda) number of keys of their block: the false-positive rate of the blocked filter
// with lambda keys per block, by inclusion-exclusion over the query's cells.
double SpatialAllWritten(uint32_t k, double lambda);
// Probability that one given cell is written by none of Poisson(lambda) keys: exp(-lambda k / 64).
double SpatialCellUntouched(uint32_t k, double lambda);

// The paper's per-area a-priori quantities for the blocked geometry, from the members per area
// (members[i] = keys of label i + 1) in num_blocks blocks with k cells per key.
struct SpatialAreaModel {
  double emersion;        // a cell written by the area keeps its label: exp(-lambda_{>i} k / 64)
  double fpp;             // a key in no area is classified as this area
  double isep;            // a key of this area is classified as a higher area
  double expected_cells;  // cells holding the label after every insert
};
std::vector<SpatialAreaModel> SpatialModel(const std::vector<uint64_t>& members,
                                           uint64_t num_blocks, uint32_t k);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPATIAL_SPEC_H_
