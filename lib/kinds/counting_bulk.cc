// SPDX-License-Identifier: Apache-2.0
// CountingFilter's bulk calls: the counting kernels (kernels/counting/) through the bulk driver
// (lib/core/driver.h).
#include <algorithm>

#include "kernels/counting/spec.h"
#include "kernels/dispatch.h"
#include "lib/core/driver.h"
#include "simdbloom/counting.hpp"

namespace simdbloom {
namespace detail {

// CountingFilter for the bulk driver: its geometry's kernels and tuner row, XXH64 keys.
struct CountingBulk
    : KindBulk<CountingFilter, CountingSpec::kXxh64, CountingKernels, Params, KeyKind::kU64> {
  static TuneTarget Tune(const Filter& f) {
    return TuneTarget::Of(f.layout() == CountingLayout::kBlocked ? TunedKind::counting_blocked
                                                                 : TunedKind::counting_classic,
                          f.size_bytes(), f.data() != nullptr, f.is_view());
  }
  static const Table& Kernels(const Filter& f) {
    return Active().For(static_cast<CountingId>(f.layout()));
  }
  static P ParamsOf(const Filter& f) {
    P p{f.num_blocks(), f.num_hashes(), f.seed()};
    p.query_prefetch_probes = QueryPrefetchProbes(
        f.layout() == CountingLayout::kClassic ? Layout::kClassic : Layout::kRegister64,
        f.size_bytes());
    return p;
  }
  // Inserts and removes run after CheckWritable: the counters are the filter's own.
  static uint64_t Run(const Table& k, const Filter& f, const BulkCall& c, const P& p,
                      const KeySource& s, size_t m, void* out) {
    const auto* counters = reinterpret_cast<const uint64_t*>(f.data());
    switch (c.op) {
      case BulkOp::kInsert:
        return k.insert(const_cast<uint64_t*>(counters), p, s, m, static_cast<uint8_t*>(out));
      case BulkOp::kRemove:
        return k.remove(const_cast<uint64_t*>(counters), p, s, m, static_cast<uint8_t*>(out));
      case BulkOp::kCount:
        return k.count(counters, p, s, m, static_cast<uint8_t*>(out));
      default:
        return k.contains(counters, p, s, m, ResultOf(c.form), out);
    }
  }
};

}  // namespace detail

using detail::BulkOp;
using detail::Form;
using Bulk = detail::CountingBulk;

uint64_t CountingFilter::insert(const Keys& keys, uint8_t* fresh) {
  CheckWritable("insert");
  if (keys.size() == 0) return 0;
  detail::KeyPlan plan;
  const uint64_t r = detail::RunBulk<Bulk>(
      *this, keys, {"CountingFilter::insert", BulkOp::kInsert, Form::kFlags, fresh}, &plan);
  keys_.Set(plan.type);
  present_ += keys.size();
  return r;
}

uint64_t CountingFilter::remove(const Keys& keys, uint8_t* removed) {
  CheckWritable("remove");
  // Planned as an insert: values out of a kInt32 filter's range refused (a remove of them could
  // not be undone).
  const uint64_t r = detail::RunBulk<Bulk>(
      *this, keys, {"CountingFilter::remove", BulkOp::kRemove, Form::kFlags, removed});
  present_ -= std::min(present_, r);  // never below 0 (saturated keys removed too often)
  return r;
}

uint64_t CountingFilter::contains(const Keys& keys, uint8_t* out) const {
  return detail::RunBulk<Bulk>(*this, keys,
                               {"CountingFilter::contains", BulkOp::kQuery, Form::kBytes, out});
}
uint64_t CountingFilter::contains_bitmap(const Keys& keys, uint8_t* bitmap) const {
  return detail::RunBulk<Bulk>(
      *this, keys, {"CountingFilter::contains_bitmap", BulkOp::kQuery, Form::kBitmap, bitmap});
}
uint64_t CountingFilter::select(const Keys& keys, uint32_t* selection) const {
  return detail::RunBulk<Bulk>(
      *this, keys, {"CountingFilter::select", BulkOp::kQuery, Form::kSelection, selection});
}
uint64_t CountingFilter::count(const Keys& keys, uint8_t* out) const {
  return detail::RunBulk<Bulk>(*this, keys,
                               {"CountingFilter::count", BulkOp::kCount, Form::kCounts, out});
}
uint64_t CountingFilter::contains(const Keys& keys, uint8_t* out, Threads threads) const {
  return detail::RunBulk<Bulk>(
      *this, keys, {"CountingFilter::contains", BulkOp::kQuery, Form::kBytes, out, threads.count});
}
uint64_t CountingFilter::count(const Keys& keys, uint8_t* out, Threads threads) const {
  return detail::RunBulk<Bulk>(
      *this, keys, {"CountingFilter::count", BulkOp::kCount, Form::kCounts, out, threads.count});
}

}  // namespace simdbloom
