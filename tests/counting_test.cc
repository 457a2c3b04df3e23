// SPDX-License-Identifier: Apache-2.0
// CountingFilter: every SIMD target's counting kernels against the scalar reference (awkward sizes,
// unaligned keys, tiny filters, saturation), random insert/remove sequences against an exact
// multiset, saturation at 15, remove of absent keys, bulk == single over every key shape,
// to_filter() against a plain filter, persistence and corrupt input.
#include "simdbloom/counting.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/counting/reference.h"
#include "kernels/counting/scalar.h"
#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "lib/core/key_source.h"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

using detail::CountingId;
using detail::KeyKind;
using detail::KeySource;
using detail::Params;
using detail::ResultKind;

constexpr CountingLayout kLayouts[] = {CountingLayout::kBlocked, CountingLayout::kClassic};

// 64-byte aligned zeroed counters for `bytes` bytes.
struct Counters {
  std::vector<uint64_t> storage;
  uint64_t* words;
  explicit Counters(uint64_t bytes) : storage(bytes / 8 + 8, 0) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    words = storage.data() + ((64 - p % 64) % 64) / 8;
  }
};

// Keys copied `misalign` bytes past an 8-byte boundary.
struct KeyBuffer {
  std::vector<uint8_t> bytes;
  const void* ptr;
  KeyBuffer(const std::vector<uint64_t>& keys, size_t misalign, size_t width) {
    bytes.assign(keys.size() * width + 16, 0);
    const uintptr_t p = reinterpret_cast<uintptr_t>(bytes.data());
    uint8_t* start = bytes.data() + ((8 - p % 8) % 8) + misalign;
    for (size_t i = 0; i < keys.size(); ++i) std::memcpy(start + i * width, &keys[i], width);
    ptr = start;
  }
};

struct Geometry {
  CountingId id;
  uint64_t num_blocks;
  uint32_t k;
};

// One target against the reference over one geometry and key source: the same sequence of
// inserts (twice, so counters reach 2 and, in tiny filters, saturate), removes (present and absent
// keys), queries in every result form and counts must give the same counters and results.
void CheckGeometry(const detail::Kernels& target, const Geometry& g, uint64_t seed,
                   const KeySource& src, const std::vector<uint64_t>& keys, size_t n) {
  CAPTURE(static_cast<int>(g.id));
  CAPTURE(g.num_blocks);
  CAPTURE(g.k);
  CAPTURE(n);
  CAPTURE(static_cast<int>(src.kind));
  const detail::CountingKernels& t = target.For(g.id);
  const detail::CountingKernels& r = detail::Reference().For(g.id);
  const uint64_t bytes = detail::CountingBytes(g.id, g.num_blocks);
  Counters a(bytes), b(bytes);
  Params p{g.num_blocks, g.k, seed};
  for (uint32_t distance : {0u, 3u}) {
    p.prefetch_distance = distance;
    std::vector<uint8_t> fa(n + 8, 7), fb(n + 8, 7);
    for (int round = 0; round < 2; ++round) {
      CHECK(t.insert(a.words, p, src, n, fa.data()) == r.insert(b.words, p, src, n, fb.data()));
      CHECK(std::memcmp(a.words, b.words, bytes) == 0);
      CHECK(std::memcmp(fa.data(), fb.data(), n) == 0);
    }
    // Remove every key once: all present (a saturated counter stays), then again: in a large
    // filter most are rejected now, in a tiny one the counts decide.
    for (int round = 0; round < 2; ++round) {
      CHECK(t.remove(a.words, p, src, n, fa.data()) == r.remove(b.words, p, src, n, fb.data()));
      CHECK(std::memcmp(a.words, b.words, bytes) == 0);
      CHECK(std::memcmp(fa.data(), fb.data(), n) == 0);
      if (round == 0) {
        // Put the keys back once, without flags (the null-flag path).
        CHECK(t.insert(a.words, p, src, n, nullptr) == r.insert(b.words, p, src, n, nullptr));
        CHECK(std::memcmp(a.words, b.words, bytes) == 0);
      }
    }
    CHECK(t.insert(a.words, p, src, n, nullptr) == r.insert(b.words, p, src, n, nullptr));
    CHECK(t.remove(a.words, p, src, n, nullptr) == r.remove(b.words, p, src, n, nullptr));
    CHECK(std::memcmp(a.words, b.words, bytes) == 0);
    // Queries over the same keys and over fresh ones.
    std::vector<uint8_t> qa(n + 16, 9), qb(n + 16, 9);
    CHECK(t.count(a.words, p, src, n, qa.data()) == r.count(b.words, p, src, n, qb.data()));
    CHECK(std::memcmp(qa.data(), qb.data(), n) == 0);
    for (ResultKind kind : {ResultKind::kBytes, ResultKind::kBitmap, ResultKind::kSelection}) {
      std::vector<uint32_t> sa(n + 16, 5), sb(n + 16, 5);
      void* oa = kind == ResultKind::kSelection ? static_cast<void*>(sa.data()) : qa.data();
      void* ob = kind == ResultKind::kSelection ? static_cast<void*>(sb.data()) : qb.data();
      const uint64_t ha = t.contains(a.words, p, src, n, kind, oa);
      const uint64_t hb = r.contains(b.words, p, src, n, kind, ob);
      CHECK(ha == hb);
      if (kind == ResultKind::kBytes) CHECK(std::memcmp(qa.data(), qb.data(), n) == 0);
      if (kind == ResultKind::kBitmap) CHECK(std::memcmp(qa.data(), qb.data(), (n + 7) / 8) == 0);
      if (kind == ResultKind::kSelection) CHECK(std::memcmp(sa.data(), sb.data(), 4 * hb) == 0);
    }
  }
  (void)keys;
}

