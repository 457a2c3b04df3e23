// SPDX-License-Identifier: Apache-2.0
// The C API of the kinds besides the plain filter (simdbloom.h, "The other kinds of filter"):
// counting, scalable, spatial, ShBF_A and ShBF_x. Shims over lib/capi/shim.h: each checks every
// argument, then calls the C++ class under Guard.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "lib/capi/shim.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.h"
#include "simdbloom/spatial.hpp"

static_assert(SIMDBLOOM_COUNTING_BLOCKED == static_cast<int>(simdbloom::CountingLayout::kBlocked) &&
                  SIMDBLOOM_COUNTING_CLASSIC ==
                      static_cast<int>(simdbloom::CountingLayout::kClassic),
              "SIMDBLOOM_COUNTING_* differ from simdbloom::CountingLayout");
static_assert(SIMDBLOOM_SHBF_ONLY_FIRST == simdbloom::ShiftingAssociation::kOnlyFirst &&
                  SIMDBLOOM_SHBF_BOTH == simdbloom::ShiftingAssociation::kBoth &&
                  SIMDBLOOM_SHBF_ONLY_SECOND == simdbloom::ShiftingAssociation::kOnlySecond,
              "SIMDBLOOM_SHBF_* differ from simdbloom::ShiftingAssociation");
static_assert(simdbloom::ScalableOptions().growth == SIMDBLOOM_SCALABLE_GROWTH &&
                  simdbloom::ScalableOptions().tightening == SIMDBLOOM_SCALABLE_TIGHTENING,
              "SIMDBLOOM_SCALABLE_* differ from simdbloom::ScalableOptions' defaults");

namespace simdbloom {
namespace capi {
namespace {

CountingLayout CountingLayoutOf(int layout) {
  if (layout != SIMDBLOOM_COUNTING_BLOCKED && layout != SIMDBLOOM_COUNTING_CLASSIC) {
    Reject("layout " + std::to_string(layout) + " is not a counting layout (1 blocked, 2 classic)");
  }
  return static_cast<CountingLayout>(layout);
}

uint16_t LabelOf(uint32_t label) {
  if (label < 1 || label > 65535) {
    Reject("label " + std::to_string(label) + " is outside 1..65535 (and 1..num_areas)");
  }
  return static_cast<uint16_t>(label);
}

uint8_t MembershipOf(int membership) {
  if (membership != SIMDBLOOM_SHBF_ONLY_FIRST && membership != SIMDBLOOM_SHBF_BOTH &&
      membership != SIMDBLOOM_SHBF_ONLY_SECOND) {
    Reject("membership " + std::to_string(membership) +
           " is not SIMDBLOOM_SHBF_ONLY_FIRST (1), _BOTH (2) or _ONLY_SECOND (4)");
  }
  return static_cast<uint8_t>(membership);
}

// A constructor: checks `out`, then stores the handle of make() into it.
template <class H, class Make>
simdbloom_status Create(const char* who, H** out, Make&& make) noexcept {
  return Guard(who, [&] {
    NotNull(out, "out");
    Wrap(make(), out);
  });
}

// A one-key call: fn(filter, key) once the filter, the key and `out` (named out_name; optional
// when out_name is null) are checked.
template <class H, class Fn>
simdbloom_status One(const char* who, H* handle, const void* key, size_t length, const void* out,
                     const char* out_name, Fn&& fn) noexcept {
  return Call(who, handle, [&](auto& f) {
    const std::string_view k = OneKey(key, length);
    if (out_name != nullptr) NotNull(out, out_name);
    fn(f, k);
  });
}

// The _u64 bulk calls: fn(filter, keys) once the filter, the n keys and `out` (n entries of
// `size` bytes; unchecked when size is 0) are checked.
template <class H, class Fn>
simdbloom_status U64(const char* who, H* handle, const uint64_t* keys, size_t n, const void* out,
                     size_t size, Fn&& fn) noexcept {
  return Call(who, handle, [&](auto& f) {
    const Keys k = U64Keys(keys, n);
    if (size != 0) CheckArray(out, n, size, "out", "n");
    fn(f, k);
  });
}

// A stage index of a chain.
void CheckStage(const ScalableFilter& f, size_t i) {
  if (i >= f.stages()) {
    Reject("i = " + std::to_string(i) + " is not below simdbloom_scalable_stages, " +
           std::to_string(f.stages()));
  }
}

// Sets *p to v if p is not null (the optional outputs of the one-key calls).
template <class T, class V>
void Put(T* p, V v) {
  if (p != nullptr) *p = static_cast<T>(v);
}

// ---- The key families, one line each (below, per kind) ----
// The C++ call's total as the _keys calls report it (0 for calls that return nothing).
template <class Fn>
uint64_t Total(Fn&& fn) {
  if constexpr (std::is_void<decltype(fn())>::value) {
    fn();
    return 0;
  } else {
    return fn();
  }
}

}  // namespace
}  // namespace capi
}  // namespace simdbloom

