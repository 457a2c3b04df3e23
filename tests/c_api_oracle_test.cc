// SPDX-License-Identifier: Apache-2.0
// The C API of every kind against the C++ library it wraps: the same calls through simdbloom.h
// and through the C++ classes give the same answers (every result byte, flag, count and label,
// on keys present and absent) and the same serialized bytes, after inserts in every key shape and
// spelling, removes, merges and loads.
#include <doctest/doctest.h>  // implemented in doctest_impl.cc

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.h"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

namespace {

using simdbloom::CountingFilter;
using simdbloom::CountingLayout;
using simdbloom::ScalableFilter;
using simdbloom::ShiftingAssociation;
using simdbloom::ShiftingMultiplicity;
using simdbloom::SpatialFilter;

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Keys of the test: u64 keys, u32 keys, byte strings (as std::string_view and as Arrow offsets +
// data, the C spelling) and probes, half of them absent. A filter holds integers or byte strings
// (KeyType): each test fills one of each.
struct TestKeys {
  std::vector<uint64_t> u64, probes;
  std::vector<uint32_t> u32;
  std::string data;
  std::vector<int32_t> offsets;
  std::vector<std::string_view> strings;

  TestKeys(size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; ++i) u64.push_back(SplitMix(seed));
    offsets.push_back(0);
    for (size_t i = 0; i < n; ++i) {
      data += "key-" + std::to_string(SplitMix(seed) % 1000003);
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    for (size_t i = 0; i < n; ++i) {
      strings.emplace_back(data.data() + offsets[i], offsets[i + 1] - offsets[i]);
    }
    for (size_t i = 0; i < 2 * n; ++i) probes.push_back(i % 2 ? u64[i / 2] : SplitMix(seed));
    for (size_t i = 0; i < n; ++i) u32.push_back(static_cast<uint32_t>(SplitMix(seed)));
  }
  simdbloom_keys U32() const {
    simdbloom_keys k{};
    k.kind = SIMDBLOOM_KEYS_U32;
    k.keys = u32.data();
    k.count = u32.size();
    return k;
  }
  // The strings as the C API's simdbloom_keys (Arrow utf8), keys [begin, end).
  simdbloom_keys Arrow(size_t begin, size_t end) const {
    simdbloom_keys k{};
    k.kind = SIMDBLOOM_KEYS_BINARY32;
    k.keys = offsets.data() + begin;
    k.data = data.data();
    k.width = data.size();
    k.count = end - begin;
    return k;
  }
  std::vector<std::string_view> Strings(size_t begin, size_t end) const {
    return {strings.begin() + begin, strings.begin() + end};
  }
};

simdbloom_keys U64Keys(const std::vector<uint64_t>& keys) {
  simdbloom_keys k{};
  k.kind = SIMDBLOOM_KEYS_U64;
  k.keys = keys.data();
  k.count = keys.size();
  return k;
}

// The C++ object's file bytes, as each kind spells its writer.
template <class F>
std::string CppBytes(const F& f) {
  if constexpr (std::is_same<F, ScalableFilter>::value) {
    const std::vector<uint8_t> v = f.to_bytes();
    return std::string(v.begin(), v.end());
  } else if constexpr (std::is_same<F, ShiftingAssociation>::value ||
                       std::is_same<F, ShiftingMultiplicity>::value) {
    return f.save();
  } else {
    std::ostringstream out;
    f.save(out);
    return out.str();
  }
}

// The C handle's bytes through its serialized_size and serialize.
template <class H>
std::string CBytes(size_t (*size)(const H*), simdbloom_status (*serialize)(const H*, void*, size_t),
                   const H* h) {
  std::string bytes(size(h), '\0');
  REQUIRE(serialize(h, &bytes[0], bytes.size()) == SIMDBLOOM_OK);
  return bytes;
}

// Byte-identical to the C++ object, and the same after the C API loads its own bytes.
#define CHECK_SAME_BYTES(kind, c_handle, cpp)                                                 \
  do {                                                                                        \
    const std::string c_bytes =                                                               \
        CBytes(simdbloom_##kind##_serialized_size, simdbloom_##kind##_serialize, c_handle);   \
    CHECK(c_bytes == CppBytes(cpp));                                                          \
    simdbloom_##kind* loaded = nullptr;                                                       \
    REQUIRE(simdbloom_##kind##_load_bytes(c_bytes.data(), c_bytes.size(), &loaded) ==         \
            SIMDBLOOM_OK);                                                                    \
    CHECK(CBytes(simdbloom_##kind##_serialized_size, simdbloom_##kind##_serialize, loaded) == \
          c_bytes);                                                                           \
    simdbloom_##kind##_free(loaded);                                                          \
  } while (0)

TEST_CASE("c_api_oracle: counting filters") {
  const TestKeys keys(2000, 1);
  const size_t n = keys.u64.size();
  for (int layout : {SIMDBLOOM_COUNTING_BLOCKED, SIMDBLOOM_COUNTING_CLASSIC}) {
    CAPTURE(layout);
    CountingFilter cpp = CountingFilter::create(3 * n, 0.01, CountingLayout(layout), 9);
    simdbloom_counting* c = nullptr;
    REQUIRE(simdbloom_counting_create(3 * n, 0.01, layout, 9, &c) == SIMDBLOOM_OK);
    // Inserts of integers: u64 twice (counts of 2), u32 (by value). Of byte strings, into a
    // second filter: strings, one key.
    for (int round = 0; round < 2; ++round) {
      cpp.insert(keys.u64);
      REQUIRE(simdbloom_counting_insert_u64(c, keys.u64.data(), n) == SIMDBLOOM_OK);
    }
    std::vector<uint8_t> fresh_cpp(n), fresh_c(n);
    const simdbloom_keys u32 = keys.U32();
    uint64_t changed_c = 0;
    REQUIRE(simdbloom_counting_insert_keys(c, &u32, fresh_c.data(), &changed_c) == SIMDBLOOM_OK);
    CHECK(changed_c == cpp.insert(keys.u32, fresh_cpp.data()));
    CHECK(fresh_c == fresh_cpp);
    CHECK_SAME_BYTES(counting, c, cpp);
    CountingFilter cpps = CountingFilter::create(3 * n, 0.01, CountingLayout(layout), 9);
    simdbloom_counting* cs = nullptr;
    REQUIRE(simdbloom_counting_create(3 * n, 0.01, layout, 9, &cs) == SIMDBLOOM_OK);
    const uint64_t changed_cpp = cpps.insert(keys.Strings(0, n), fresh_cpp.data());
    const simdbloom_keys arrow = keys.Arrow(0, n);
    REQUIRE(simdbloom_counting_insert_keys(cs, &arrow, fresh_c.data(), &changed_c) == SIMDBLOOM_OK);
    CHECK(changed_c == changed_cpp);
    CHECK(fresh_c == fresh_cpp);
    uint8_t one = 0;
    CHECK(simdbloom_counting_insert_one(cs, "solo", 4, &one) == SIMDBLOOM_OK);
    CHECK(one == cpps.insert(std::string_view("solo")));
    CHECK_SAME_BYTES(counting, cs, cpps);
    // Removes: half the u64 keys; the strings twice (the second time they are rejected).
    std::vector<uint64_t> half(keys.u64.begin(), keys.u64.begin() + n / 2);
    std::vector<uint8_t> removed_cpp(n), removed_c(n);
    cpp.remove(half, removed_cpp.data());
    REQUIRE(simdbloom_counting_remove_u64(c, half.data(), half.size(), removed_c.data()) ==
            SIMDBLOOM_OK);
    CHECK(removed_c == removed_cpp);
    for (int round = 0; round < 2; ++round) {
      uint64_t count_c = 0;
      const uint64_t count_cpp = cpps.remove(keys.Strings(0, n), removed_cpp.data());
      REQUIRE(simdbloom_counting_remove_keys(cs, &arrow, removed_c.data(), &count_c) ==
              SIMDBLOOM_OK);
      CHECK(count_c == count_cpp);
      CHECK(removed_c == removed_cpp);
    }
    CHECK(simdbloom_counting_remove_one(cs, "solo", 4, &one) == SIMDBLOOM_OK);
    CHECK(one == cpps.remove(std::string_view("solo")));
    CHECK_SAME_BYTES(counting, c, cpp);
    CHECK_SAME_BYTES(counting, cs, cpps);
    // Queries over present and absent keys.
    const std::vector<uint64_t>& p = keys.probes;
    std::vector<uint8_t> a(p.size()), b(p.size());
    cpp.count(p, a.data());
    REQUIRE(simdbloom_counting_count_u64(c, p.data(), p.size(), b.data()) == SIMDBLOOM_OK);
    CHECK(a == b);
    cpp.contains(p, a.data());
    REQUIRE(simdbloom_counting_contains_u64(c, p.data(), p.size(), b.data()) == SIMDBLOOM_OK);
    CHECK(a == b);
    const simdbloom_keys probes = U64Keys(p);
    uint64_t sum = 0;
    REQUIRE(simdbloom_counting_count_keys(c, &probes, b.data(), &sum) == SIMDBLOOM_OK);
    CHECK(sum == cpp.count(p, a.data()));
    CHECK(a == b);
    for (size_t i = 0; i < 50; ++i) {
      uint32_t count = 99;
      REQUIRE(simdbloom_counting_count_one(cs, keys.strings[i].data(), keys.strings[i].size(),
                                           &count) == SIMDBLOOM_OK);
      CHECK(count == cpps.count(keys.strings[i]));
    }
    simdbloom_counting_free(cs);
    // The plain filter and the parameters.
    simdbloom_filter* plain = nullptr;
    REQUIRE(simdbloom_counting_to_filter(c, &plain) == SIMDBLOOM_OK);
    std::string plain_bytes(simdbloom_serialized_size(plain), '\0');
    REQUIRE(simdbloom_serialize(plain, &plain_bytes[0], plain_bytes.size()) == SIMDBLOOM_OK);
    CHECK(plain_bytes == CppBytes(cpp.to_filter()));
    simdbloom_free(plain);
    CHECK(simdbloom_counting_size(c) == cpp.size());
    CHECK(simdbloom_counting_saturated_count(c) == cpp.saturated_count());
    CHECK(simdbloom_counting_predicted_fpp(c, n) == cpp.predicted_fpp(n));
    CHECK(simdbloom_counting_num_blocks(c) == cpp.num_blocks());
    // Merge with a second filter built the same way on both sides.
    CountingFilter cpp2 = CountingFilter::create(3 * n, 0.01, CountingLayout(layout), 9);
    cpp2.insert(keys.probes);
    simdbloom_counting* c2 = nullptr;
    REQUIRE(simdbloom_counting_create(3 * n, 0.01, layout, 9, &c2) == SIMDBLOOM_OK);
    REQUIRE(simdbloom_counting_insert_u64(c2, p.data(), p.size()) == SIMDBLOOM_OK);
    cpp.merge(cpp2);
    REQUIRE(simdbloom_counting_merge(c, c2) == SIMDBLOOM_OK);
    CHECK_SAME_BYTES(counting, c, cpp);
    simdbloom_counting_free(c2);
    simdbloom_counting_free(c);
  }
}

TEST_CASE("c_api_oracle: scalable filters") {
  const TestKeys keys(3000, 2);
  const size_t n = keys.u64.size();
  simdbloom::ScalableOptions o;
  o.growth = 3;
  o.tightening = 0.8;
  o.layout = simdbloom::Layout::kClassic;
  o.seed = 4;
  ScalableFilter cpp = ScalableFilter::create(300, 0.02, o);
  simdbloom_scalable* c = nullptr;
  REQUIRE(simdbloom_scalable_create(300, 0.02, SIMDBLOOM_CLASSIC, 4, 3, 0.8, &c) == SIMDBLOOM_OK);
  cpp.insert(keys.u64);
  REQUIRE(simdbloom_scalable_insert_u64(c, keys.u64.data(), n) == SIMDBLOOM_OK);
  std::vector<uint8_t> fresh_cpp(n), fresh_c(n);
  const uint64_t changed_cpp = cpp.insert(keys.u32, fresh_cpp.data());
  const simdbloom_keys u32 = keys.U32();
  uint64_t changed_c = 0;
  REQUIRE(simdbloom_scalable_insert_keys(c, &u32, fresh_c.data(), &changed_c) == SIMDBLOOM_OK);
  CHECK(changed_c == changed_cpp);
  CHECK(fresh_c == fresh_cpp);
  uint8_t one = 0;
  CHECK(cpp.stages() >= 3);
  CHECK_SAME_BYTES(scalable, c, cpp);
  const std::vector<uint64_t>& p = keys.probes;
  std::vector<uint8_t> a(p.size()), b(p.size());
  const uint64_t hits_cpp = cpp.contains(p, a.data());
  const simdbloom_keys probes = U64Keys(p);
  uint64_t hits_c = 0;
  REQUIRE(simdbloom_scalable_contains_keys(c, &probes, b.data(), &hits_c) == SIMDBLOOM_OK);
  CHECK(a == b);
  CHECK(hits_c == hits_cpp);
  REQUIRE(simdbloom_scalable_contains_u64(c, p.data(), p.size(), b.data()) == SIMDBLOOM_OK);
  CHECK(a == b);
  CHECK(simdbloom_scalable_stages(c) == cpp.stages());
  CHECK(simdbloom_scalable_count(c) == cpp.count());
  CHECK(simdbloom_scalable_size_bytes(c) == cpp.size_bytes());
  CHECK(simdbloom_scalable_approximate_count(c) == cpp.approximate_count());
  CHECK(simdbloom_scalable_expected_fpp(c) == cpp.expected_fpp());
  CHECK(simdbloom_scalable_bits_per_key(c) == cpp.bits_per_key());
  for (size_t i = 0; i < cpp.stages(); ++i) {
    uint64_t count = 0, capacity = 0;
    double fpp = 0;
    REQUIRE(simdbloom_scalable_stage_info(c, i, &count, &capacity, &fpp) == SIMDBLOOM_OK);
    CHECK(count == cpp.stage_count(i));
    CHECK(capacity == cpp.stage_capacity(i));
    CHECK(fpp == cpp.stage_fpp(i));
    simdbloom_filter* stage = nullptr;
    REQUIRE(simdbloom_scalable_stage(c, i, &stage) == SIMDBLOOM_OK);
    std::string bytes(simdbloom_serialized_size(stage), '\0');
    REQUIRE(simdbloom_serialize(stage, &bytes[0], bytes.size()) == SIMDBLOOM_OK);
    CHECK(bytes == CppBytes(cpp.stage(i)));
    simdbloom_free(stage);
  }
  // Merge of two one-stage chains; then clear.
  ScalableFilter x = ScalableFilter::create(n, 0.02, o), y = ScalableFilter::create(n, 0.02, o);
  simdbloom_scalable *cx = nullptr, *cy = nullptr;
  REQUIRE(simdbloom_scalable_create(n, 0.02, SIMDBLOOM_CLASSIC, 4, 3, 0.8, &cx) == SIMDBLOOM_OK);
  REQUIRE(simdbloom_scalable_create(n, 0.02, SIMDBLOOM_CLASSIC, 4, 3, 0.8, &cy) == SIMDBLOOM_OK);
  x.insert(keys.Strings(0, n / 2));
  y.insert(keys.Strings(n / 2, n));
  const simdbloom_keys first = keys.Arrow(0, n / 2), second = keys.Arrow(n / 2, n);
  REQUIRE(simdbloom_scalable_insert_keys(cx, &first, nullptr, nullptr) == SIMDBLOOM_OK);
  REQUIRE(simdbloom_scalable_insert_keys(cy, &second, nullptr, nullptr) == SIMDBLOOM_OK);
  CHECK(simdbloom_scalable_can_merge(cx, cy) == int{x.can_merge(y)});
  x.merge(y);
  REQUIRE(simdbloom_scalable_merge(cx, cy) == SIMDBLOOM_OK);
  CHECK_SAME_BYTES(scalable, cx, x);
  CHECK(simdbloom_scalable_insert_one(cx, "solo", 4, &one) == SIMDBLOOM_OK);
  CHECK(one == x.insert(std::string_view("solo")));
  CHECK_SAME_BYTES(scalable, cx, x);
  cpp.clear();
  REQUIRE(simdbloom_scalable_clear(c) == SIMDBLOOM_OK);
  CHECK_SAME_BYTES(scalable, c, cpp);
  simdbloom_scalable_free(cx);
  simdbloom_scalable_free(cy);
  simdbloom_scalable_free(c);
}

TEST_CASE("c_api_oracle: spatial filters") {
  const TestKeys keys(3000, 3);
  const size_t n = keys.u64.size(), third = n / 3;
  SpatialFilter cpp = SpatialFilter::create(n, 0.01, 3, 5);
  simdbloom_spatial* c = nullptr;
  REQUIRE(simdbloom_spatial_create(n, 0.01, 3, 5, &c) == SIMDBLOOM_OK);
  // Byte strings. Area 1: Arrow strings; area 2: strings; area 3: one key at a time.
  uint64_t raised_c = 0;
  const simdbloom_keys area1 = keys.Arrow(0, third);
  const uint64_t raised_cpp = cpp.insert(1, keys.Strings(0, third));
  REQUIRE(simdbloom_spatial_insert_keys(c, 1, &area1, &raised_c) == SIMDBLOOM_OK);
  CHECK(raised_c == raised_cpp);
  const simdbloom_keys area2 = keys.Arrow(third, 2 * third);
  REQUIRE(simdbloom_spatial_insert_keys(c, 2, &area2, &raised_c) == SIMDBLOOM_OK);
  CHECK(raised_c == cpp.insert(2, keys.Strings(third, 2 * third)));
  for (size_t i = 2 * third; i < n; ++i) {
    REQUIRE(simdbloom_spatial_insert_one(c, 3, keys.strings[i].data(), keys.strings[i].size(),
                                         &raised_c) == SIMDBLOOM_OK);
    CHECK(raised_c == cpp.insert(3, keys.strings[i]));
  }
  CHECK_SAME_BYTES(spatial, c, cpp);
  // Integers in another filter: area 1 u64 keys, area 2 u32 keys (by value); their labels.
  SpatialFilter ints = SpatialFilter::create(n, 0.01, 2, 5);
  simdbloom_spatial* ci = nullptr;
  REQUIRE(simdbloom_spatial_create(n, 0.01, 2, 5, &ci) == SIMDBLOOM_OK);
  REQUIRE(simdbloom_spatial_insert_u64(ci, 1, keys.u64.data(), third, &raised_c) == SIMDBLOOM_OK);
  CHECK(raised_c == ints.insert(1, {keys.u64.data(), third}));
  const simdbloom_keys u32 = keys.U32();
  REQUIRE(simdbloom_spatial_insert_keys(ci, 2, &u32, &raised_c) == SIMDBLOOM_OK);
  CHECK(raised_c == ints.insert(2, keys.u32));
  CHECK_SAME_BYTES(spatial, ci, ints);
  const std::vector<uint64_t>& p = keys.probes;
  std::vector<uint16_t> a(p.size()), b(p.size());
  ints.classify(p, a.data());
  REQUIRE(simdbloom_spatial_classify_u64(ci, p.data(), p.size(), b.data()) == SIMDBLOOM_OK);
  CHECK(a == b);
  simdbloom_spatial_free(ci);
  // Labels of present and absent strings.
  const simdbloom_keys all = keys.Arrow(0, n);
  uint64_t labelled = 0;
  const uint64_t labelled_cpp = cpp.classify(keys.Strings(0, n), a.data());
  REQUIRE(simdbloom_spatial_classify_keys(c, &all, b.data(), &labelled) == SIMDBLOOM_OK);
  CHECK(labelled == labelled_cpp);
  CHECK(std::equal(a.begin(), a.begin() + n, b.begin()));
  uint16_t label = 0;
  REQUIRE(simdbloom_spatial_classify_one(c, "absent", 6, &label) == SIMDBLOOM_OK);
  CHECK(label == cpp.classify(std::string_view("absent")));
  // Statistics, field by field.
  const simdbloom::SpatialStats s = cpp.stats(true);
  simdbloom_spatial_totals t;
  simdbloom_spatial_area areas[3];
  REQUIRE(simdbloom_spatial_stats(c, 1, &t, areas, 3) == SIMDBLOOM_OK);
  CHECK(t.num_cells == s.num_cells);
  CHECK(t.members == s.members);
  CHECK(t.cell_bytes == s.cell_bytes);
  CHECK(t.k == s.k);
  CHECK(t.apriori_fpp == s.apriori_fpp);
  CHECK(t.measured == 1);
  CHECK(t.sparsity == s.sparsity);
  CHECK(t.fpp == s.fpp);
  for (size_t i = 0; i < 3; ++i) {
    const simdbloom::SpatialAreaStats& e = s.areas[i];
    CHECK(areas[i].label == e.label);
    CHECK(areas[i].members == e.members);
    CHECK(areas[i].cells_written == e.cells_written);
    CHECK(areas[i].expected_emersion == e.expected_emersion);
    CHECK(areas[i].apriori_fpp == e.apriori_fpp);
    CHECK(areas[i].apriori_isep == e.apriori_isep);
    CHECK(areas[i].expected_cells == e.expected_cells);
    CHECK(areas[i].cells == e.cells);
    CHECK(areas[i].emersion == e.emersion);
    CHECK(areas[i].fpp == e.fpp);
    CHECK(simdbloom_spatial_members(c, static_cast<uint32_t>(i + 1)) == e.members);
  }
  CHECK(simdbloom_spatial_predicted_fpp(c, n) == cpp.predicted_fpp(n));
  simdbloom_spatial_free(c);
}

TEST_CASE("c_api_oracle: shifting set filters") {
  const TestKeys keys(3000, 4);
  const size_t n = keys.u64.size(), third = n / 3;
  const std::vector<uint64_t>& p = keys.probes;
  // ShBF_A of integers: S1 only (u64), both (u32 keys, by value); and build. Of byte strings:
  // both (strings), S2 only (one key at a time).
  ShiftingAssociation ai = ShiftingAssociation::create(n, 0.01, 6);
  simdbloom_shbf_a* ca = nullptr;
  REQUIRE(simdbloom_shbf_a_create(n, 0.01, 6, &ca) == SIMDBLOOM_OK);
  ai.insert(simdbloom::Keys(keys.u64.data(), third), ShiftingAssociation::kOnlyFirst);
  REQUIRE(simdbloom_shbf_a_insert_u64(ca, keys.u64.data(), third, SIMDBLOOM_SHBF_ONLY_FIRST) ==
          SIMDBLOOM_OK);
  ai.insert(simdbloom::Keys(keys.u32.data(), third), ShiftingAssociation::kBoth);
  simdbloom_keys u32 = keys.U32();
  u32.count = third;
  REQUIRE(simdbloom_shbf_a_insert_keys(ca, &u32, SIMDBLOOM_SHBF_BOTH) == SIMDBLOOM_OK);
  CHECK_SAME_BYTES(shbf_a, ca, ai);
  std::vector<uint8_t> x(p.size()), y(p.size());
  ai.query(p, x.data());
  REQUIRE(simdbloom_shbf_a_query_u64(ca, p.data(), p.size(), y.data()) == SIMDBLOOM_OK);
  CHECK(x == y);
  simdbloom_shbf_a_free(ca);
  ShiftingAssociation a = ShiftingAssociation::create(n, 0.01, 6);
  REQUIRE(simdbloom_shbf_a_create(n, 0.01, 6, &ca) == SIMDBLOOM_OK);
  a.insert(keys.Strings(third, 2 * third), ShiftingAssociation::kBoth);
  const simdbloom_keys both = keys.Arrow(third, 2 * third);
  REQUIRE(simdbloom_shbf_a_insert_keys(ca, &both, SIMDBLOOM_SHBF_BOTH) == SIMDBLOOM_OK);
  for (size_t i = 2 * third; i < n; ++i) {
    a.insert(keys.strings[i], ShiftingAssociation::kOnlySecond);
    REQUIRE(simdbloom_shbf_a_insert_one(ca, keys.strings[i].data(), keys.strings[i].size(),
                                        SIMDBLOOM_SHBF_ONLY_SECOND) == SIMDBLOOM_OK);
  }
  CHECK_SAME_BYTES(shbf_a, ca, a);
  const simdbloom_keys all = keys.Arrow(0, n);
  a.query(keys.Strings(0, n), x.data());
  REQUIRE(simdbloom_shbf_a_query_keys(ca, &all, y.data()) == SIMDBLOOM_OK);
  CHECK(std::equal(x.begin(), x.begin() + n, y.begin()));
  uint8_t answer = 0;
  REQUIRE(simdbloom_shbf_a_query_one(ca, keys.strings[0].data(), keys.strings[0].size(), &answer) ==
          SIMDBLOOM_OK);
  CHECK(answer == a.query(keys.strings[0]));
  CHECK(simdbloom_shbf_a_clear_answer_probability(ca) == a.clear_answer_probability());
  CHECK(simdbloom_shbf_a_paper_clear_answer_probability(ca) == a.paper_clear_answer_probability());
  CHECK(simdbloom_shbf_a_false_positive_probability(ca) == a.false_positive_probability());
  CHECK(simdbloom_shbf_a_items(ca) == a.items());
  simdbloom_shbf_a_free(ca);
  const std::vector<uint64_t> s1(keys.u64.begin(), keys.u64.begin() + 2 * third);
  const std::vector<uint64_t> s2(keys.u64.begin() + third, keys.u64.end());
  REQUIRE(simdbloom_shbf_a_build(s1.data(), s1.size(), s2.data(), s2.size(), 0.02, 7, &ca) ==
          SIMDBLOOM_OK);
  CHECK_SAME_BYTES(shbf_a, ca, ShiftingAssociation::build(s1, s2, 0.02, 7));
  simdbloom_shbf_a_free(ca);

  // ShBF_x: counts 1..12 by key, in the three spellings; and build.
  // (Integers: u64 in groups; byte strings in a second filter.)
  constexpr uint32_t kMax = 12;
  ShiftingMultiplicity m = ShiftingMultiplicity::create(n, 0.01, kMax, 8);
  ShiftingMultiplicity ms = ShiftingMultiplicity::create(n, 0.01, kMax, 8);
  simdbloom_shbf_x* cm = nullptr;
  simdbloom_shbf_x* cms = nullptr;
  REQUIRE(simdbloom_shbf_x_create(n, 0.01, kMax, 8, &cm) == SIMDBLOOM_OK);
  REQUIRE(simdbloom_shbf_x_create(n, 0.01, kMax, 8, &cms) == SIMDBLOOM_OK);
  std::vector<uint64_t> multiset;
  for (uint32_t count = 1; count <= kMax; ++count) {
    std::vector<uint64_t> group;
    for (size_t i = count - 1; i < third; i += kMax) group.push_back(keys.u64[i]);
    m.insert(group, count);
    REQUIRE(simdbloom_shbf_x_insert_u64(cm, group.data(), group.size(), count) == SIMDBLOOM_OK);
    for (uint64_t k : group) multiset.insert(multiset.end(), count, k);
  }
  for (size_t i = third; i < n; ++i) {
    const uint32_t count = 1 + i % kMax;
    if (i < 2 * third) {
      ms.insert(keys.Strings(i, i + 1), count);
      const simdbloom_keys one = keys.Arrow(i, i + 1);
      REQUIRE(simdbloom_shbf_x_insert_keys(cms, &one, count) == SIMDBLOOM_OK);
    } else {
      ms.insert(keys.strings[i], count);
      REQUIRE(simdbloom_shbf_x_insert_one(cms, keys.strings[i].data(), keys.strings[i].size(),
                                          count) == SIMDBLOOM_OK);
    }
  }
  CHECK_SAME_BYTES(shbf_x, cm, m);
  CHECK_SAME_BYTES(shbf_x, cms, ms);
  std::vector<uint32_t> u(p.size()), v(p.size());
  m.count(p, u.data());
  REQUIRE(simdbloom_shbf_x_count_u64(cm, p.data(), p.size(), v.data()) == SIMDBLOOM_OK);
  CHECK(u == v);
  ms.count(keys.Strings(0, n), u.data());
  REQUIRE(simdbloom_shbf_x_count_keys(cms, &all, v.data()) == SIMDBLOOM_OK);
  CHECK(std::equal(u.begin(), u.begin() + n, v.begin()));
  uint32_t count = 0;
  REQUIRE(simdbloom_shbf_x_count_one(cms, "absent", 6, &count) == SIMDBLOOM_OK);
  CHECK(count == ms.count(std::string_view("absent")));
  simdbloom_shbf_x_free(cms);
  for (uint32_t x_ = 1; x_ <= kMax; ++x_) {
    double prob = -1;
    REQUIRE(simdbloom_shbf_x_correct_probability(cm, x_, &prob) == SIMDBLOOM_OK);
    CHECK(prob == m.correct_probability(x_));
  }
  CHECK(simdbloom_shbf_x_false_positive_probability(cm) == m.false_positive_probability());
  simdbloom_shbf_x_free(cm);
  REQUIRE(simdbloom_shbf_x_build(multiset.data(), multiset.size(), 0.01, kMax, 8, &cm) ==
          SIMDBLOOM_OK);
  CHECK_SAME_BYTES(shbf_x, cm, ShiftingMultiplicity::build(multiset, 0.01, kMax, 8));
  simdbloom_shbf_x_free(cm);
}

// The key type of a C handle, through its getter.
template <class H>
simdbloom::KeyType c_type(simdbloom_status (*get)(const H*, simdbloom_key_type*), const H* h) {
  simdbloom_key_type t = static_cast<simdbloom_key_type>(99);
  REQUIRE(get(h, &t) == SIMDBLOOM_OK);
  return static_cast<simdbloom::KeyType>(t);
}

// What a filter holds, through C and C++ after the same calls: the C getter names the C++ key type,
// declared int32 filters hold the same bytes whichever integer width filled them, and a file saved
// before key types (tests/data/golden) loads as legacy, answers as before, and may be declared.
TEST_CASE("c_api_oracle: key types") {
  using simdbloom::KeyType;
  const std::vector<uint64_t> v64 = {0, 1, 7, 0x7FFFFFFF, 0xFFFFFFFF, 123456789};
  const std::vector<int32_t> v32 = {0, 1, 7, 0x7FFFFFFF, -1, 123456789};
  // Plain filters of every layout, int32: C u64 inserts, C++ int32_t inserts; the same bytes.
  for (int layout = SIMDBLOOM_BLOCK512; layout <= SIMDBLOOM_SHIFTING; ++layout) {
    CAPTURE(layout);
    simdbloom::Filter cpp =
        simdbloom::Filter::create(1000, 0.01, simdbloom::Layout(layout), 2, KeyType::kInt32);
    simdbloom_filter* c = nullptr;
    REQUIRE(simdbloom_create(1000, 0.01, layout, 2, &c) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_get_key_type, c) == KeyType::kNone);
    REQUIRE(simdbloom_set_key_type(c, SIMDBLOOM_KEY_INT32) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_get_key_type, c) == cpp.key_type());
    cpp.insert(v32);
    REQUIRE(simdbloom_insert_u64(c, v64.data(), v64.size()) == SIMDBLOOM_OK);
    std::string c_bytes(simdbloom_serialized_size(c), '\0');
    REQUIRE(simdbloom_serialize(c, &c_bytes[0], c_bytes.size()) == SIMDBLOOM_OK);
    CHECK(c_bytes == CppBytes(cpp));
    // And an int64 filter: C u32 keys, C++ int64_t.
    simdbloom::Filter cpp64 = simdbloom::Filter::create(1000, 0.01, simdbloom::Layout(layout), 2);
    const std::vector<int64_t> w(v64.begin(), v64.end());
    cpp64.insert(w);
    simdbloom_filter* c64 = nullptr;
    REQUIRE(simdbloom_create(1000, 0.01, layout, 2, &c64) == SIMDBLOOM_OK);
    const std::vector<uint32_t> u(v64.begin(), v64.end());
    simdbloom_keys k{};
    k.kind = SIMDBLOOM_KEYS_U32;
    k.keys = u.data();
    k.count = u.size();
    REQUIRE(simdbloom_insert_keys(c64, &k, nullptr) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_get_key_type, c64) == KeyType::kInt64);
    std::string c64_bytes(simdbloom_serialized_size(c64), '\0');
    REQUIRE(simdbloom_serialize(c64, &c64_bytes[0], c64_bytes.size()) == SIMDBLOOM_OK);
    CHECK(c64_bytes == CppBytes(cpp64));
    simdbloom_free(c64);
    simdbloom_free(c);
  }
  // Every other kind: the key type after create, the first insert, a load.
  {
    CountingFilter cpp = CountingFilter::create(1000, 0.01);
    simdbloom_counting* c = nullptr;
    REQUIRE(simdbloom_counting_create(1000, 0.01, SIMDBLOOM_COUNTING_BLOCKED, 0, &c) == 0);
    CHECK(c_type(simdbloom_counting_get_key_type, c) == cpp.key_type());
    cpp.insert(std::string_view("x"));
    REQUIRE(simdbloom_counting_insert_one(c, "x", 1, nullptr) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_counting_get_key_type, c) == cpp.key_type());
    CHECK(cpp.key_type() == KeyType::kBytes);
    CHECK_SAME_BYTES(counting, c, cpp);
    simdbloom_counting_free(c);
  }
  {
    simdbloom::ScalableOptions o;
    o.key_type = KeyType::kInt32;
    ScalableFilter cpp = ScalableFilter::create(100, 0.01, o);
    simdbloom_scalable* c = nullptr;
    REQUIRE(simdbloom_scalable_create(100, 0.01, SIMDBLOOM_BLOCK512, 0, 2, 0.85, &c) == 0);
    REQUIRE(simdbloom_scalable_set_key_type(c, SIMDBLOOM_KEY_INT32) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_scalable_get_key_type, c) == cpp.key_type());
    cpp.insert(v32);
    REQUIRE(simdbloom_scalable_insert_u64(c, v64.data(), v64.size()) == SIMDBLOOM_OK);
    CHECK_SAME_BYTES(scalable, c, cpp);
    simdbloom_scalable_free(c);
  }
  {
    SpatialFilter cpp = SpatialFilter::create(100, 0.01, 2, 0, KeyType::kInt32);
    simdbloom_spatial* c = nullptr;
    REQUIRE(simdbloom_spatial_create(100, 0.01, 2, 0, &c) == SIMDBLOOM_OK);
    REQUIRE(simdbloom_spatial_set_key_type(c, SIMDBLOOM_KEY_INT32) == SIMDBLOOM_OK);
    cpp.insert(1, v32);
    REQUIRE(simdbloom_spatial_insert_u64(c, 1, v64.data(), v64.size(), nullptr) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_spatial_get_key_type, c) == cpp.key_type());
    CHECK_SAME_BYTES(spatial, c, cpp);
    simdbloom_spatial_free(c);
  }
  {
    ShiftingAssociation cpp = ShiftingAssociation::create(100, 0.01, 0, KeyType::kInt32);
    simdbloom_shbf_a* c = nullptr;
    REQUIRE(simdbloom_shbf_a_create(100, 0.01, 0, &c) == SIMDBLOOM_OK);
    REQUIRE(simdbloom_shbf_a_set_key_type(c, SIMDBLOOM_KEY_INT32) == SIMDBLOOM_OK);
    cpp.insert(v32, ShiftingAssociation::kBoth);
    REQUIRE(simdbloom_shbf_a_insert_u64(c, v64.data(), v64.size(), SIMDBLOOM_SHBF_BOTH) == 0);
    CHECK(c_type(simdbloom_shbf_a_get_key_type, c) == cpp.key_type());
    CHECK_SAME_BYTES(shbf_a, c, cpp);
    simdbloom_shbf_a_free(c);
  }
  {
    ShiftingMultiplicity cpp = ShiftingMultiplicity::create(100, 0.01, 4, 0);
    simdbloom_shbf_x* c = nullptr;
    REQUIRE(simdbloom_shbf_x_create(100, 0.01, 4, 0, &c) == SIMDBLOOM_OK);
    cpp.insert(std::vector<int64_t>(v64.begin(), v64.end()), 2);
    const std::vector<uint32_t> u(v64.begin(), v64.end());
    simdbloom_keys k{};
    k.kind = SIMDBLOOM_KEYS_U32;
    k.keys = u.data();
    k.count = u.size();
    REQUIRE(simdbloom_shbf_x_insert_keys(c, &k, 2) == SIMDBLOOM_OK);
    CHECK(c_type(simdbloom_shbf_x_get_key_type, c) == KeyType::kInt64);
    CHECK(cpp.key_type() == KeyType::kInt64);
    CHECK_SAME_BYTES(shbf_x, c, cpp);
    simdbloom_shbf_x_free(c);
  }
  // A file saved before key types: legacy, the u64 keys 0..19 found as before; u32 calls hash 4
  // bytes, as they did. Declared int64, u32 calls of the same values find them.
  {
    const std::string path = std::string(SIMDBLOOM_TEST_DATA_DIR) + "/golden/block512.bin";
    simdbloom_filter* c = nullptr;
    REQUIRE(simdbloom_load(path.c_str(), &c) == SIMDBLOOM_OK);
    const simdbloom::Filter cpp = simdbloom::Filter::load_file(path);
    CHECK(c_type(simdbloom_get_key_type, c) == KeyType::kLegacy);
    CHECK(cpp.key_type() == KeyType::kLegacy);
    std::vector<uint64_t> keys(20);
    std::vector<uint32_t> keys32(20);
    for (uint32_t i = 0; i < 20; ++i) keys[i] = keys32[i] = i;
    std::vector<uint8_t> a(20), b(20);
    REQUIRE(simdbloom_contains_u64(c, keys.data(), 20, b.data()) == SIMDBLOOM_OK);
    CHECK(std::count(b.begin(), b.end(), 1) == 20);
    simdbloom_keys k{};
    k.kind = SIMDBLOOM_KEYS_U32;
    k.keys = keys32.data();
    k.count = 20;
    REQUIRE(simdbloom_contains_keys(c, &k, b.data(), nullptr) == SIMDBLOOM_OK);
    cpp.contains(keys32, a.data());
    CHECK(a == b);
    REQUIRE(simdbloom_set_key_type(c, SIMDBLOOM_KEY_INT64) == SIMDBLOOM_OK);
    REQUIRE(simdbloom_contains_keys(c, &k, b.data(), nullptr) == SIMDBLOOM_OK);
    CHECK(std::count(b.begin(), b.end(), 1) == 20);
    CHECK(simdbloom_set_key_type(c, SIMDBLOOM_KEY_BYTES) == SIMDBLOOM_EINVAL);
    simdbloom_free(c);
  }
}

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  return context.run();
}