TEST_CASE("equivalence: counting kernels match the reference (sizes, alignment, saturation)") {
  const std::vector<Geometry> geometries = {
      {CountingId::kBlocked, 1, 1},  {CountingId::kBlocked, 1, 16}, {CountingId::kBlocked, 3, 7},
      {CountingId::kBlocked, 37, 4}, {CountingId::kClassic, 1, 1},  {CountingId::kClassic, 1, 32},
      {CountingId::kClassic, 3, 7},
  };
  const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1000};
  test::ForEachTarget("counting", [&](const detail::Kernels& target) {
    for (const Geometry& g : geometries) {
      for (size_t n : sizes) {
        const std::vector<uint64_t> keys = test::RandomKeys(n, 1000 + n);
        const uint64_t seed = n % 2 == 0 ? 0 : 0x9E3779B97F4A7C15ull;
        for (size_t misalign : {0, 3}) {
          KeyBuffer u64(keys, misalign, 8);
          KeySource src;
          src.kind = KeyKind::kU64;
          src.keys = u64.ptr;
          CheckGeometry(target, g, seed, src, keys, n);
          KeyBuffer u32(keys, misalign, 4);
          src.kind = KeyKind::kU32;
          src.keys = u32.ptr;
          CheckGeometry(target, g, seed, src, keys, n);
        }
        KeySource hashes;
        hashes.kind = KeyKind::kHashes;
        hashes.keys = keys.data();
        CheckGeometry(target, g, seed, hashes, keys, n);
        // A selection vector (every other key, reversed).
        std::vector<uint32_t> sel;
        for (size_t i = n; i-- > 0;) {
          if (i % 2 == 0) sel.push_back(static_cast<uint32_t>(i));
        }
        KeySource selected;
        selected.kind = KeyKind::kU64;
        selected.keys = keys.data();
        selected.sel = sel.data();
        CheckGeometry(target, g, seed, selected, keys, sel.size());
      }
    }
  });
}

TEST_CASE("equivalence: the one-key count kernel equals the scalar counters") {
  test::ForEachTarget("counting one key", [&](const detail::Kernels& target) {
    CHECK((target.counting_classic.count_one == nullptr));
    if (target.counting_blocked.count_one == nullptr) return;  // the scalar loop runs there
    test::Rng rng(17);
    alignas(64) uint64_t block[8];  // one 64-byte block: the key's 4 words are one half
    for (int round = 0; round < 2000; ++round) {
      // Random nibbles, a quarter of them 0 and a quarter 15.
      for (uint64_t& word : block) {
        word = 0;
        for (int c = 0; c < 16; ++c) {
          const uint64_t r = rng() % 8;
          const uint64_t v = r < 2 ? 0 : r < 4 ? 15 : rng() % 16;
          word |= v << (4 * c);
        }
      }
      for (uint32_t k = 1; k <= 16; ++k) {
        const uint64_t h = rng();
        const Params p{1, k, 0};
        CAPTURE(k);
        CAPTURE(h);
        const uint64_t* words = block + 4 * detail::BlockOf(h, 2);
        REQUIRE(target.counting_blocked.count_one(words, h, k) ==
                scalar::CountingCount(CountingId::kBlocked, block, p, h));
      }
    }
  });
}