// Defines simdbloom_<kind>_<op>_one, _u64 and _keys over the const C++ calls f.op(key) and
// f.op(keys, out): _one(filter, key, length, OneT* one_out) sets *one_out; _u64(filter, keys, n,
// BulkT* out) and _keys(filter, keys, BulkT* bulk_out[, uint64_t* total]) fill the array; _keys
// stores f.op's return in *total when the family has one (SIMDBLOOM_CAPI_QUERY_TOTAL).
#define SIMDBLOOM_CAPI_QUERY_ONE_U64(kind, op, OneT, one_out, BulkT)                              \
  simdbloom_status simdbloom_##kind##_##op##_one(const simdbloom_##kind* filter, const void* key, \
                                                 size_t length, OneT* one_out) {                  \
    return One("simdbloom_" #kind "_" #op "_one", filter, key, length, one_out, #one_out,         \
               [&](const auto& f, std::string_view k) { *one_out = f.op(k); });                   \
  }                                                                                               \
  simdbloom_status simdbloom_##kind##_##op##_u64(const simdbloom_##kind* filter,                  \
                                                 const uint64_t* keys, size_t n, BulkT* out) {    \
    return U64("simdbloom_" #kind "_" #op "_u64", filter, keys, n, out, sizeof(BulkT),            \
               [&](const auto& f, Keys k) { f.op(k, out); });                                     \
  }
#define SIMDBLOOM_CAPI_QUERY_KEYS(kind, op, BulkT, bulk_out, total, ...)                         \
  simdbloom_status simdbloom_##kind##_##op##_keys(                                               \
      const simdbloom_##kind* filter, const simdbloom_keys* keys, BulkT* bulk_out __VA_ARGS__) { \
    return KeysCall(                                                                             \
        "simdbloom_" #kind "_" #op "_keys", filter, keys, bulk_out, #bulk_out, total,            \
        [&](Keys k) { return Total([&] { return filter->filter.op(k, bulk_out); }); });          \
  }
#define SIMDBLOOM_CAPI_QUERY(kind, op, OneT, one_out, BulkT, bulk_out) \
  SIMDBLOOM_CAPI_QUERY_ONE_U64(kind, op, OneT, one_out, BulkT)         \
  SIMDBLOOM_CAPI_QUERY_KEYS(kind, op, BulkT, bulk_out, nullptr, )
#define SIMDBLOOM_CAPI_QUERY_TOTAL(kind, op, OneT, one_out, BulkT, bulk_out, total) \
  SIMDBLOOM_CAPI_QUERY_ONE_U64(kind, op, OneT, one_out, BulkT)                      \
  SIMDBLOOM_CAPI_QUERY_KEYS(kind, op, BulkT, bulk_out, total, , uint64_t* total)

