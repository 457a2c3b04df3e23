// SPDX-License-Identifier: Apache-2.0
// FilterSet (simdbloom/filter_set.hpp): a batch of keys against many filters answers exactly what
// a separate bulk call per filter answers (contains, first, count), for mixed layouts, seeds,
// sizes and key types, empty filters and repeated keys, 1 and 1000 filters, every key shape, every
// SIMD target and under threads; its errors come before anything is written.
#include "simdbloom/filter_set.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

using Match = FilterSet::Match;

// What separate bulk calls answer: every (filter, key) pair, in key order then filter order.
std::vector<Match> ExpectedMatches(const std::vector<const Filter*>& filters, const Keys& keys) {
  std::vector<std::vector<uint8_t>> hit(filters.size(), std::vector<uint8_t>(keys.size()));
  for (size_t i = 0; i < filters.size(); ++i) filters[i]->contains(keys, hit[i].data());
  std::vector<Match> m;
  for (size_t k = 0; k < keys.size(); ++k) {
    for (size_t i = 0; i < filters.size(); ++i) {
      if (hit[i][k]) m.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(k)});
    }
  }
  return m;
}

// Checks contains, first and count of `set` against separate bulk calls over `keys`.
void CheckAgainstSeparateCalls(const std::vector<const Filter*>& filters, const Keys& keys,
                               Threads threads = Threads{1}) {
  const FilterSet set(filters);
  const std::vector<Match> expected = ExpectedMatches(filters, keys);
  std::vector<Match> got = {{7, 7}};  // replaced, not appended to
  CHECK(set.contains(keys, got, threads) == expected.size());
  REQUIRE(got.size() == expected.size());
  CHECK(got == expected);
  std::vector<int32_t> first_expected(keys.size(), -1), first_got(keys.size(), 5);
  std::vector<uint32_t> count_expected(keys.size(), 0), count_got(keys.size(), 9);
  uint64_t first_hits = 0;
  for (const Match& m : expected) {
    if (first_expected[m.key] < 0) {
      first_expected[m.key] = static_cast<int32_t>(m.filter);
      ++first_hits;
    }
    ++count_expected[m.key];
  }
  CHECK(set.first(keys, first_got.data(), threads) == first_hits);
  CHECK(first_got == first_expected);
  CHECK(set.count(keys, count_got.data(), threads) == expected.size());
  CHECK(count_got == count_expected);
}

// Filters of integer keys: every layout, three seeds, sizes from one block to many, an empty one,
// an int32 one (8-byte keys beyond 32 bits are absent from it) and a legacy one (integers hashed at
// the caller's width), each holding a different share of `keys`.
struct IntegerFilters {
  std::vector<Filter> owned;
  std::vector<const Filter*> ptrs;
  explicit IntegerFilters(const std::vector<uint64_t>& keys) {
    const Layout layouts[] = {Layout::kBlock512, Layout::kRegister64, Layout::kSplitBlock256,
                              Layout::kClassic, Layout::kShifting};
    size_t i = 0;
    for (Layout l : layouts) {
      for (uint64_t seed : {0u, 7u, 0u}) {
        const uint32_t k = l == Layout::kSplitBlock256 ? 8 : 3 + i % 5;
        owned.push_back(Filter::with_bits(512 * (1 + 7 * i), k, l, seed, KeyType::kInt64));
        ++i;
      }
    }
    owned.push_back(Filter::with_bits(4096, 4, Layout::kBlock512, 0, KeyType::kInt32));
    owned.push_back(Filter::with_bits(4096, 4, Layout::kBlock512, 0));  // kNone: stays empty
    for (size_t f = 0; f + 1 < owned.size(); ++f) {
      for (size_t j = f; j < keys.size(); j += 3 + f) {
        if (owned[f].key_type() == KeyType::kInt32) {
          owned[f].insert(static_cast<uint32_t>(keys[j]));
        } else {
          owned[f].insert(keys[j]);
          owned[f].insert(keys[j]);  // repeats change nothing
        }
      }
    }
    // A legacy filter (a file from before key types) among them.
    owned.push_back(test::WithKeyType(owned[1], KeyType::kLegacy));
    for (const Filter& f : owned) ptrs.push_back(&f);
  }
};

