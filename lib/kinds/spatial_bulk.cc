// SPDX-License-Identifier: Apache-2.0
// SpatialFilter's bulk calls: the spatial kernels (kernels/spatial/) through the bulk driver
// (lib/core/driver.h).
#include "kernels/dispatch.h"
#include "kernels/spatial/spec.h"
#include "lib/core/driver.h"
#include "simdbloom/spatial.hpp"

namespace simdbloom {
namespace detail {

// SpatialFilter for the bulk driver: the target's spatial kernels, its cell width as the tuner's
// variant, XXH64 keys; the first-use measurement classifies hashes.
struct SpatialBulk : KindBulk<SpatialFilter, SpatialSpec::kXxh64, SpatialKernels, SpatialParams,
                              KeyKind::kHashes> {
  static TuneTarget Tune(const Filter& f) {
    return TuneTarget::Of(TunedKind::spatial, f.size_bytes(), f.data() != nullptr, false,
                          static_cast<int>(f.cell_bytes()) - 1);
  }
  static const Table& Kernels(const Filter&) { return Active().spatial; }
  static P ParamsOf(const Filter& f) {
    P p{f.num_blocks(), f.num_hashes(), f.cell_bytes()};
    p.seed = f.seed();
    return p;
  }
  // Inserts run after CheckLabel: the cells are the filter's own.
  static uint64_t Run(const Table& k, const Filter& f, const BulkCall& c, const P& p,
                      const KeySource& s, size_t m, void* out) {
    if (c.op == BulkOp::kInsert) return k.insert(const_cast<uint8_t*>(f.data()), p, s, m, c.label);
    return k.classify(f.data(), p, s, m, static_cast<uint16_t*>(out));
  }
};

}  // namespace detail

using detail::BulkOp;
using detail::Form;

uint64_t SpatialFilter::insert(uint16_t label, const Keys& keys) {
  const detail::BulkCall c{
      "SpatialFilter::insert", BulkOp::kInsert, Form::kFlags, nullptr, 1, label};
  CheckLabel(c.who, label);
  detail::KeyPlan plan;
  const uint64_t raised = detail::RunBulk<detail::SpatialBulk>(*this, keys, c, &plan);
  keys_.Set(plan.type);
  current_ = label;
  members_[label - 1] += keys.size();
  written_[label - 1] += raised;
  return raised;
}

uint64_t SpatialFilter::classify(const Keys& keys, uint16_t* labels) const {
  return detail::RunBulk<detail::SpatialBulk>(
      *this, keys, {"SpatialFilter::classify", BulkOp::kQuery, Form::kLabels, labels});
}
uint64_t SpatialFilter::classify(const Keys& keys, uint16_t* labels, Threads threads) const {
  return detail::RunBulk<detail::SpatialBulk>(
      *this, keys,
      {"SpatialFilter::classify", BulkOp::kQuery, Form::kLabels, labels, threads.count});
}

}  // namespace simdbloom