// Defines simdbloom_<kind>_insert_one(filter, key, length, uint8_t* fresh), _insert_u64(filter,
// keys, n) and _insert_keys(filter, keys, uint8_t* fresh, uint64_t* changed) over f.insert(key),
// f.insert(keys) and f.insert(keys, fresh): fresh (optional) says which keys were new.
#define SIMDBLOOM_CAPI_INSERT_FRESH(kind)                                                         \
  simdbloom_status simdbloom_##kind##_insert_one(simdbloom_##kind* filter, const void* key,       \
                                                 size_t length, uint8_t* fresh) {                 \
    return One("simdbloom_" #kind "_insert_one", filter, key, length, nullptr, nullptr,           \
               [&](auto& f, std::string_view k) { Put(fresh, f.insert(k)); });                    \
  }                                                                                               \
  simdbloom_status simdbloom_##kind##_insert_u64(simdbloom_##kind* filter, const uint64_t* keys,  \
                                                 size_t n) {                                      \
    return U64("simdbloom_" #kind "_insert_u64", filter, keys, n, nullptr, 0,                     \
               [](auto& f, Keys k) { f.insert(k); });                                             \
  }                                                                                               \
  simdbloom_status simdbloom_##kind##_insert_keys(                                                \
      simdbloom_##kind* filter, const simdbloom_keys* keys, uint8_t* fresh, uint64_t* changed) {  \
    return KeysCall(                                                                              \
        "simdbloom_" #kind "_insert_keys", filter, keys, nullptr, nullptr, changed, [&](Keys k) { \
          return fresh != nullptr ? filter->filter.insert(k, fresh) : filter->filter.insert(k);   \
        });                                                                                       \
  }

// Defines simdbloom_<kind>_insert_one(filter, key, length, ArgT arg), _insert_u64(filter, keys,
// n, ArgT arg) and _insert_keys(filter, keys, ArgT arg) over f.insert(key or keys, conv(arg)),
// conv checking arg once the filter and keys are.
#define SIMDBLOOM_CAPI_INSERT_WITH(kind, ArgT, arg, conv)                                         \
  simdbloom_status simdbloom_##kind##_insert_one(simdbloom_##kind* filter, const void* key,       \
                                                 size_t length, ArgT arg) {                       \
    return One("simdbloom_" #kind "_insert_one", filter, key, length, nullptr, nullptr,           \
               [&](auto& f, std::string_view k) { f.insert(k, conv(arg)); });                     \
  }                                                                                               \
  simdbloom_status simdbloom_##kind##_insert_u64(simdbloom_##kind* filter, const uint64_t* keys,  \
                                                 size_t n, ArgT arg) {                            \
    return U64("simdbloom_" #kind "_insert_u64", filter, keys, n, nullptr, 0,                     \
               [&](auto& f, Keys k) { f.insert(k, conv(arg)); });                                 \
  }                                                                                               \
  simdbloom_status simdbloom_##kind##_insert_keys(simdbloom_##kind* filter,                       \
                                                  const simdbloom_keys* keys, ArgT arg) {         \
    return KeysCall("simdbloom_" #kind "_insert_keys", filter, keys, nullptr, nullptr, nullptr,   \
                    [&](Keys k) { return Total([&] { filter->filter.insert(k, conv(arg)); }); }); \
  }

using namespace simdbloom::capi;  // NOLINT: the shims below are its only users
using simdbloom::CountingFilter;
using simdbloom::Keys;
using simdbloom::ScalableFilter;
using simdbloom::ShiftingAssociation;
using simdbloom::ShiftingMultiplicity;
using simdbloom::SpatialFilter;