TEST_CASE("api: filter set - integer keys of every width equal separate bulk calls") {
  // 2.5 tiles of keys: present ones, absent ones, and values beyond 32 bits.
  std::vector<uint64_t> keys = test::RandomKeys(2600, 43);
  for (size_t i = 0; i < keys.size(); i += 2) keys[i] &= 0xFFFFFFFFu;  // int32's range
  const IntegerFilters filters(std::vector<uint64_t>(keys.begin(), keys.begin() + 1200));
  const std::vector<uint32_t> u32(keys.begin(), keys.end());
  const std::vector<int64_t> i64(keys.begin(), keys.end());
  const std::vector<uint16_t> u16(keys.begin(), keys.end());
  test::ForEachApiTarget([&](const std::string&) {
    SUBCASE("u64") { CheckAgainstSeparateCalls(filters.ptrs, Keys(keys)); }
    SUBCASE("u32") { CheckAgainstSeparateCalls(filters.ptrs, Keys(u32)); }
    SUBCASE("i64") { CheckAgainstSeparateCalls(filters.ptrs, Keys(i64)); }
    SUBCASE("u16") { CheckAgainstSeparateCalls(filters.ptrs, Keys(u16)); }
    SUBCASE("short batches") {
      for (size_t n : {size_t{0}, size_t{1}, size_t{31}, size_t{1024}, size_t{1025}}) {
        CAPTURE(n);
        CheckAgainstSeparateCalls(filters.ptrs, Keys(keys.data(), n));
      }
    }
  });
}

TEST_CASE("api: filter set - byte strings in every shape and pre-hashed keys") {
  std::vector<const Filter*> ptrs;
  std::vector<Filter> owned;
  const std::vector<uint64_t> raw = test::RandomKeys(2100, 44);
  test::KeyShapes shapes(raw);
  for (Layout l : {Layout::kBlock512, Layout::kSplitBlock256, Layout::kClassic}) {
    for (uint64_t seed : {0u, 9u}) {
      owned.push_back(Filter::with_bits(2048 * (1 + owned.size()),
                                        l == Layout::kSplitBlock256 ? 8 : 5, l, seed,
                                        KeyType::kBytes));
    }
  }
  for (size_t f = 0; f < owned.size(); ++f) {
    for (size_t j = f; j < 700; j += 2 + f) owned[f].insert(shapes.strings[j]);
  }
  for (const Filter& f : owned) ptrs.push_back(&f);
  const Filter hasher = Filter::with_bits(512, 4);  // kNone: hashes the integers of Prehashed
  test::ForEachApiTarget([&](const std::string&) {
    const auto all = shapes.For(hasher);
    for (size_t s = 3; s < all.size(); ++s) {  // the byte-string shapes and pre-hashed keys
      CAPTURE(s);
      CheckAgainstSeparateCalls(ptrs, all[s].keys);
    }
  });
}

TEST_CASE("api: filter set - 1 and 1000 filters") {
  const std::vector<uint64_t> keys = test::RandomKeys(1500, 45);
  std::vector<Filter> owned;
  for (size_t i = 0; i < 1000; ++i) {
    const Layout l = simdbloom::layouts()[i % simdbloom::layouts().size()];
    owned.push_back(Filter::with_bits(512 * (1 + i % 5), l == Layout::kSplitBlock256 ? 8 : 4, l,
                                      i % 3, KeyType::kInt64));
    for (size_t j = i; j < keys.size(); j += 97) owned.back().insert(keys[j]);
  }
  std::vector<const Filter*> ptrs;
  for (const Filter& f : owned) ptrs.push_back(&f);
  CheckAgainstSeparateCalls(ptrs, Keys(keys));
  CheckAgainstSeparateCalls({ptrs[3]}, Keys(keys));
  CheckAgainstSeparateCalls({}, Keys(keys));
}