// ---- API ----

// Upper end of a one-sided binomial test: mean + 4 sigma + 1/trials.
double BinomialBound(double p, double trials) {
  return p + 4 * std::sqrt(p * (1 - p) / trials) + 1 / trials;
}

double MeasuredFpr(const CountingFilter& f, size_t probes, uint64_t seed) {
  const std::vector<uint64_t> absent = test::RandomKeys(probes, seed);
  std::vector<uint8_t> out(probes);
  return static_cast<double>(f.contains(absent, out.data())) / static_cast<double>(probes);
}

TEST_CASE("counting: random inserts and removes against an exact multiset") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    const double fpp = 0.01;
    const uint64_t n = 40000;
    CountingFilter f = CountingFilter::create(n, fpp, layout, 7);
    std::unordered_map<uint64_t, int> model;
    test::Rng rng(42);
    std::vector<uint64_t> universe = test::RandomKeys(100000, 43);  // keys drawn from here
    std::vector<uint64_t> batch;
    for (int step = 0; step < 200; ++step) {
      batch.clear();
      const bool removing = step % 3 == 2;
      for (int i = 0; i < 300; ++i) {
        const uint64_t key = universe[rng() % universe.size()];
        if (removing) {
          auto it = model.find(key);
          if (it == model.end()) continue;  // remove only keys inserted
          if (--it->second == 0) model.erase(it);
        } else {
          ++model[key];
        }
        batch.push_back(key);
      }
      if (step % 2 == 0) {
        std::vector<uint8_t> flags(batch.size());
        if (removing) {
          CHECK(f.remove(batch, flags.data()) == batch.size());
        } else {
          f.insert(batch, flags.data());
        }
      } else {
        for (uint64_t key : batch) {
          if (removing) {
            CHECK(f.remove(key));
          } else {
            f.insert(key);
          }
        }
      }
      if (step % 20 == 19 || step == 199) {
        // Never a false negative; count() bounds the multiplicity from above.
        for (const auto& kv : model) {
          REQUIRE(f.contains(kv.first));
          CHECK(f.count(kv.first) >= static_cast<uint32_t>(std::min(kv.second, 15)));
        }
      }
    }
    // Remove most keys: the rate after deletions is that of the keys left (binomial bound).
    std::vector<uint64_t> left;
    for (const auto& kv : model) {
      for (int i = 0; i < kv.second; ++i) left.push_back(kv.first);
    }
    const size_t half = left.size() / 2;
    CHECK(f.remove(Keys(left.data(), half)) == half);
    std::unordered_map<uint64_t, int> rest;
    for (size_t i = half; i < left.size(); ++i) ++rest[left[i]];
    for (const auto& kv : rest) REQUIRE(f.contains(kv.first));
    CHECK(f.size() == left.size() - half);
    const double predicted = f.predicted_fpp(rest.size());
    const size_t probes = 400000;
    CHECK(MeasuredFpr(f, probes, 99) <= BinomialBound(predicted, probes));
    // (No counter saturated at this load, so the counters are exactly those of the keys left.)
    REQUIRE(f.saturated_count() == 0);
    // to_filter of what is left equals a plain filter of the keys left.
    Filter plain = Filter::with_bits(f.counter_count(), f.num_hashes(), f.plain_layout(), f.seed());
    for (const auto& kv : rest) plain.insert(kv.first);
    const Filter converted = f.to_filter();
    REQUIRE(converted.size_bytes() == plain.size_bytes());
    CHECK(std::memcmp(converted.data(), plain.data(), plain.size_bytes()) == 0);
    CHECK(converted.num_hashes() == plain.num_hashes());
    CHECK(converted.layout() == f.plain_layout());
  }
}

TEST_CASE("counting: measured FPR at the design load is at most the asked rate") {
  for (CountingLayout layout : kLayouts) {
    for (double fpp : {0.01, 0.001}) {
      CAPTURE(counting_layout_name(layout));
      CAPTURE(fpp);
      const uint64_t n = 100000;
      const CountingSizing s = counting_size_for(n, fpp, layout);
      CHECK(s.predicted_fpp <= kSizingHeadroom * fpp);
      CountingFilter f = CountingFilter::create(n, fpp, layout, 3);
      CHECK(f.counter_count() == s.counters);
      f.insert(test::RandomKeys(n, 5));
      const size_t probes = 1000000;
      CHECK(MeasuredFpr(f, probes, 6) <= BinomialBound(fpp, probes));
    }
  }
}

