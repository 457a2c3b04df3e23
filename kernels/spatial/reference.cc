// SPDX-License-Identifier: Apache-2.0
// The "reference" target's spatial kernels (SpatialReference, spec.h): the scalar cell code
// (scalar.h) applied key by key. The oracle the Highway kernels (kernels.cc) are tested against.
#include <cstring>

#include "kernels/interface.h"
#include "kernels/scalar/hash.h"
#include "kernels/spatial/scalar.h"
#include "kernels/spatial/spec.h"

namespace simdbloom {
namespace detail {
namespace {
uint64_t InsertRef(void* cells, SpatialParams p, const KeySource& keys, size_t n, uint16_t label) {
  uint64_t raised = 0;
  for (size_t i = 0; i < n; ++i) {
    raised += scalar::SpatialInsertHash(cells, p, scalar::HashOfKey(false, keys, i, p.seed), label);
  }
  return raised;
}
uint64_t ClassifyRef(const void* cells, SpatialParams p, const KeySource& keys, size_t n,
                     uint16_t* labels) {
  uint64_t found = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint16_t label = static_cast<uint16_t>(
        scalar::SpatialClassifyHash(cells, p, scalar::HashOfKey(false, keys, i, p.seed)));
    std::memcpy(labels + i, &label, sizeof(label));
    found += label != 0;
  }
  return found;
}
}  // namespace

const SpatialKernels& SpatialReference() {
  static constexpr SpatialKernels kernels = {&InsertRef, &ClassifyRef};
  return kernels;
}
}  // namespace detail
}  // namespace simdbloom