extern "C" {

// ---- Counting ----

simdbloom_status simdbloom_counting_create(uint64_t expected_items, double fpp, int layout,
                                           uint64_t seed, simdbloom_counting** out) {
  return Create("simdbloom_counting_create", out, [&] {
    return CountingFilter::create(expected_items, fpp, CountingLayoutOf(layout), seed);
  });
}

simdbloom_status simdbloom_counting_with_counters(uint64_t counters, uint32_t k, int layout,
                                                  uint64_t seed, simdbloom_counting** out) {
  return Create("simdbloom_counting_with_counters", out, [&] {
    return CountingFilter::with_counters(counters, k, CountingLayoutOf(layout), seed);
  });
}

SIMDBLOOM_CAPI_INSERT_FRESH(counting)
SIMDBLOOM_CAPI_QUERY_TOTAL(counting, contains, uint8_t, out, uint8_t, out, hits)
SIMDBLOOM_CAPI_QUERY_TOTAL(counting, count, uint32_t, out, uint8_t, out, sum)

simdbloom_status simdbloom_counting_remove_one(simdbloom_counting* filter, const void* key,
                                               size_t length, uint8_t* removed) {
  return One("simdbloom_counting_remove_one", filter, key, length, nullptr, nullptr,
             [&](CountingFilter& f, std::string_view k) {
               // 0 absent, 1 removed, 2 removed with every counter saturated (none changed).
               Put(removed, static_cast<uint8_t>(f.remove_hash(f.hash(k))));
             });
}

simdbloom_status simdbloom_counting_remove_u64(simdbloom_counting* filter, const uint64_t* keys,
                                               size_t n, uint8_t* removed) {
  return U64("simdbloom_counting_remove_u64", filter, keys, n, nullptr, 0,
             [&](CountingFilter& f, Keys k) { f.remove(k, removed); });
}

simdbloom_status simdbloom_counting_remove_keys(simdbloom_counting* filter,
                                                const simdbloom_keys* keys, uint8_t* removed,
                                                uint64_t* count) {
  return KeysCall("simdbloom_counting_remove_keys", filter, keys, nullptr, nullptr, count,
                  [&](Keys k) { return filter->filter.remove(k, removed); });
}

simdbloom_status simdbloom_counting_to_filter(const simdbloom_counting* filter,
                                              simdbloom_filter** out) {
  return Call("simdbloom_counting_to_filter", filter, [&](const CountingFilter& f) {
    NotNull(out, "out");
    Wrap(f.to_filter(), out);
  });
}

simdbloom_status simdbloom_counting_merge(simdbloom_counting* filter,
                                          const simdbloom_counting* other) {
  return Pair("simdbloom_counting_merge", filter, other,
              [](auto& f, const auto& o) { f.merge(o); });
}

int simdbloom_counting_compatible(const simdbloom_counting* a, const simdbloom_counting* b) {
  return Predicate("simdbloom_counting_compatible", a, b,
                   [](const auto& x, const auto& y) { return x.compatible(y); });
}

simdbloom_status simdbloom_counting_clear(simdbloom_counting* filter) {
  return Call("simdbloom_counting_clear", filter, [](CountingFilter& f) { f.clear(); });
}

SIMDBLOOM_CAPI_GETTER(int, simdbloom_counting, simdbloom_counting_layout, f.layout())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_counting, simdbloom_counting_num_blocks, f.num_blocks())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_counting, simdbloom_counting_counter_count,
                      f.counter_count())
SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_counting, simdbloom_counting_num_hashes, f.num_hashes())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_counting, simdbloom_counting_seed, f.seed())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_counting, simdbloom_counting_size, f.size())
SIMDBLOOM_CAPI_GETTER(size_t, simdbloom_counting, simdbloom_counting_size_bytes, f.size_bytes())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_counting, simdbloom_counting_saturated_count,
                      f.saturated_count())
SIMDBLOOM_CAPI_GETTER(int, simdbloom_counting, simdbloom_counting_is_view, f.is_view())

double simdbloom_counting_predicted_fpp(const simdbloom_counting* filter, uint64_t n) {
  return Get("simdbloom_counting_predicted_fpp", filter, 0.0,
             [n](const CountingFilter& f) { return f.predicted_fpp(n); });
}

SIMDBLOOM_CAPI_PERSISTENCE(counting)
SIMDBLOOM_CAPI_KEY_TYPE(counting)

simdbloom_status simdbloom_counting_view(const void* data, size_t size, int verify_checksum,
                                         simdbloom_counting** out) {
  return Guard("simdbloom_counting_view", [&] {
    NotNull(data, "data");
    CheckArray(data, size, 1, "data", "size");
    NotNull(out, "out");
    Wrap(CountingFilter::view(static_cast<const uint8_t*>(data), size, verify_checksum != 0), out);
  });
}

simdbloom_status simdbloom_counting_map_file(const char* path, int verify_checksum,
                                             simdbloom_counting** out) {
  return MapFile("simdbloom_counting_map_file", path, verify_checksum, out);
}

// ---- Scalable ----

simdbloom_status simdbloom_scalable_create(uint64_t initial_capacity, double fpp, int layout,
                                           uint64_t seed, double growth, double tightening,
                                           simdbloom_scalable** out) {
  return Create("simdbloom_scalable_create", out, [&] {
    simdbloom::ScalableOptions options;
    options.growth = growth;
    options.tightening = tightening;
    options.layout = LayoutOf(layout);
    options.seed = seed;
    return ScalableFilter::create(initial_capacity, fpp, options);
  });
}

SIMDBLOOM_CAPI_INSERT_FRESH(scalable)
SIMDBLOOM_CAPI_QUERY_TOTAL(scalable, contains, uint8_t, out, uint8_t, out, hits)