TEST_CASE("counting: counters saturate at 15 and stay (no false negative from overflow)") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    CountingFilter f = CountingFilter::with_counters(1, 3, layout);
    const uint64_t key = 12345;
    for (int i = 1; i <= 20; ++i) {
      f.insert(key);
      CHECK(f.count(key) == static_cast<uint32_t>(std::min(i, 15)));
    }
    CHECK(f.saturated_count() >= 1);
    // Every remove succeeds (all counters > 0) but saturated counters never go down.
    for (int i = 0; i < 40; ++i) CHECK(f.remove(key));
    CHECK(f.count(key) == 15);
    CHECK(f.size() == 0);  // 20 inserts, 40 removes: stops at 0
    CHECK(f.contains(key));
    // A counter below 15 does go down: a second key at count 1 goes back to absent unless it
    // shares every counter with the saturated key.
    CountingFilter g = CountingFilter::with_counters(1 << 16, 3, layout);
    for (int i = 0; i < 14; ++i) g.insert(key);
    CHECK(g.count(key) == 14);
    for (int i = 0; i < 14; ++i) CHECK(g.remove(key));
    CHECK(g.count(key) == 0);
    CHECK_FALSE(g.remove(key));
  }
}

TEST_CASE("counting: a saturated key removed too often never wraps the size (issue 45)") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    // The case: one key inserted 15 times, removed 16 times; single and bulk calls.
    CountingFilter f = CountingFilter::create(100, 0.01, layout);
    for (int i = 0; i < 15; ++i) f.insert(std::string_view("k"));
    for (int i = 0; i < 16; ++i) CHECK(f.remove(std::string_view("k")));
    CHECK(f.size() == 0);
    // remove_hash tells the saturated removal apart; a key never inserted is kAbsent.
    CHECK(f.remove_hash(f.hash(std::string_view("k"))) == CountingFilter::kSaturated);
    CHECK(f.remove_hash(f.hash(std::string_view("never"))) == CountingFilter::kAbsent);
    f.insert(std::string_view("once"));
    CHECK(f.remove_hash(f.hash(std::string_view("once"))) == CountingFilter::kRemoved);
    CHECK(f.size() == 0);
    CHECK(f.count(std::string_view("k")) == 15);
    CountingFilter g = CountingFilter::create(100, 0.01, layout);
    const std::vector<uint64_t> once = {5}, sixteen(16, 5);
    for (int i = 0; i < 15; ++i) g.insert(once);
    g.insert(uint64_t{6});  // a key of its own, not saturated
    std::vector<uint8_t> flags(17, 7);
    std::vector<uint64_t> batch = sixteen;
    batch.push_back(6);
    CHECK(g.remove(batch, flags.data()) == 17);
    for (int i = 0; i < 16; ++i) CHECK(flags[i] == 2);  // removed, every counter saturated
    CHECK(flags[16] == 1);
    CHECK(g.size() == 0);
    CHECK(g.count(uint64_t{5}) == 15);
    CHECK_FALSE(g.contains(uint64_t{6}));
    std::stringstream bytes;
    g.save(bytes);
    CHECK(CountingFilter::load(bytes).size() == 0);
  }
}

TEST_CASE("counting: a bulk remove tells how many keys were surely absent (issue 45)") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    CountingFilter f = CountingFilter::create(10000, 0.01, layout);
    f.insert(test::RandomKeys(10000, 31));
    const std::vector<uint64_t> others = test::RandomKeys(190000, 32);
    // The keys the filter answers "maybe" for, applied in order on a copy one by one: exactly
    // those are removed (false positives), the others reported absent with nothing changed.
    CountingFilter single = f;
    uint64_t maybe = 0;
    for (uint64_t key : others) maybe += single.remove(key);
    std::vector<uint8_t> removed(others.size(), 7);
    const uint64_t got = f.remove(others, removed.data());
    CHECK(got == maybe);
    CHECK(others.size() - got ==
          static_cast<uint64_t>(std::count(removed.begin(), removed.end(), 0)));
    CHECK(got > 0);
    CHECK(others.size() - got > 185000);
    CHECK(f.size() == 10000 - got);
    CHECK(std::memcmp(f.data(), single.data(), f.size_bytes()) == 0);
  }
}