// The fused block512 path (equal hash and k: one class): runs of one class longer than a kernel
// call takes, the class broken by filters of other layouts, k and seeds (two rounds of probes:
// k > 8), filters of 1 block and odd sizes, int32 filters (keys beyond 32 bits absent), an empty
// filter, a lone block512 filter of its k; small filters (no prefetch) and, together beyond 1 MiB,
// prefetched ones.
TEST_CASE("api: filter set - block512 classes of one k equal separate bulk calls") {
  std::vector<uint64_t> keys = test::RandomKeys(2600, 46);
  for (size_t i = 0; i < keys.size(); i += 3) keys[i] &= 0xFFFFFFFFu;
  for (const uint64_t scale : {uint64_t{1}, uint64_t{1000}}) {
    CAPTURE(scale);
    std::vector<Filter> owned;
    auto add = [&](uint64_t blocks, uint32_t k, Layout l, uint64_t seed, KeyType t) {
      owned.push_back(Filter::with_bits(512 * blocks, k, l, seed, t));
    };
    for (size_t i = 0; i < 20; ++i)
      add(1 + (i % 4) * scale * 3, 6, Layout::kBlock512, 0, KeyType::kInt64);
    add(64, 6, Layout::kClassic, 0, KeyType::kInt64);
    add(scale * 5, 6, Layout::kBlock512, 0, KeyType::kInt64);
    // Classes of two (a lone block512 filter of its group and k takes the bulk kernel).
    for (uint64_t b : {uint64_t{1}, scale * 7}) {
      add(b, 11, Layout::kBlock512, 0, KeyType::kInt64);
      add(b + 2, 16, Layout::kBlock512, 0, KeyType::kInt64);
      add(scale * 9 + b, 6, Layout::kBlock512, 5, KeyType::kInt64);
      add(scale * 3 + b, 6, Layout::kBlock512, 0, KeyType::kInt32);
      add(scale * 11 + b, 1, Layout::kBlock512, 0, KeyType::kInt64);
    }
    add(scale * 2, 9, Layout::kBlock512, 0, KeyType::kInt64);
    add(scale * 13, 6, Layout::kBlock512, 0, KeyType::kInt64);  // stays empty
    for (size_t f = 0; f + 1 < owned.size(); ++f) {
      for (size_t j = f % 5; j < 1300; j += 2 + f % 7) {
        if (owned[f].key_type() == KeyType::kInt32) {
          owned[f].insert(static_cast<uint32_t>(keys[j]));
        } else {
          owned[f].insert(keys[j]);
        }
      }
    }
    std::vector<const Filter*> ptrs;
    for (const Filter& f : owned) ptrs.push_back(&f);
    test::ForEachApiTarget([&](const std::string&) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{257}, size_t{2600}}) {
        CAPTURE(n);
        CheckAgainstSeparateCalls(ptrs, Keys(keys.data(), n));
      }
      // The filters in reverse: first() resolves keys in another order.
      CheckAgainstSeparateCalls(std::vector<const Filter*>(ptrs.rbegin(), ptrs.rend()), Keys(keys));
    });
  }
}