simdbloom_status simdbloom_scalable_merge(simdbloom_scalable* filter,
                                          const simdbloom_scalable* other) {
  return Pair("simdbloom_scalable_merge", filter, other,
              [](auto& f, const auto& o) { f.merge(o); });
}

int simdbloom_scalable_can_merge(const simdbloom_scalable* a, const simdbloom_scalable* b) {
  return Predicate("simdbloom_scalable_can_merge", a, b,
                   [](const auto& x, const auto& y) { return x.can_merge(y); });
}

simdbloom_status simdbloom_scalable_clear(simdbloom_scalable* filter) {
  return Call("simdbloom_scalable_clear", filter, [](ScalableFilter& f) { f.clear(); });
}

simdbloom_status simdbloom_scalable_stage(const simdbloom_scalable* filter, size_t i,
                                          simdbloom_filter** out) {
  return Call("simdbloom_scalable_stage", filter, [&](const ScalableFilter& f) {
    CheckStage(f, i);
    NotNull(out, "out");
    Wrap(simdbloom::Filter(f.stage(i)), out);
  });
}

simdbloom_status simdbloom_scalable_stage_info(const simdbloom_scalable* filter, size_t i,
                                               uint64_t* count, uint64_t* capacity, double* fpp) {
  return Call("simdbloom_scalable_stage_info", filter, [&](const ScalableFilter& f) {
    CheckStage(f, i);
    Put(count, f.stage_count(i));
    Put(capacity, f.stage_capacity(i));
    Put(fpp, f.stage_fpp(i));
  });
}

SIMDBLOOM_CAPI_GETTER(int, simdbloom_scalable, simdbloom_scalable_layout, f.layout())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_scalable, simdbloom_scalable_seed, f.seed())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_scalable, simdbloom_scalable_initial_capacity,
                      f.initial_capacity())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_scalable, simdbloom_scalable_fpp, f.fpp())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_scalable, simdbloom_scalable_growth, f.growth())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_scalable, simdbloom_scalable_tightening, f.tightening())
SIMDBLOOM_CAPI_GETTER(size_t, simdbloom_scalable, simdbloom_scalable_stages, f.stages())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_scalable, simdbloom_scalable_count, f.count())
SIMDBLOOM_CAPI_GETTER(size_t, simdbloom_scalable, simdbloom_scalable_size_bytes, f.size_bytes())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_scalable, simdbloom_scalable_approximate_count,
                      f.approximate_count())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_scalable, simdbloom_scalable_expected_fpp, f.expected_fpp())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_scalable, simdbloom_scalable_bits_per_key, f.bits_per_key())

SIMDBLOOM_CAPI_PERSISTENCE(scalable)
SIMDBLOOM_CAPI_KEY_TYPE(scalable)

// ---- Spatial ----

simdbloom_status simdbloom_spatial_create(uint64_t expected_items, double fpp, uint32_t num_areas,
                                          uint64_t seed, simdbloom_spatial** out) {
  return Create("simdbloom_spatial_create", out,
                [&] { return SpatialFilter::create(expected_items, fpp, num_areas, seed); });
}

simdbloom_status simdbloom_spatial_with_blocks(uint64_t num_blocks, uint32_t k, uint32_t num_areas,
                                               uint64_t seed, simdbloom_spatial** out) {
  return Create("simdbloom_spatial_with_blocks", out,
                [&] { return SpatialFilter::with_blocks(num_blocks, k, num_areas, seed); });
}

simdbloom_status simdbloom_spatial_insert_one(simdbloom_spatial* filter, uint32_t label,
                                              const void* key, size_t length, uint64_t* raised) {
  return One(
      "simdbloom_spatial_insert_one", filter, key, length, nullptr, nullptr,
      [&](SpatialFilter& f, std::string_view k) { Put(raised, f.insert(LabelOf(label), k)); });
}

simdbloom_status simdbloom_spatial_insert_u64(simdbloom_spatial* filter, uint32_t label,
                                              const uint64_t* keys, size_t n, uint64_t* raised) {
  return U64("simdbloom_spatial_insert_u64", filter, keys, n, nullptr, 0,
             [&](SpatialFilter& f, Keys k) { Put(raised, f.insert(LabelOf(label), k)); });
}