TEST_CASE("counting: removing an absent key is reported and changes nothing") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    CountingFilter f = CountingFilter::create(1000, 0.01, layout);
    const std::vector<uint8_t> empty(f.data(), f.data() + f.size_bytes());
    CHECK_FALSE(f.remove(uint64_t{1}));
    CHECK_FALSE(f.remove(std::string_view("never inserted")));
    CHECK(std::memcmp(f.data(), empty.data(), empty.size()) == 0);
    const std::vector<uint64_t> keys = test::RandomKeys(500, 8);
    f.insert(keys);
    const std::vector<uint8_t> before(f.data(), f.data() + f.size_bytes());
    // Absent keys with a counter at 0 are rejected, one by one and in bulk, leaving every byte.
    std::vector<uint64_t> absent;
    for (uint64_t key : test::RandomKeys(2000, 9)) {
      if (!f.contains(key)) absent.push_back(key);
    }
    REQUIRE(absent.size() > 1500);
    for (uint64_t key : absent) CHECK_FALSE(f.remove(key));
    std::vector<uint8_t> removed(absent.size(), 7);
    CHECK(f.remove(absent, removed.data()) == 0);
    for (uint8_t r : removed) CHECK(r == 0);
    CHECK(std::memcmp(f.data(), before.data(), before.size()) == 0);
    CHECK(f.size() == keys.size());
    // A mixed batch: present keys removed, absent ones rejected, in key order (as single calls).
    CountingFilter single = f;
    const std::vector<uint64_t> mixed = {keys[0], absent[0], keys[1], keys[0], absent[1]};
    std::vector<uint8_t> flags(mixed.size(), 7);
    uint64_t want = 0;
    for (size_t i = 0; i < mixed.size(); ++i) {
      const bool r = single.remove(mixed[i]);
      want += r;
    }
    CHECK(f.remove(mixed, flags.data()) == want);
    CHECK(flags[0] == 1);
    CHECK(flags[1] == 0);
    CHECK(flags[2] == 1);
    CHECK(flags[4] == 0);
    CHECK(std::memcmp(f.data(), single.data(), f.size_bytes()) == 0);
  }
}

// Every query form of `bulk` over the shape's keys (count, contains as bytes, bitmap and
// selection) against `single`'s single-key answers; returns the hits.
std::vector<uint8_t> CheckQueries(const CountingFilter& bulk, const CountingFilter& single,
                                  const test::KeyShapes::Shape& shape) {
  const size_t n = shape.keys.size();
  std::vector<uint8_t> counts(n), hits(n), bitmap((n + 7) / 8);
  std::vector<uint32_t> sel(n);
  bulk.count(shape.keys, counts.data());
  const uint64_t nhits = bulk.contains(shape.keys, hits.data());
  CHECK(bulk.contains_bitmap(shape.keys, bitmap.data()) == nhits);
  CHECK(bulk.select(shape.keys, sel.data()) == nhits);
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    REQUIRE(counts[i] == single.count_hash(shape.hash(i)));
    REQUIRE(hits[i] == single.contains_hash(shape.hash(i)));
    REQUIRE(((bitmap[i / 8] >> (i % 8)) & 1) == hits[i]);
    if (hits[i]) REQUIRE(sel[at++] == i);
  }
  return hits;
}

TEST_CASE("counting: bulk calls equal single-key calls over every key shape") {
  test::KeyShapes data(test::RandomKeys(700, 11));
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    test::ForEachApiTarget([&](const std::string&) {
      CountingFilter proto = CountingFilter::create(3000, 0.01, layout, 77);
      const std::vector<test::KeyShapes::Shape> shapes = data.For(proto);
      for (size_t s = 0; s < shapes.size(); ++s) {
        CAPTURE(s);
        const test::KeyShapes::Shape& shape = shapes[s];
        const size_t n = shape.keys.size();
        CountingFilter bulk = proto, single = proto;
        std::vector<uint8_t> fresh(n), expect(n);
        // Twice, then remove a prefix: repeats within and across batches.
        for (int round = 0; round < 2; ++round) {
          const uint64_t got = bulk.insert(shape.keys, fresh.data());
          uint64_t want = 0;
          for (size_t i = 0; i < n; ++i) want += expect[i] = single.insert_hash(shape.hash(i));
          CHECK(got == want);
          CHECK(fresh == expect);
        }
        CHECK(std::memcmp(bulk.data(), single.data(), bulk.size_bytes()) == 0);
        std::vector<uint8_t> removed(n);
        const uint64_t got = bulk.remove(shape.keys, removed.data());
        uint64_t want = 0;
        for (size_t i = 0; i < n; ++i) {
          expect[i] = single.remove_hash(shape.hash(i));  // 0, 1, 2 as the bulk call's bytes
          want += expect[i] != 0;
        }
        CHECK(got == want);
        CHECK(removed == expect);
        CHECK(std::memcmp(bulk.data(), single.data(), bulk.size_bytes()) == 0);
        CheckQueries(bulk, single, shape);
        CHECK(bulk.size() == single.size());
      }
    });
  }
}