TEST_CASE("api: filter set - Guava's layouts among others (their own hash, no shared group)") {
  // guava and guava32 hash with Murmur3 (not a group's XXH3): the set probes them through their
  // own bulk calls; answers still equal separate calls, for integers, strings and first()'s
  // subsets of unresolved keys.
  const std::vector<uint64_t> keys = test::RandomKeys(2300, 48);
  std::vector<std::string> strings;
  for (uint64_t k : keys) strings.push_back("g" + std::to_string(k % 5000));
  for (const bool bytes : {false, true}) {
    CAPTURE(bytes);
    const KeyType type = bytes ? KeyType::kBytes : KeyType::kInt64;
    std::vector<Filter> owned;
    owned.push_back(Filter::with_bits(64 * 300, 5, Layout::kGuava, 0, type));
    owned.push_back(Filter::with_bits(4096, 5, Layout::kBlock512, 0, type));
    owned.push_back(Filter::with_bits(4096, 5, Layout::kBlock512, 0, type));
    owned.push_back(Filter::with_bits(64 * 77, 3, Layout::kGuava32, 0, type));
    owned.push_back(Filter::with_bits(64 * 500, 7, Layout::kGuava, 0, type));
    for (size_t f = 0; f < owned.size(); ++f) {
      for (size_t j = f * 200; j < f * 200 + 500; ++j) {
        if (bytes) {
          owned[f].insert(strings[j]);
        } else {
          owned[f].insert(keys[j]);
        }
      }
    }
    std::vector<const Filter*> ptrs;
    for (const Filter& f : owned) ptrs.push_back(&f);
    test::ForEachApiTarget([&](const std::string&) {
      CheckAgainstSeparateCalls(ptrs, bytes ? Keys(strings) : Keys(keys));
    });
  }
  // Pre-hashed keys: guava32 takes h1; guava cannot (no h2), refused before anything is written.
  Filter g32 = Filter::with_bits(64 * 100, 4, Layout::kGuava32, 0, KeyType::kInt64);
  Filter g64 = Filter::with_bits(64 * 100, 4, Layout::kGuava, 0, KeyType::kInt64);
  g32.insert(keys);
  std::vector<uint64_t> h;
  for (uint64_t k : keys) h.push_back(g32.hash(k));
  CheckAgainstSeparateCalls({&g32}, Keys(Prehashed{h.data(), h.size()}));
  std::vector<int32_t> first(h.size(), 5);
  CHECK_THROWS_WITH_AS(
      FilterSet({&g32, &g64}).first(Keys(Prehashed{h.data(), h.size()}), first.data()),
      doctest::Contains("filter 1 is a guava filter"), Error);
  CHECK(first == std::vector<int32_t>(h.size(), 5));
}

TEST_CASE("api: filter set - errors come before anything is written") {
  const std::vector<uint64_t> keys = test::RandomKeys(100, 46);
  std::vector<std::string> strings = {"a", "b"};
  Filter ints = Filter::with_bits(4096, 4, Layout::kBlock512, 0, KeyType::kInt64);
  Filter bytes = Filter::with_bits(4096, 4, Layout::kBlock512, 0, KeyType::kBytes);
  ints.insert(keys);
  const FilterSet set{&ints, &bytes};
  std::vector<Match> out = {{1, 2}};
  std::vector<int32_t> first(keys.size(), 77);
  // Integers on a bytes filter (and the other way round): KeyTypeError naming the filter.
  try {
    set.contains(Keys(keys), out);
    FAIL("no KeyTypeError");
  } catch (const KeyTypeError& e) {
    CHECK(std::string(e.what()).find("(filter 1)") != std::string::npos);
  }
  CHECK_THROWS_AS(set.first(Keys(strings), first.data()), KeyTypeError);
  CHECK(first == std::vector<int32_t>(keys.size(), 77));
  CHECK(out.size() == 1);
  // Null outputs, null filters, moved-from filters, too many keys for 32-bit indices.
  const FilterSet ok{&ints};
  CHECK_THROWS_AS(ok.first(Keys(keys), nullptr), Error);
  CHECK_THROWS_AS(ok.count(Keys(keys), nullptr), Error);
  CHECK_THROWS_AS((FilterSet{&ints, nullptr}), Error);
  const Keys huge(keys.data(), size_t{1} << 32);
  CHECK_THROWS_WITH_AS(ok.contains(huge, out), doctest::Contains("32-bit key indices"), Error);
  Filter moved = Filter::with_bits(4096, 4);
  const FilterSet with_moved{&ints, &moved};
  Filter taken = std::move(moved);
  CHECK_THROWS_WITH_AS(with_moved.count(Keys(keys), std::vector<uint32_t>(100).data()),
                       doctest::Contains("filter 1 was moved from"), Error);
  // No keys: nothing to do, whatever the output.
  CHECK(ok.first(Keys(keys.data(), 0), nullptr) == 0);
}

TEST_CASE("concurrency: filter set - threads give the answers of one thread") {
  const std::vector<uint64_t> keys = test::RandomKeys(70000, 47);
  const IntegerFilters filters(std::vector<uint64_t>(keys.begin(), keys.begin() + 30000));
  for (unsigned t : {2u, 3u, 8u}) {
    CAPTURE(t);
    CheckAgainstSeparateCalls(filters.ptrs, Keys(keys), Threads{t});
  }
}

}  // namespace
}  // namespace simdbloom
