// SPDX-License-Identifier: Apache-2.0
// The C API of FilterSet (simdbloom/filter_set.hpp): simdbloom_set_* over an array of filter
// handles.
#include "simdbloom/filter_set.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/capi/shim.h"

namespace simdbloom {
namespace capi {
namespace {

// The FilterSet of n_filters handles (each checked not NULL).
FilterSet SetOf(const simdbloom_filter* const* filters, size_t n_filters) {
  CheckArray(filters, n_filters, sizeof(void*), "filters", "n_filters");
  if (n_filters > static_cast<size_t>(INT32_MAX)) {
    Reject("n_filters = " + std::to_string(n_filters) + " exceeds 2^31 - 1");
  }
  std::vector<const Filter*> ptrs(n_filters);
  for (size_t i = 0; i < n_filters; ++i) {
    if (filters[i] == nullptr) Reject("filters[" + std::to_string(i) + "] is NULL");
    ptrs[i] = &filters[i]->filter;
  }
  return FilterSet(ptrs);
}

unsigned ThreadsOf(unsigned threads) { return std::max(1u, threads); }

// A per-key call (first, count): the set, the keys, `out` set when there are keys; *result (if
// not NULL) receives what call(set, keys) returns.
template <class T, class Call>
simdbloom_status PerKeyCall(const char* who, const simdbloom_filter* const* filters,
                            size_t n_filters, const simdbloom_keys* keys, const T* out,
                            uint64_t* result, const Call& call) {
  return Guard(who, [&] {
    const FilterSet set = SetOf(filters, n_filters);
    const Keys k = KeysOf(keys);
    NotNullIf(out, k.size(), "out", "keys->count");
    const uint64_t r = call(set, k);
    if (result != nullptr) *result = r;
  });
}

}  // namespace
}  // namespace capi
}  // namespace simdbloom

using simdbloom::capi::CheckArray;
using simdbloom::capi::Guard;
using simdbloom::capi::KeysOf;
using simdbloom::capi::NotNullIf;
using simdbloom::capi::SetOf;

simdbloom_status simdbloom_set_contains(const simdbloom_filter* const* filters, size_t n_filters,
                                        const simdbloom_keys* keys, unsigned threads,
                                        uint32_t* filter_index, uint32_t* key_index,
                                        size_t capacity, uint64_t* matches) {
  return Guard("simdbloom_set_contains", [&] {
    const simdbloom::FilterSet set = SetOf(filters, n_filters);
    const simdbloom::Keys k = KeysOf(keys);
    simdbloom::capi::NotNull(matches, "matches");
    CheckArray(filter_index, capacity, sizeof(uint32_t), "filter_index", "capacity");
    CheckArray(key_index, capacity, sizeof(uint32_t), "key_index", "capacity");
    std::vector<simdbloom::FilterSet::Match> found;
    const uint64_t total =
        set.contains(k, found, simdbloom::Threads{simdbloom::capi::ThreadsOf(threads)});
    const size_t written = static_cast<size_t>(std::min<uint64_t>(total, capacity));
    for (size_t i = 0; i < written; ++i) {
      filter_index[i] = found[i].filter;
      key_index[i] = found[i].key;
    }
    *matches = total;
  });
}

// Defines simdbloom_set_<op>(filters, n_filters, keys, threads, OutT* out, uint64_t* result):
// FilterSet::op(keys, out, Threads) over the filters, its return value into *result.
#define SIMDBLOOM_CAPI_SET_PER_KEY(op, OutT, result)                                            \
  simdbloom_status simdbloom_set_##op(const simdbloom_filter* const* filters, size_t n_filters, \
                                      const simdbloom_keys* keys, unsigned threads, OutT* out,  \
                                      uint64_t* result) {                                       \
    return simdbloom::capi::PerKeyCall(                                                         \
        "simdbloom_set_" #op, filters, n_filters, keys, out, result,                            \
        [&](const simdbloom::FilterSet& set, const simdbloom::Keys& k) {                        \
          return set.op(k, out, simdbloom::Threads{simdbloom::capi::ThreadsOf(threads)});       \
        });                                                                                     \
  }

SIMDBLOOM_CAPI_SET_PER_KEY(first, int32_t, hits)
SIMDBLOOM_CAPI_SET_PER_KEY(count, uint32_t, total)