TEST_CASE("counting: byte-string batches in hashed chunks equal single-key calls") {
  // More than one kStringChunk (16384) of string keys, and a count that is no multiple of 8: the
  // chunked path with results (bytes, bitmap, selection, counts, fresh, removed) across chunks.
  test::KeyShapes data(test::RandomKeys(16384 + 4097, 12));
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    CountingFilter bulk = CountingFilter::create(40000, 0.01, layout, 78);
    CountingFilter single = bulk;
    const std::vector<test::KeyShapes::Shape> shapes = data.For(bulk);
    for (size_t s = 3; s <= 6; ++s) {  // std::string, string_view, Arrow 32 and 64
      CAPTURE(s);
      const test::KeyShapes::Shape& shape = shapes[s];
      const size_t n = shape.keys.size();
      const Keys first = detail::SliceKeys(shape.keys, 0, n / 2);
      std::vector<uint8_t> fresh(n / 2), expect(n);
      const uint64_t got = bulk.insert(first, fresh.data());
      CHECK(got == static_cast<uint64_t>(std::count(fresh.begin(), fresh.end(), 1)));
      for (size_t i = 0; i < n / 2; ++i) REQUIRE(fresh[i] == single.insert_hash(shape.hash(i)));
      const std::vector<uint8_t> hits = CheckQueries(bulk, single, shape);
      for (size_t i = 0; i < n / 2; ++i) REQUIRE(hits[i] == 1);
      std::vector<uint8_t> removed(n / 4);
      CHECK(bulk.remove(detail::SliceKeys(shape.keys, 0, n / 4), removed.data()) == n / 4);
      for (size_t i = 0; i < n / 4; ++i) REQUIRE(single.remove_hash(shape.hash(i)));
      CHECK(std::count(removed.begin(), removed.end(), 1) == static_cast<long>(n / 4));
      CHECK(std::memcmp(bulk.data(), single.data(), bulk.size_bytes()) == 0);
      bulk.clear();
      single.clear();
    }
  }
}

TEST_CASE("counting: to_filter equals a plain filter of the same keys") {
  for (CountingLayout layout : kLayouts) {
    for (uint64_t n : {uint64_t{1}, uint64_t{1000}, uint64_t{50000}}) {
      CAPTURE(counting_layout_name(layout));
      CAPTURE(n);
      CountingFilter f = CountingFilter::create(n, 0.005, layout, 99);
      const std::vector<uint64_t> keys = test::RandomKeys(n, n);
      const std::vector<uint64_t> gone = test::RandomKeys(n / 2 + 1, n + 1);
      f.insert(gone);
      f.insert(keys);
      CHECK(f.remove(gone) == gone.size());
      Filter plain = Filter::with_bits(f.counter_count(), f.num_hashes(), f.plain_layout(), 99);
      plain.insert(keys);
      const Filter converted = f.to_filter();
      CHECK(converted.layout() == plain.layout());
      CHECK(converted.num_blocks() == plain.num_blocks());
      CHECK(converted.seed() == 99);
      CHECK(converted.inserted_count() == n);
      REQUIRE(converted.size_bytes() == f.size_bytes() / 4);
      CHECK(std::memcmp(converted.data(), plain.data(), plain.size_bytes()) == 0);
      for (uint64_t key : keys) REQUIRE(converted.contains(key));
      CHECK(converted.hash(uint64_t{5}) == f.hash(uint64_t{5}));
    }
  }
}

// Counter i of a filter (nibble i of its bytes).
uint32_t CounterAt(const CountingFilter& f, uint64_t i) {
  return (f.data()[i / 2] >> (4 * (i % 2))) & 0xF;
}