simdbloom_status simdbloom_spatial_insert_keys(simdbloom_spatial* filter, uint32_t label,
                                               const simdbloom_keys* keys, uint64_t* raised) {
  return KeysCall("simdbloom_spatial_insert_keys", filter, keys, nullptr, nullptr, raised,
                  [&](Keys k) { return filter->filter.insert(LabelOf(label), k); });
}

SIMDBLOOM_CAPI_QUERY_TOTAL(spatial, classify, uint16_t, label, uint16_t, labels, labelled)

simdbloom_status simdbloom_spatial_stats(const simdbloom_spatial* filter, int measure,
                                         simdbloom_spatial_totals* totals,
                                         simdbloom_spatial_area* areas, size_t capacity) {
  return Call("simdbloom_spatial_stats", filter, [&](const SpatialFilter& f) {
    NotNull(totals, "totals");
    if (areas != nullptr) {
      if (capacity < f.num_areas()) {
        Reject("capacity " + std::to_string(capacity) + " is below num_areas, " +
               std::to_string(f.num_areas()));
      }
      CheckArray(areas, f.num_areas(), sizeof(simdbloom_spatial_area), "areas", "num_areas");
    }
    const simdbloom::SpatialStats s = f.stats(measure != 0);
    simdbloom_spatial_totals t;
    t.num_cells = s.num_cells;
    t.members = s.members;
    t.cell_bytes = s.cell_bytes;
    t.k = s.k;
    t.apriori_fpp = s.apriori_fpp;
    t.measured = s.measured ? 1 : 0;
    t.sparsity = s.sparsity;
    t.fpp = s.fpp;
    *totals = t;
    for (size_t i = 0; areas != nullptr && i < s.areas.size(); ++i) {
      const simdbloom::SpatialAreaStats& a = s.areas[i];
      simdbloom_spatial_area& c = areas[i];
      c.label = a.label;
      c.members = a.members;
      c.cells_written = a.cells_written;
      c.expected_emersion = a.expected_emersion;
      c.apriori_fpp = a.apriori_fpp;
      c.apriori_isep = a.apriori_isep;
      c.expected_cells = a.expected_cells;
      c.cells = a.cells;
      c.emersion = a.emersion;
      c.fpp = a.fpp;
    }
  });
}

SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_spatial, simdbloom_spatial_num_areas, f.num_areas())
SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_spatial, simdbloom_spatial_num_hashes, f.num_hashes())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_spatial, simdbloom_spatial_num_blocks, f.num_blocks())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_spatial, simdbloom_spatial_num_cells, f.num_cells())
SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_spatial, simdbloom_spatial_cell_bytes, f.cell_bytes())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_spatial, simdbloom_spatial_seed, f.seed())
SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_spatial, simdbloom_spatial_current_label,
                      f.current_label())
SIMDBLOOM_CAPI_GETTER(size_t, simdbloom_spatial, simdbloom_spatial_size_bytes, f.size_bytes())

uint64_t simdbloom_spatial_members(const simdbloom_spatial* filter, uint32_t label) {
  return Get("simdbloom_spatial_members", filter, uint64_t{0}, [label](const SpatialFilter& f) {
    return label > 65535 ? 0 : f.members(static_cast<uint16_t>(label));
  });
}

double simdbloom_spatial_predicted_fpp(const simdbloom_spatial* filter, uint64_t n) {
  return Get("simdbloom_spatial_predicted_fpp", filter, 0.0,
             [n](const SpatialFilter& f) { return f.predicted_fpp(n); });
}

SIMDBLOOM_CAPI_PERSISTENCE(spatial)
SIMDBLOOM_CAPI_KEY_TYPE(spatial)

// ---- ShBF_A ----

simdbloom_status simdbloom_shbf_a_create(uint64_t expected_items, double fpp, uint64_t seed,
                                         simdbloom_shbf_a** out) {
  return Create("simdbloom_shbf_a_create", out,
                [&] { return ShiftingAssociation::create(expected_items, fpp, seed); });
}

simdbloom_status simdbloom_shbf_a_with_bits(uint64_t bits, uint64_t seed, simdbloom_shbf_a** out) {
  return Create("simdbloom_shbf_a_with_bits", out,
                [&] { return ShiftingAssociation::with_bits(bits, seed); });
}

