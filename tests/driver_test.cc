// SPDX-License-Identifier: Apache-2.0
// The bulk driver's checks (lib/core/driver.h): one message per check, the same for every kind,
// and one `select` limit (n <= 2^32: indices 0 .. n - 1 fit uint32_t).
#include "lib/core/driver.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

namespace simdbloom {
namespace {

// Checks that `expr` throws Error with the message `msg`.
#define CHECK_REFUSED(expr, msg) CHECK_THROWS_WITH_AS(expr, msg, Error)

TEST_CASE("driver: select takes up to 2^32 keys, every kind") {
  // The shared check at the boundary (2^32 keys cannot be allocated here).
  CHECK_NOTHROW(detail::CheckSelectKeys("select", uint64_t{1} << 32));
  CHECK_REFUSED(detail::CheckSelectKeys("select", (uint64_t{1} << 32) + 1),
                "select: more than 2^32 keys do not fit 32-bit selection indices");
  // Every kind refuses 2^32 + 1 keys with it, before a key is read.
  const uint64_t key = 1;
  const Keys too_many(&key, (size_t{1} << 32) + 1);
  uint32_t sel[1];
  const Filter f = Filter::create(100, 0.01);
  const CountingFilter c = CountingFilter::create(100, 0.01);
  CHECK_REFUSED(f.select(too_many, sel),
                "select: more than 2^32 keys do not fit 32-bit selection indices");
  CHECK_REFUSED(f.select(too_many, sel, Threads{2}),
                "select: more than 2^32 keys do not fit 32-bit selection indices");
  CHECK_REFUSED(c.select(too_many, sel),
                "CountingFilter::select: more than 2^32 keys do not fit 32-bit selection indices");
  ScalableFilter s = ScalableFilter::create(8, 0.01);
  std::vector<uint64_t> grow(64);
  for (size_t i = 0; i < grow.size(); ++i) grow[i] = i;
  s.insert(Keys(grow));
  REQUIRE(s.stages() > 1);  // the chain's own tiles, not its first stage's call
  CHECK_REFUSED(s.select(too_many, sel),
                "ScalableFilter::select: more than 2^32 keys do not fit 32-bit selection indices");
}

TEST_CASE("driver: a chain's tiles write every form as one filter does") {
  // The hit bytes of ScalableFilter's tiles go through the driver's writer (WriteHits): bytes,
  // bitmap and selection agree with each other and with the keys inserted.
  ScalableFilter s = ScalableFilter::create(100, 0.01);
  std::vector<uint64_t> keys(3000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = i * 7919;
  s.insert(Keys(keys.data(), 1000));
  REQUIRE(s.stages() > 1);
  std::vector<uint8_t> bytes(keys.size()), bitmap((keys.size() + 7) / 8);
  std::vector<uint32_t> selection(keys.size());
  const uint64_t hits = s.contains(Keys(keys), bytes.data());
  CHECK(s.contains_bitmap(Keys(keys), bitmap.data()) == hits);
  CHECK(s.select(Keys(keys), selection.data()) == hits);
  uint64_t at = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i < 1000) CHECK(bytes[i] == 1);  // no false negatives
    CHECK(((bitmap[i / 8] >> (i % 8)) & 1) == bytes[i]);
    if (bytes[i] != 0) CHECK(selection[at++] == i);
  }
  CHECK(at == hits);
  CHECK(hits < 1000 + 2000 / 10);  // absent keys: a few false positives at most
}

TEST_CASE("driver: one message for a moved-from filter and a null output, every kind") {
  const uint64_t keys[2] = {1, 2};
  uint8_t out[2];
  uint16_t labels[2];
  Filter f = Filter::create(100, 0.01);
  CountingFilter c = CountingFilter::create(100, 0.01);
  SpatialFilter s = SpatialFilter::create(100, 0.01, 3, 5);
  CHECK_REFUSED(f.contains(Keys(keys, 2), nullptr), "contains: null output with non-zero size");
  CHECK_REFUSED(c.contains(Keys(keys, 2), nullptr),
                "CountingFilter::contains: null output with non-zero size");
  CHECK_REFUSED(c.count(Keys(keys, 2), nullptr),
                "CountingFilter::count: null output with non-zero size");
  CHECK_REFUSED(s.classify(Keys(keys, 2), nullptr),
                "SpatialFilter::classify: null output with non-zero size");
  // No keys: nothing to write, no output needed.
  CHECK(c.contains(Keys(keys, 0), nullptr) == 0);
  CHECK(s.classify(Keys(keys, 0), nullptr) == 0);

  Filter f2 = std::move(f);
  CountingFilter c2 = std::move(c);
  SpatialFilter s2 = std::move(s);
  CHECK_REFUSED(f.contains(Keys(keys, 2), out), "contains: the filter was moved from");
  CHECK_REFUSED(c.contains(Keys(keys, 2), out),
                "CountingFilter::contains: the filter was moved from");
  CHECK_REFUSED(c.insert(Keys(keys, 2)), "CountingFilter::insert: the filter was moved from");
  CHECK_REFUSED(s.classify(Keys(keys, 2), labels),
                "SpatialFilter::classify: the filter was moved from");
  CHECK_REFUSED(s.insert(1, Keys(keys, 2)), "SpatialFilter::insert: the filter was moved from");
}

TEST_CASE("driver: the output's extent is checked under one name per form") {
  const uint64_t keys[2] = {1, 2};
  const CountingFilter c = CountingFilter::create(100, 0.01);
  auto* end = reinterpret_cast<uint8_t*>(UINTPTR_MAX - 1);
  CHECK_THROWS_WITH_AS(c.contains(Keys(keys, 2), end), doctest::Contains("2 result bytes"), Error);
  CHECK_THROWS_WITH_AS(c.count(Keys(keys, 2), end), doctest::Contains("2 count bytes"), Error);
}

}  // namespace
}  // namespace simdbloom