TEST_CASE("counting: merge equals one filter of both halves; sums cap at 15") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    // Two halves built apart (with removes) against one filter that saw everything.
    CountingFilter a = CountingFilter::create(20000, 0.01, layout, 5);
    CountingFilter b = CountingFilter::create(20000, 0.01, layout, 5);
    CountingFilter whole = CountingFilter::create(20000, 0.01, layout, 5);
    const std::vector<uint64_t> left = test::RandomKeys(9000, 1);
    const std::vector<uint64_t> right = test::RandomKeys(9000, 2);
    const std::vector<uint64_t> gone(left.begin(), left.begin() + 3000);
    a.insert(left);
    CHECK(a.remove(gone) == gone.size());
    b.insert(right);
    whole.insert(left);
    whole.insert(right);
    CHECK(whole.remove(gone) == gone.size());
    REQUIRE(a.compatible(b));
    a.merge(b);
    CHECK(a.size() == whole.size());
    CHECK(std::memcmp(a.data(), whole.data(), a.size_bytes()) == 0);
    for (size_t i = 3000; i < left.size(); ++i) REQUIRE(a.contains(left[i]));
    for (uint64_t key : right) REQUIRE(a.contains(key));

    // Every pair of counter values, each sum capped at 15, in every nibble position: a filter
    // whose counters take chosen values through repeated inserts of single keys.
    CountingFilter x = CountingFilter::with_counters(4096, 1, layout, 9);
    CountingFilter y = CountingFilter::with_counters(4096, 1, layout, 9);
    for (uint64_t key = 0; key < 600; ++key) {
      for (uint64_t r = 0; r < key % 16; ++r) x.insert(key);
      for (uint64_t r = 0; r < (key / 16) % 16; ++r) y.insert(key);
    }
    std::vector<uint32_t> expect(x.counter_count());
    for (uint64_t i = 0; i < x.counter_count(); ++i) {
      expect[i] = std::min<uint32_t>(CounterAt(x, i) + CounterAt(y, i), 15);
    }
    x.merge(y);
    uint64_t sums_over_15 = 0;
    for (uint64_t i = 0; i < x.counter_count(); ++i) {
      REQUIRE(CounterAt(x, i) == expect[i]);
      sums_over_15 += expect[i] == 15;
    }
    CHECK(sums_over_15 > 50);  // the capped case was exercised
    // Merged with itself: every counter doubles (capped).
    CountingFilter z = CountingFilter::with_counters(4096, 1, layout, 9);
    for (uint64_t key = 0; key < 300; ++key) z.insert(key);
    const CountingFilter before = z;
    z.merge(z);
    for (uint64_t i = 0; i < z.counter_count(); ++i) {
      REQUIRE(CounterAt(z, i) == std::min<uint32_t>(2 * CounterAt(before, i), 15));
    }
    CHECK(z.size() == 600);
  }
}

