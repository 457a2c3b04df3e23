// SPDX-License-Identifier: Apache-2.0
// The spatial filter's per-target compilation unit: its kernel table (kernel-inl.h) compiled once
// per Highway target and exported (kernels/simd/export.h), read by kernels/dispatch.cc
// (detail::SpatialKernelsFor); and the reference target's table (reference.h), plain C++.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/spatial/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/spatial/kernel-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
const detail::SpatialKernels* SpatialKernels() {
  static constexpr detail::SpatialKernels kernels = {&SpatialInsert, &SpatialClassify};
  return &kernels;
}
}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "kernels/simd/export.h"
#include "kernels/spatial/reference.h"

namespace simdbloom {
SIMDBLOOM_EXPORT_TABLE(const detail::SpatialKernels*, SpatialKernels)
namespace detail {
const SpatialKernels* SpatialKernelsAt(size_t table_index) {
  return SpatialKernelsTable[table_index]();
}
}  // namespace detail

namespace ref {
namespace {
uint64_t InsertRef(void* cells, detail::SpatialParams p, const detail::KeySource& keys, size_t n,
                   uint16_t label) {
  uint64_t raised = 0;
  for (size_t i = 0; i < n; ++i) {
    raised += SpatialInsertHash(cells, p, HashOfKey(false, keys, i, p.seed), label);
  }
  return raised;
}
uint64_t ClassifyRef(const void* cells, detail::SpatialParams p, const detail::KeySource& keys,
                     size_t n, uint16_t* labels) {
  uint64_t found = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint16_t label =
        static_cast<uint16_t>(SpatialClassifyHash(cells, p, HashOfKey(false, keys, i, p.seed)));
    std::memcpy(labels + i, &label, sizeof(label));
    found += label != 0;
  }
  return found;
}
}  // namespace

const detail::SpatialKernels& SpatialKernelsRef() {
  static constexpr detail::SpatialKernels kernels = {&InsertRef, &ClassifyRef};
  return kernels;
}
}  // namespace ref
}  // namespace simdbloom
#endif  // HWY_ONCE
