// SPDX-License-Identifier: Apache-2.0
// simdbloom::FilterSet: one batch of keys against many filters in one call — the levels or runs
// of an LSM tree (a MultiGet batch), the row groups of Parquet files (WHERE id IN (...)), the
// partitions of a hash join. Each key is hashed once per hash of the set (filters of one hash
// family, seed and key type share it: XXH3 for every layout but split_block256, XXH64 seed 0 for
// all Parquet filters), never once per filter; the filters are then probed with those hashes,
// tile by tile (1024 keys), so the keys' hashes stay in L1 while every filter is probed. block512
// filters of one hash and one k (two or more) also share each key's in-block mask, computed once
// per 256 keys: a probe is then a block index, a line load and a compare (about half the
// instructions of a bulk call's probe, perf/README.md section many).
//
// Thread-safety: a FilterSet only reads its filters; its const calls may run concurrently with
// each other and with the filters' const calls, not with a mutation of one of its filters.
#ifndef SIMDBLOOM_FILTER_SET_HPP_
#define SIMDBLOOM_FILTER_SET_HPP_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "simdbloom/simdbloom.hpp"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace simdbloom {

// An ordered, non-owning set of plain filters (any layouts, sizes, seeds and key types). The
// filters must outlive the set and keep their address (a filter moved from afterwards makes every
// call throw, as its own calls would). Cheap to copy (a vector of pointers). Built once, reused
// for every batch.
//
// Every call answers exactly what separate bulk calls of each filter on the same keys answer
// (the same key-type rules: a key of the other kind than a filter's key type throws KeyTypeError,
// an integer out of a kInt32 filter's range is absent from it), for every key shape of Keys.
// Errors are detected before anything is written. Cost: O(n) hashes per distinct hash of the set
// plus O(n · M) probes (M filters); out of cache about one cache-line miss per (key, filter)
// (k for classic), overlapped by prefetch; O(M) per call to group the filters by hash (and
// block512 filters by k), and a scratch of 1024 x (8 bytes per distinct hash + 5 bytes), plus
// 256 x 64 bytes per block512 (hash, k) class and 16 KiB with any, allocated per call.
class FilterSet {
 public:
  // A key that may be in a filter: the indices of the filter (in set order) and of the key.
  struct Match {
    uint32_t filter;
    uint32_t key;
    bool operator==(const Match& o) const noexcept { return filter == o.filter && key == o.key; }
  };

  FilterSet() = default;
  // The filters, in set order. Throws Error(kInvalidArgument) for a null pointer or more than
  // 2^31 - 1 filters. O(M).
  explicit FilterSet(Span<const Filter* const> filters);
  FilterSet(std::initializer_list<const Filter*> filters);

  size_t size() const noexcept { return filters_.size(); }
  bool empty() const noexcept { return filters_.empty(); }
  const Filter& operator[](size_t i) const noexcept { return *filters_[i]; }

  // Every (filter, key) pair where the key may be in the filter, in key order, then filter order;
  // replaces out's contents and returns their number. keys.size() must be < 2^32 (32-bit key
  // indices). `out` grows as needed (its capacity is reused across calls).
  uint64_t contains(const Keys& keys, std::vector<Match>& out) const;
  uint64_t contains(const Keys& keys, std::vector<Match>& out, Threads threads) const;
  // out[i] = the index of the first filter in set order that may hold key i, -1 if none (an LSM
  // lookup newest level first). A key is probed against later filters only while no earlier
  // one matched. Returns how many keys matched a filter. `out` holds keys.size() entries.
  uint64_t first(const Keys& keys, int32_t* out) const;
  uint64_t first(const Keys& keys, int32_t* out, Threads threads) const;
  // out[i] = how many filters may hold key i. Returns the sum. `out` holds keys.size() entries.
  uint64_t count(const Keys& keys, uint32_t* out) const;
  uint64_t count(const Keys& keys, uint32_t* out, Threads threads) const;

 private:
  std::vector<const Filter*> filters_;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_FILTER_SET_HPP_