TEST_CASE("counting: merge refuses other parameters, views and moved-from filters") {
  CountingFilter a = CountingFilter::with_counters(4096, 3, CountingLayout::kBlocked, 1);
  const auto refused = [&](const CountingFilter& other, const char* what) {
    CAPTURE(what);
    CHECK_FALSE(a.compatible(other));
    try {
      a.merge(other);
      FAIL("merge accepted an incompatible filter");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kIncompatible);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  refused(CountingFilter::with_counters(4096, 3, CountingLayout::kClassic, 1), "layout");
  refused(CountingFilter::with_counters(8192, 3, CountingLayout::kBlocked, 1), "size");
  refused(CountingFilter::with_counters(4096, 4, CountingLayout::kBlocked, 1), "k 3 vs 4");
  refused(CountingFilter::with_counters(4096, 3, CountingLayout::kBlocked, 2), "seed 1 vs 2");
  std::ostringstream out;
  a.save(out);
  const std::string bytes = out.str();
  const test::Aligned aligned(bytes);
  CountingFilter view = CountingFilter::view(aligned.ptr, bytes.size());
  CHECK_THROWS_WITH_AS(view.merge(a), doctest::Contains("read-only"), Error);
  CountingFilter moved = a;
  CountingFilter taken = std::move(moved);
  CHECK_THROWS_AS(a.merge(moved), Error);
  CHECK_THROWS_AS(moved.merge(a), Error);
  a.merge(view);  // a view is a valid source
}

TEST_CASE("counting: save, load, view round trip; corrupt input is an error") {
  for (CountingLayout layout : kLayouts) {
    CAPTURE(counting_layout_name(layout));
    CountingFilter f = CountingFilter::create(2000, 0.01, layout, 5);
    f.insert(test::RandomKeys(2000, 21));
    f.remove(test::RandomKeys(100, 21));
    std::ostringstream out;
    f.save(out);
    const std::string bytes = out.str();
    REQUIRE(bytes.size() == f.serialized_size());
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    auto same = [&](const CountingFilter& g) {
      CHECK(g.layout() == f.layout());
      CHECK(g.size() == f.size());
      test::CheckSameBits(f, g);
    };
    same(CountingFilter::load(data, bytes.size()));
    std::istringstream in(bytes);
    same(CountingFilter::load(in));
    // Bytes after the counters (a concatenation, a file written over a longer one) are a format
    // error from a stream or a file, as from memory and for every other kind.
    std::istringstream longer(bytes + "x");
    CHECK_THROWS_WITH_AS(CountingFilter::load(longer), doctest::Contains("trailing"), Error);
    {
      const std::string path = "simdbloom_counting_test_trailing.bin";
      std::ofstream(path, std::ios::binary) << bytes << "x";
      CHECK_THROWS_WITH_AS(CountingFilter::load_file(path), doctest::Contains("trailing"), Error);
      std::remove(path.c_str());
    }
    void* aligned = nullptr;
    REQUIRE(posix_memalign(&aligned, 64, bytes.size()) == 0);
    std::memcpy(aligned, bytes.data(), bytes.size());
    {
      CountingFilter v = CountingFilter::view(static_cast<const uint8_t*>(aligned), bytes.size());
      same(v);
      CHECK(v.is_view());
      CHECK_THROWS_AS(v.insert(uint64_t{1}), Error);
      CHECK(v.count(uint64_t{1}) == f.count(uint64_t{1}));
      CountingFilter copy = v;  // an owning copy
      CHECK_FALSE(copy.is_view());
      copy.insert(uint64_t{1});
    }
    CHECK_THROWS_AS(
        CountingFilter::view(static_cast<const uint8_t*>(aligned) + 1, bytes.size() - 1), Error);
    std::free(aligned);
    const std::string path = "counting_test_roundtrip.sbc";
    f.save_file(path);
    same(CountingFilter::load_file(path));
    std::remove(path.c_str());
    CHECK_THROWS_AS(CountingFilter::load_file("/nonexistent/dir/x.sbc"), Error);

    auto format_error = [](const std::string& b) {
      try {
        CountingFilter::load(reinterpret_cast<const uint8_t*>(b.data()), b.size());
      } catch (const Error& e) {
        return e.code() == ErrorCode::kFormat;
      }
      return false;
    };
    // Every truncation, every header byte flipped, a payload byte flipped, a byte appended.
    for (size_t len = 0; len < bytes.size(); len += (len < 80 ? 1 : 97)) {
      CHECK(format_error(bytes.substr(0, len)));
    }
    for (size_t i = 0; i < 64; ++i) {
      std::string b = bytes;
      b[i] = static_cast<char>(b[i] ^ 0x20);
      CHECK(format_error(b));
    }
    std::string b = bytes;
    b[100] = static_cast<char>(b[100] ^ 1);
    CHECK(format_error(b));
    CHECK(format_error(bytes + "x"));
    // A plain filter's file is not a counting filter.
    std::ostringstream plain;
    f.to_filter().save(plain);
    CHECK(format_error(plain.str()));
  }
}

TEST_CASE("counting: arguments and moved-from filters") {
  CHECK_THROWS_AS(CountingFilter::with_counters(0, 3), Error);
  CHECK_THROWS_AS(CountingFilter::with_counters(128, 0), Error);
  CHECK_THROWS_AS(CountingFilter::with_counters(128, 17, CountingLayout::kBlocked), Error);
  CHECK_NOTHROW(CountingFilter::with_counters(512, 32, CountingLayout::kClassic));
  CHECK_THROWS_AS(CountingFilter::with_counters(128, 3, static_cast<CountingLayout>(9)), Error);
  CHECK_THROWS_AS(CountingFilter::create(0, 0.01), Error);
  CHECK_THROWS_AS(counting_size_for(uint64_t{1} << 40, 1e-6), Error);
  CountingFilter f = CountingFilter::with_counters(1000, 3);
  CHECK(f.counter_count() == 1024);
  CHECK(f.size_bytes() == 512);
  f.insert(uint64_t{3});
  CountingFilter g = std::move(f);
  CHECK(g.contains(uint64_t{3}));
  // NOLINTNEXTLINE(bugprone-use-after-move): documented state: every key call throws
  CHECK_THROWS_AS((void)f.contains(uint64_t{3}), Error);
  CHECK_THROWS_AS((void)f.count(uint64_t{3}), Error);
  CHECK_THROWS_AS(f.insert(uint64_t{3}), Error);
  uint8_t out[1];
  const uint64_t key = 3;
  CHECK_THROWS_AS(f.contains(Keys(&key, 1), out), Error);
  CHECK_THROWS_AS(g.contains(Keys(&key, 1), nullptr), Error);
}

}  // namespace
}  // namespace simdbloom