simdbloom_status simdbloom_shbf_a_build(const uint64_t* s1, size_t n1, const uint64_t* s2,
                                        size_t n2, double fpp, uint64_t seed,
                                        simdbloom_shbf_a** out) {
  return Create("simdbloom_shbf_a_build", out, [&] {
    CheckArray(s1, n1, sizeof(uint64_t), "s1", "n1");
    CheckArray(s2, n2, sizeof(uint64_t), "s2", "n2");
    return ShiftingAssociation::build({s1, n1}, {s2, n2}, fpp, seed);
  });
}

SIMDBLOOM_CAPI_INSERT_WITH(shbf_a, int, membership, MembershipOf)
SIMDBLOOM_CAPI_QUERY(shbf_a, query, uint8_t, out, uint8_t, out)

SIMDBLOOM_CAPI_GETTER(double, simdbloom_shbf_a, simdbloom_shbf_a_clear_answer_probability,
                      f.clear_answer_probability())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_shbf_a, simdbloom_shbf_a_paper_clear_answer_probability,
                      f.paper_clear_answer_probability())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_shbf_a, simdbloom_shbf_a_false_positive_probability,
                      f.false_positive_probability())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_a, simdbloom_shbf_a_items, f.items())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_a, simdbloom_shbf_a_num_blocks, f.num_blocks())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_a, simdbloom_shbf_a_bit_count, f.bit_count())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_a, simdbloom_shbf_a_seed, f.seed())

SIMDBLOOM_CAPI_PERSISTENCE(shbf_a)
SIMDBLOOM_CAPI_KEY_TYPE(shbf_a)

// ---- ShBF_x ----

simdbloom_status simdbloom_shbf_x_create(uint64_t expected_items, double fpp, uint32_t max_count,
                                         uint64_t seed, simdbloom_shbf_x** out) {
  return Create("simdbloom_shbf_x_create", out,
                [&] { return ShiftingMultiplicity::create(expected_items, fpp, max_count, seed); });
}

simdbloom_status simdbloom_shbf_x_with_bits(uint64_t bits, uint32_t max_count, uint64_t seed,
                                            simdbloom_shbf_x** out) {
  return Create("simdbloom_shbf_x_with_bits", out,
                [&] { return ShiftingMultiplicity::with_bits(bits, max_count, seed); });
}

simdbloom_status simdbloom_shbf_x_build(const uint64_t* keys, size_t n, double fpp,
                                        uint32_t max_count, uint64_t seed, simdbloom_shbf_x** out) {
  return Create("simdbloom_shbf_x_build", out, [&] {
    CheckArray(keys, n, sizeof(uint64_t), "keys", "n");
    return ShiftingMultiplicity::build({keys, n}, fpp, max_count, seed);
  });
}

SIMDBLOOM_CAPI_INSERT_WITH(shbf_x, uint32_t, count, uint32_t)
SIMDBLOOM_CAPI_QUERY(shbf_x, count, uint32_t, out, uint32_t, out)

simdbloom_status simdbloom_shbf_x_correct_probability(const simdbloom_shbf_x* filter,
                                                      uint32_t count, double* out) {
  return Call("simdbloom_shbf_x_correct_probability", filter, [&](const ShiftingMultiplicity& f) {
    NotNull(out, "out");
    if (count < 1 || count > f.max_count()) {
      Reject("count " + std::to_string(count) + " is outside 1..max_count (" +
             std::to_string(f.max_count()) + ")");
    }
    *out = f.correct_probability(count);
  });
}

SIMDBLOOM_CAPI_GETTER(double, simdbloom_shbf_x, simdbloom_shbf_x_false_positive_probability,
                      f.false_positive_probability())
SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_shbf_x, simdbloom_shbf_x_max_count, f.max_count())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_x, simdbloom_shbf_x_items, f.items())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_x, simdbloom_shbf_x_num_blocks, f.num_blocks())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_x, simdbloom_shbf_x_bit_count, f.bit_count())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_shbf_x, simdbloom_shbf_x_seed, f.seed())

SIMDBLOOM_CAPI_PERSISTENCE(shbf_x)
SIMDBLOOM_CAPI_KEY_TYPE(shbf_x)

}  // extern "C"
