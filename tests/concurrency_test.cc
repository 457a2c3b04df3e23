// SPDX-License-Identifier: Apache-2.0
// Many writers and many cores: insert_concurrent from several threads loses no key, queries racing
// with writers never miss a key whose insert happened-before them, and bulk calls split across
// threads (simdbloom::Threads) give the single-threaded bytes and results. Run natively and under
// ThreadSanitizer (cmake/tsan.sh).
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "lib/core/bulk.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// Under ThreadSanitizer everything runs 5-15x slower: fewer keys and trials, same checks.
#if defined(__SANITIZE_THREAD__)
constexpr size_t kScale = 8;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr size_t kScale = 8;
#else
constexpr size_t kScale = 1;
#endif
#else
constexpr size_t kScale = 1;
#endif

size_t CountMissing(const Filter& f, const std::vector<uint64_t>& keys) {
  std::vector<uint8_t> out(keys.size());
  return keys.size() - f.contains(keys, out.data());
}

// The reported experiment: two threads inserting into one filter at once. With plain insert this
// lost keys (1,624 false negatives over 20 trials); insert_concurrent, single keys and bulk, must
// lose none, on every layout.
TEST_CASE("concurrency: two writers lose no key (20 trials, every layout)") {
  const size_t per_thread = 100000 / kScale;
  size_t missing_single = 0, missing_bulk = 0;
  for (Layout layout : layouts()) {
    CAPTURE(std::string(layout_name(layout)));
    for (int trial = 0; trial < 20; ++trial) {
      const std::vector<uint64_t> a = test::RandomKeys(per_thread, 1000 + trial);
      const std::vector<uint64_t> b = test::RandomKeys(per_thread, 2000 + trial);
      for (bool bulk : {false, true}) {
        // A small filter: both threads keep hitting the same blocks.
        Filter f = Filter::create(2 * per_thread, 0.05, layout);
        auto writer = [&](const std::vector<uint64_t>& keys) {
          if (bulk) {
            for (size_t i = 0; i < keys.size(); i += 1000) {
              f.insert_concurrent({keys.data() + i, std::min<size_t>(1000, keys.size() - i)});
            }
          } else {
            for (uint64_t k : keys) f.insert_concurrent(k);
          }
        };
        std::thread t1(writer, std::cref(a)), t2(writer, std::cref(b));
        t1.join();
        t2.join();
        const size_t missing = CountMissing(f, a) + CountMissing(f, b);
        (bulk ? missing_bulk : missing_single) += missing;
        CHECK(f.inserted_count() == 2 * per_thread);
        // The same bytes as one thread inserting both sets.
        Filter g = Filter::create(2 * per_thread, 0.05, layout);
        g.insert(a);
        g.insert(b);
        CHECK(std::memcmp(f.data(), g.data(), f.size_bytes()) == 0);
      }
    }
  }
  MESSAGE("two writers, 20 trials x 4 layouts: " << missing_single << " keys lost (single-key), "
                                                 << missing_bulk << " (bulk)");
  CHECK(missing_single == 0);
  CHECK(missing_bulk == 0);
}

// W writers insert disjoint key ranges in batches and publish how far they got (release); R
// readers repeatedly read that (acquire) and query everything published: no false negative may
// ever appear, single-key or bulk, while the writers are still going.
// The first insert_concurrent into a filter without a key type sets it atomically: writers of
// integers and of byte strings racing for it never both succeed, and every key that went in is
// found (the type never changes under a key already inserted).
TEST_CASE("concurrency: racing first writers of different key types never mix them") {
  for (int trial = 0; trial < 20; ++trial) {
    Filter f = Filter::create(10000, 0.01);
    std::atomic<int> ints_in{0}, strings_in{0}, refused{0};
    auto ints = [&] {
      for (uint64_t k = 0; k < 500; ++k) {
        try {
          f.insert_concurrent(k);
          ints_in.fetch_add(1);
        } catch (const KeyTypeError&) {
          refused.fetch_add(1);
        }
      }
    };
    auto strings = [&] {
      const std::vector<std::string> keys = {"a", "b", "c", "d"};
      for (int r = 0; r < 125; ++r) {
        try {
          f.insert_concurrent(Keys(keys));
          strings_in.fetch_add(1);
        } catch (const KeyTypeError&) {
          refused.fetch_add(1);
        }
      }
    };
    std::thread a(ints), b(strings);
    a.join();
    b.join();
    CHECK((ints_in.load() == 0 || strings_in.load() == 0));
    CHECK(ints_in.load() + strings_in.load() + refused.load() == 625);
    if (ints_in.load() > 0) {
      CHECK(f.key_type() == KeyType::kInt64);
      for (uint64_t k = 0; k < 500; ++k) REQUIRE(f.contains(k));
    } else {
      CHECK(f.key_type() == KeyType::kBytes);
      CHECK(f.contains("a"));
    }
  }
}

TEST_CASE("concurrency: readers racing with writers never miss a published key") {
  constexpr int kWriters = 3, kReaders = 2;
  const size_t per_writer = 60000 / kScale, batch = 500;
  for (Layout layout : layouts()) {
    CAPTURE(std::string(layout_name(layout)));
    Filter f = Filter::create(kWriters * per_writer, 0.01, layout, 7);
    std::vector<std::vector<uint64_t>> keys;
    for (int w = 0; w < kWriters; ++w) keys.push_back(test::RandomKeys(per_writer, 50 + w));
    std::atomic<size_t> published[kWriters];
    for (auto& p : published) p.store(0);
    std::atomic<int> writers_done{0}, ready{0};
    // Every thread starts once all have started, so the readers do run while the writers write.
    auto start_together = [&] {
      ready.fetch_add(1);
      while (ready.load() < kWriters + kReaders) std::this_thread::yield();
    };
    std::atomic<size_t> false_negatives{0}, checks{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
      threads.emplace_back([&, w] {
        start_together();
        for (size_t i = 0; i < per_writer; i += batch) {
          const size_t m = std::min(batch, per_writer - i);
          if ((i / batch) % 2 == 0) {
            f.insert_concurrent({keys[w].data() + i, m});
          } else {
            for (size_t j = i; j < i + m; ++j) f.insert_concurrent(keys[w][j]);
          }
          published[w].store(i + m, std::memory_order_release);
        }
        writers_done.fetch_add(1);
      });
    }
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&, r] {
        std::vector<uint8_t> out(batch);
        test::Rng rng(r);
        start_together();
        // Until a pass that began after every writer had finished: on a loaded machine a reader
        // may first run when the writers are done, and must still check their keys.
        bool last = false;
        do {
          last = writers_done.load() == kWriters;
          for (int w = 0; w < kWriters; ++w) {
            const size_t upto = published[w].load(std::memory_order_acquire);
            if (upto == 0) continue;
            // A published batch in bulk, and single keys.
            const size_t at = rng() % upto / batch * batch;
            const size_t m = std::min(batch, upto - at);
            false_negatives += m - f.contains({keys[w].data() + at, m}, out.data());
            for (int q = 0; q < 16; ++q) false_negatives += !f.contains(keys[w][rng() % upto]);
            checks += m + 16;
          }
        } while (!last);
      });
    }
    for (std::thread& t : threads) t.join();
    MESSAGE(std::string(layout_name(layout)) << ": " << checks.load() << " racing queries, "
                                             << false_negatives.load() << " false negatives");
    CHECK(false_negatives.load() == 0);
    CHECK(checks.load() > 0);
    size_t missing = 0;
    for (int w = 0; w < kWriters; ++w) missing += CountMissing(f, keys[w]);
    CHECK(missing == 0);
  }
}

// Parallel bulk calls equal the single-threaded ones: filter bytes after insert, contains bytes,
// bitmaps (parts start on whole bytes; a key count that is not a multiple of 8), selections (same
// indices, same order), on every layout and target.
TEST_CASE("concurrency: parallel bulk calls equal sequential ones") {
  const size_t n = 200003 / kScale;  // several parts of >= 32768 keys; odd
  const std::vector<uint64_t> keys = test::RandomKeys(n, 3);
  std::vector<uint64_t> probes = test::RandomKeys(n, 4);
  std::copy(keys.begin(), keys.begin() + n / 2, probes.begin());  // half present
  test::ForEachApiTarget([&](const std::string&) {
    for (Layout layout : layouts()) {
      CAPTURE(std::string(layout_name(layout)));
      Filter seq = Filter::create(n, 0.02, layout, 11);
      std::vector<uint8_t> want_fresh(n);
      const uint64_t want_new = seq.insert(keys, want_fresh.data());
      CHECK(want_new == static_cast<uint64_t>(std::count(want_fresh.begin(), want_fresh.end(), 1)));
      std::vector<uint8_t> want_out(n), want_bits((n + 7) / 8);
      std::vector<uint32_t> want_sel(n);
      const uint64_t want_hits = seq.contains(probes, want_out.data());
      CHECK(seq.contains_bitmap(probes, want_bits.data()) == want_hits);
      CHECK(seq.select(probes, want_sel.data()) == want_hits);
      for (unsigned t : {2u, 3u, 8u}) {
        CAPTURE(t);
        Filter par = Filter::create(n, 0.02, layout, 11);
        std::vector<uint8_t> fresh(n);
        const uint64_t got_new = par.insert(keys, fresh.data(), Threads{t});
        CHECK(std::memcmp(par.data(), seq.data(), seq.size_bytes()) == 0);
        // "New" depends on which part got to a shared bit first, so it is checked for what it
        // must be: 0/1 bytes adding up to the count, and (distinct random keys) almost all new,
        // as sequentially.
        size_t ones = 0;
        for (uint8_t x : fresh) {
          REQUIRE(x <= 1);
          ones += x;
        }
        CHECK(ones == got_new);
        CHECK(got_new > n - n / 20);
        CHECK(par.inserted_count() == n);
        std::vector<uint8_t> out(n, 0xEE), bits((n + 7) / 8, 0xEE);
        std::vector<uint32_t> sel(n, 0xEEEEEEEE);
        CHECK(par.contains(probes, out.data(), Threads{t}) == want_hits);
        CHECK(out == want_out);
        CHECK(par.contains_bitmap(probes, bits.data(), Threads{t}) == want_hits);
        CHECK(bits == want_bits);
        CHECK(par.select(probes, sel.data(), Threads{t}) == want_hits);
        CHECK(std::equal(sel.begin(), sel.begin() + want_hits, want_sel.begin()));
        Filter plain = Filter::create(n, 0.02, layout, 11);
        plain.insert(keys, Threads{t});
        CHECK(std::memcmp(plain.data(), seq.data(), seq.size_bytes()) == 0);
      }
      // A batch small against the filter (fewer keys than size_bytes() / 8) runs on the calling
      // thread: same bytes, and the exact sequential count of new keys.
      {
        const uint32_t k = layout == Layout::kSplitBlock256 ? 8 : 6;
        Filter big_seq = Filter::with_bits(uint64_t{1} << 26, k, layout, 5);  // 8 MiB
        Filter big_par = Filter::with_bits(uint64_t{1} << 26, k, layout, 5);
        const uint64_t want = big_seq.insert(keys);
        CHECK(big_par.insert(keys, Threads{2}) == want);
        CHECK(std::memcmp(big_par.data(), big_seq.data(), big_seq.size_bytes()) == 0);
      }
      // Byte strings split across threads too.
      std::vector<std::string> strings;
      for (size_t i = 0; i < n / 4; ++i) strings.push_back("key-" + std::to_string(keys[i]));
      Filter s1 = Filter::create(n, 0.02, layout), s2 = Filter::create(n, 0.02, layout);
      s1.insert(strings);
      s2.insert(strings, Threads{2});
      CHECK(std::memcmp(s1.data(), s2.data(), s1.size_bytes()) == 0);
    }
  });
}

// query(out, threads) on 2, 3 and 8 threads writes the output and returns the result it does on
// one thread (returned); a null output is refused before any thread starts.
template <class T, class Query>
uint64_t CheckThreadsEqualOne(size_t n, const Query& query) {
  std::vector<T> want(n);
  const uint64_t want_result = query(want.data(), Threads{1});
  for (unsigned t : {2u, 3u, 8u}) {
    CAPTURE(t);
    std::vector<T> got(n, static_cast<T>(0xEEEE));
    CHECK(query(got.data(), Threads{t}) == want_result);
    CHECK(got == want);
  }
  CHECK(test::CodeOf([&] { query(nullptr, Threads{4}); }) == ErrorCode::kInvalidArgument);
  return want_result;
}

// The keys of the kinds' parallel-query cases: n keys, n probes of which the first half are keys
// (present), and the probes as strings ("key-" and the number).
struct QueryKeys {
  const size_t n = 200003 / kScale;  // several parts of >= 32768 keys; odd
  std::vector<uint64_t> keys, probes;
  std::vector<std::string> strings;
  explicit QueryKeys(uint64_t seed)
      : keys(test::RandomKeys(n, seed)), probes(test::RandomKeys(n, seed + 1)) {
    std::copy(keys.begin(), keys.begin() + n / 2, probes.begin());  // half present
    for (size_t i = 0; i < n; ++i) strings.push_back("key-" + std::to_string(probes[i]));
  }
};

// The other kinds' parallel queries (CountingFilter::contains/count, SpatialFilter::classify):
// the outputs and results of one thread, for integer and string keys.
TEST_CASE("concurrency: counting and spatial queries on threads equal one thread") {
  const QueryKeys q(21);  // (no structured bindings: C++17 lambdas cannot capture them)
  const size_t n = q.n;
  const auto &keys = q.keys, &probes = q.probes;
  const auto& strings = q.strings;
  test::ForEachApiTarget([&](const std::string&) {
    for (CountingLayout layout : {CountingLayout::kBlocked, CountingLayout::kClassic}) {
      CAPTURE(static_cast<int>(layout));
      CountingFilter f = CountingFilter::create(n, 0.02, layout, 7);
      f.insert(keys);
      f.insert(Keys(keys.data(), n / 8));  // counts of 2 for some keys
      CountingFilter g = CountingFilter::create(n, 0.02, layout, 7);
      g.insert(Keys(strings.data(), n / 4));
      const uint64_t hits = CheckThreadsEqualOne<uint8_t>(
          n, [&](uint8_t* out, Threads t) { return f.contains(probes, out, t); });
      CHECK(hits >= n / 2);
      const uint64_t sum = CheckThreadsEqualOne<uint8_t>(
          n, [&](uint8_t* out, Threads t) { return f.count(probes, out, t); });
      CHECK(sum > hits);
      CHECK(CheckThreadsEqualOne<uint8_t>(
                n, [&](uint8_t* out, Threads t) { return g.contains(strings, out, t); }) >= n / 4);
    }
    for (uint32_t areas : {3u, 300u}) {  // 1- and 2-byte cells
      CAPTURE(areas);
      SpatialFilter f = SpatialFilter::create(n, 0.02, areas, 9);
      for (uint16_t label = 1; label <= 3; ++label) {
        f.insert(label, Keys(keys.data() + (label - 1) * (n / 3), n / 3));
      }
      SpatialFilter g = SpatialFilter::create(n, 0.02, areas, 9);
      g.insert(2, Keys(strings.data(), n / 4));
      CHECK(CheckThreadsEqualOne<uint16_t>(n, [&](uint16_t* out, Threads t) {
              return f.classify(probes, out, t);
            }) >= n / 2 - 3);
      CHECK(CheckThreadsEqualOne<uint16_t>(
                n, [&](uint16_t* out, Threads t) { return g.classify(strings, out, t); }) >= n / 4);
    }
  });
}

// The shifting set filters' parallel queries (issue 41: one line over the bulk driver each):
// the outputs of one thread, for integer and string keys; the lambdas return the outputs' sum.
TEST_CASE("concurrency: shifting set queries on threads equal one thread") {
  const QueryKeys q(31);
  test::ForEachApiTarget([&](const std::string&) {
    ShiftingAssociation a = ShiftingAssociation::create(q.n, 0.02, 5);
    a.insert(Keys(q.keys.data(), q.n / 4), ShiftingAssociation::kOnlyFirst);
    a.insert(Keys(q.keys.data() + q.n / 4, q.n / 4), ShiftingAssociation::kOnlySecond);
    ShiftingAssociation b = ShiftingAssociation::create(q.n, 0.02, 5);
    b.insert(Keys(q.strings.data(), q.n / 4), ShiftingAssociation::kBoth);
    auto answers = [&q](const uint8_t* out) {
      uint64_t sum = 0;
      for (size_t i = 0; i < q.n; ++i) sum += out[i] != 0;
      return sum;
    };
    CHECK(CheckThreadsEqualOne<uint8_t>(q.n, [&](uint8_t* out, Threads t) {
            a.query(q.probes, out, t);
            return answers(out);
          }) >= q.n / 2);
    CHECK(CheckThreadsEqualOne<uint8_t>(q.n, [&](uint8_t* out, Threads t) {
            b.query(q.strings, out, t);
            return answers(out);
          }) >= q.n / 4);
    ShiftingMultiplicity m = ShiftingMultiplicity::create(q.n, 0.02, 8, 6);
    m.insert(Keys(q.keys.data(), q.n / 4), 3);
    m.insert(Keys(q.keys.data() + q.n / 4, q.n / 4), 1);
    const uint64_t sum = CheckThreadsEqualOne<uint32_t>(q.n, [&](uint32_t* out, Threads t) {
      m.count(q.probes, out, t);
      uint64_t s = 0;
      for (size_t i = 0; i < q.n; ++i) s += out[i];
      return s;
    });
    CHECK(sum >= q.n / 2 + q.n / 4);  // present keys count at least 1, most of the 3s 3
  });
}

// ScalableFilter's chain queries on threads (the driver's parts over the chain's tiles): the
// bytes, bitmap and selection of one thread, for integer and string keys, and for an int32 chain
// asked about int64 values out of its range (cleared after the parts).
TEST_CASE("concurrency: scalable chain queries on threads equal one thread") {
  const QueryKeys q(41);  // (no structured bindings: C++17 lambdas cannot capture them)
  const size_t n = q.n;
  const auto &keys = q.keys, &probes = q.probes;
  const auto& strings = q.strings;
  std::vector<int64_t> wide(n);  // int32 values, and every third one out of int32's range
  for (size_t i = 0; i < n; ++i) {
    wide[i] = i % 3 == 0 ? int64_t{1} << 40 | int64_t(i) : int64_t(int32_t(probes[i]));
  }
  std::vector<int32_t> narrow(n / 2);
  for (size_t i = 0; i < n / 2; ++i) narrow[i] = int32_t(keys[i]);
  test::ForEachApiTarget([&](const std::string&) {
    ScalableFilter a = ScalableFilter::create(n / 16, 0.02);
    a.insert(Keys(keys.data(), n / 2));
    ScalableFilter b = ScalableFilter::create(n / 16, 0.02);
    b.insert(Keys(strings.data(), n / 2));
    ScalableFilter c = ScalableFilter::create(n / 16, 0.02);
    c.insert(Keys(narrow.data(), narrow.size()));
    REQUIRE(a.stages() > 2);
    REQUIRE(b.stages() > 2);
    REQUIRE(c.stages() > 2);
    const uint64_t hits = CheckThreadsEqualOne<uint8_t>(
        n, [&](uint8_t* out, Threads t) { return a.contains(probes, out, t); });
    CHECK(hits >= n / 2);
    CHECK(CheckThreadsEqualOne<uint8_t>(
              n, [&](uint8_t* out, Threads t) { return b.contains(strings, out, t); }) >= n / 2);
    const uint64_t in_range = CheckThreadsEqualOne<uint8_t>(
        n, [&](uint8_t* out, Threads t) { return c.contains(Keys(wide.data(), n), out, t); });
    CHECK(in_range >= (n / 2) * 2 / 3 - 1);
    CHECK(in_range < n * 2 / 3 + 1);  // no value out of range is found
    for (ScalableFilter* f : {&a, &c}) {
      const Keys q = f == &a ? Keys(probes.data(), n) : Keys(wide.data(), n);
      std::vector<uint8_t> bits1((n + 7) / 8);
      std::vector<uint32_t> sel1(n);
      const uint64_t ones = f->contains_bitmap(q, bits1.data(), Threads{1});
      CHECK(f->select(q, sel1.data(), Threads{1}) == ones);
      for (unsigned t : {2u, 3u, 8u}) {
        CAPTURE(t);
        std::vector<uint8_t> bits((n + 7) / 8, 0xEE);
        std::vector<uint32_t> sel(n, 0xEEEEEEEE);
        CHECK(f->contains_bitmap(q, bits.data(), Threads{t}) == ones);
        CHECK(bits == bits1);
        CHECK(f->select(q, sel.data(), Threads{t}) == ones);
        CHECK(std::equal(sel1.begin(), sel1.begin() + ones, sel.begin()));
      }
    }
  });
}

// Issue 45, item 8: Threads{T} is clamped before anything is allocated, so a huge T costs what
// the threads used cost (Threads{2^28} took 4.2 GB, Threads{UINT_MAX} threw bad_alloc).
TEST_CASE("concurrency: a huge Threads count allocates nothing per thread asked for") {
  Filter f = Filter::create(300000, 0.01);
  const std::vector<uint64_t> keys = test::RandomKeys(200000, 45);
  f.insert(Keys(keys.data(), 100000));
  struct rusage before;
  getrusage(RUSAGE_SELF, &before);
  for (size_t n : {size_t{100}, keys.size()}) {
    CAPTURE(n);
    const Keys some(keys.data(), n);
    std::vector<uint8_t> want(n), out(n), bits((n + 7) / 8), want_bits((n + 7) / 8);
    std::vector<uint32_t> sel(n), want_sel(n);
    const uint64_t hits = f.contains(some, want.data());
    CHECK(f.contains_bitmap(some, want_bits.data()) == hits);
    CHECK(f.select(some, want_sel.data()) == hits);
    for (unsigned t : {1u << 28, UINT_MAX, 0u}) {
      CAPTURE(t);
      CHECK(f.contains(some, out.data(), Threads{t}) == hits);
      CHECK(out == want);
      CHECK(f.contains_bitmap(some, bits.data(), Threads{t}) == hits);
      CHECK(bits == want_bits);
      CHECK(f.select(some, sel.data(), Threads{t}) == hits);
      CHECK(std::equal(sel.begin(), sel.begin() + static_cast<std::ptrdiff_t>(hits),
                       want_sel.begin()));
      Filter g = Filter::with_bits(f.bit_count(), f.num_hashes(), f.layout(), f.seed());
      Filter h = g;
      g.insert(some, Threads{t});
      h.insert(some);
      CHECK(std::memcmp(g.data(), h.data(), g.size_bytes()) == 0);
    }
  }
  struct rusage after;
  getrusage(RUSAGE_SELF, &after);
  CHECK(after.ru_maxrss - before.ru_maxrss < 64 * 1024);  // KiB: far below a GB
}

// Errors surface before any thread starts, and from the calling thread.
TEST_CASE("concurrency: bad arguments to parallel calls throw, nothing written") {
  Filter f = Filter::create(1000, 0.01);
  const std::vector<uint64_t> keys = test::RandomKeys(100000, 5);
  bool threw = false;
  try {
    f.contains(keys, nullptr, Threads{4});
  } catch (const Error& e) {
    threw = e.code() == ErrorCode::kInvalidArgument;
  }
  CHECK(threw);
  const int32_t bad_offsets[] = {0, 5, 3};  // decreasing
  const uint8_t data[8] = {};
  threw = false;
  try {
    f.insert(BinaryArray<int32_t>{bad_offsets, data, 2}, Threads{4});
  } catch (const Error& e) {
    threw = e.code() == ErrorCode::kInvalidArgument;
  }
  CHECK(threw);
  CHECK(f.inserted_count() == 0);
  CHECK(f.fill_ratio() == 0);
  // A moved-from filter refuses concurrent inserts like plain ones.
  Filter g = std::move(f);
  threw = false;
  try {
    f.insert_concurrent(uint64_t{1});
  } catch (const Error& e) {
    threw = e.code() == ErrorCode::kInvalidArgument;
  }
  CHECK(threw);
  CHECK(g.insert_concurrent(uint64_t{1}));
  CHECK(g.contains(uint64_t{1}));
}

// Byte-string keys as string_views and as Arrow int32/int64 offsets over one buffer.
struct Strings {
  std::vector<uint8_t> data;
  std::vector<int32_t> offsets32{0};
  std::vector<int64_t> offsets64{0};
  std::vector<std::string_view> views;
  explicit Strings(const std::vector<std::string>& strings) {
    for (const auto& s : strings) {
      data.insert(data.end(), s.begin(), s.end());
      offsets32.push_back(static_cast<int32_t>(data.size()));
      offsets64.push_back(static_cast<int64_t>(data.size()));
    }
    for (size_t i = 0; i < strings.size(); ++i) {
      views.emplace_back(reinterpret_cast<const char*>(data.data()) + offsets64[i],
                         strings[i].size());
    }
  }
  BinaryArray<int32_t> Arrow32() const { return {offsets32.data(), data.data(), views.size()}; }
  BinaryArray<int64_t> Arrow64() const { return {offsets64.data(), data.data(), views.size()}; }
};

TEST_CASE("concurrency: string batches across threads, each part several hashing chunks") {
  // 3 parts of >= 32768 keys (lib/core/bulk.cc runs a part per thread only from there) and an odd
  // tail, into a filter past 1 MiB (prefetched): Threads forms of insert (private copies and,
  // with fresh flags, atomic ORs) and of every result form against one thread.
  const size_t n = 3 * 32768 + 13;
  std::vector<std::string> keys, evens;
  for (uint64_t v : test::RandomKeys(n, 32768)) keys.push_back("url/" + std::to_string(v));
  for (size_t i = 0; i < n; i += 2) evens.push_back(keys[i]);
  std::vector<std::string> probes;
  for (size_t i = 0; i < n; ++i) {
    probes.push_back(i % 3 == 0 ? "absent/" + std::to_string(i) : keys[(i * 31) % n]);
  }
  const Strings column(keys), even_column(evens), probe_column(probes);
  // Under ThreadSanitizer two layouts (the checks are the same; the time is not).
  const size_t layouts_run = kScale > 1 ? 2 : layouts().size();
  for (size_t li = 0; li < layouts_run; ++li) {
    const Layout layout = layouts()[li];
    CAPTURE(layout_name(layout));
    Filter one = Filter::create(8 * n, 0.001, layout, 5);
    REQUIRE(one.size_bytes() > (size_t{1} << 20));
    one.insert(Keys(column.views));
    std::vector<uint8_t> want(n);
    const uint64_t want_hits = one.contains(Keys(probe_column.views), want.data());
    for (size_t i = 0; i < n; ++i) REQUIRE(want[i] == one.contains(std::string_view(probes[i])));
    std::vector<uint32_t> want_sel(n);
    want_sel.resize(one.select(Keys(probe_column.views), want_sel.data()));
    for (const Keys& s : {Keys(column.views), Keys(column.Arrow32())}) {
      Filter f = Filter::create(8 * n, 0.001, layout, 5);
      f.insert(s, Threads{3});
      REQUIRE(std::memcmp(f.data(), one.data(), f.size_bytes()) == 0);
      // With fresh flags (atomic ORs from 3 threads) into a filter that already holds the even
      // keys: their flags are 0 whatever the order. An odd key's flag is 0 only if other keys
      // set all its bits first, which happens with at most the full filter's false-positive
      // rate; Markov's inequality puts 100x its mean beyond reach (P < 1%). A flag written at a
      // shifted offset would put about half the 1s on even keys.
      Filter g = Filter::create(8 * n, 0.001, layout, 5);
      g.insert(Keys(even_column.views));
      std::vector<uint8_t> fresh(n + 1, 0xEE);
      const uint64_t fresh_count = g.insert(s, fresh.data(), Threads{3});
      REQUIRE(std::memcmp(g.data(), one.data(), g.size_bytes()) == 0);
      REQUIRE(fresh[n] == 0xEE);
      uint64_t sum = 0, odd_zero = 0;
      for (size_t i = 0; i < n; ++i) {
        REQUIRE(fresh[i] <= 1);
        if (i % 2 == 0) REQUIRE(fresh[i] == 0);
        odd_zero += i % 2 == 1 && fresh[i] == 0;
        sum += fresh[i];
      }
      REQUIRE(sum == fresh_count);
      REQUIRE(static_cast<double>(odd_zero) <= 100.0 * (n / 2) * one.expected_fpp() + 1.0);
    }
    const Keys p = Keys(probe_column.Arrow64());
    std::vector<uint8_t> out(n + 1, 0xEE);
    REQUIRE(one.contains(p, out.data(), Threads{3}) == want_hits);
    REQUIRE(std::equal(want.begin(), want.end(), out.begin()));
    REQUIRE(out[n] == 0xEE);
    std::vector<uint8_t> bitmap((n + 7) / 8, 0);
    REQUIRE(one.contains_bitmap(p, bitmap.data(), Threads{3}) == want_hits);
    for (size_t i = 0; i < n; ++i) REQUIRE(((bitmap[i / 8] >> (i % 8)) & 1) == want[i]);
    std::vector<uint32_t> sel(n);
    REQUIRE(one.select(p, sel.data(), Threads{3}) == want_sel.size());
    REQUIRE(std::equal(want_sel.begin(), want_sel.end(), sel.begin()));
  }
}

// Sets detail::PartitionMinBytes for a scope (lib/core/bulk.cc), restoring the default after.
struct PartitionMinBytes {
  explicit PartitionMinBytes(uint64_t bytes) { detail::SetPartitionMinBytes(bytes); }
  ~PartitionMinBytes() { detail::SetPartitionMinBytes(detail::kDefaultPartitionMinBytes); }
};

TEST_CASE("concurrency: inserts partitioned by block range equal one thread, count too") {
  // Blocked layouts split a parallel insert's keys by the thread that owns their block
  // (lib/core/bulk.cc, PartitionedInsert): same bytes, and the same count of new keys as one
  // thread, since a block's keys reach it in order. 8 x 32768 keys and a tail, so that 8 threads
  // each get a part, over 5 chunks of 64K keys; 1 key in 5 repeats an earlier one (in its own
  // share or another's), so the count is below n. Two filters a layout: one small against the
  // batch (partitioned only with the size threshold lowered; else copies) and one of 2 x 8 bytes
  // a key, which the default rule partitions (copies are not used for such a batch); and a
  // 16-word register64 filter in which most of 8 threads own no block.
  const size_t n = 8 * 32768 + 77;
  std::vector<uint64_t> keys = test::RandomKeys(n, 4444);
  for (size_t i = 5; i < n; i += 5) keys[i] = keys[(i * 2654435761u) % i];
  std::vector<uint32_t> keys32(n);
  for (size_t i = 0; i < n; ++i) keys32[i] = static_cast<uint32_t>(keys[i] >> 7);
  std::vector<std::string> strings;
  for (uint64_t k : keys) strings.push_back("key/" + std::to_string(k));
  const Strings column(strings);
  const size_t layouts_run = kScale > 1 ? 2 : layouts().size();
  for (size_t li = 0; li < layouts_run + 1; ++li) {
    const bool tiny = li == layouts_run;
    const Layout layout = tiny ? Layout::kRegister64 : layouts()[li];
    for (int big = 0; big < (tiny ? 1 : 2); ++big) {
      auto make = [&] {
        return tiny  ? Filter::with_bits(1024, 4, layout, 9)
               : big ? Filter::with_bits(n * 8 * 8 * 2, layout == Layout::kSplitBlock256 ? 8 : 6,
                                         layout, 9)
                     : Filter::create(n, 0.01, layout, 9);
      };
      const Filter probe = make();
      std::vector<uint64_t> hashes(n);
      probe.hash(keys, hashes.data());
      const bool guava = layout == Layout::kGuava;  // needs both halves: no pre-hashed keys
      const Keys shapes[] = {Keys(keys), Keys(keys32), Keys(column.views),
                             Keys(Prehashed{hashes.data(), n})};
      const char* names[] = {"u64", "u32", "strings", "prehashed"};
      for (size_t si = 0; si < (guava ? 3 : 4); ++si) {
        const std::string what =
            std::string(layout_name(layout)) + (big ? " large " : " small ") + names[si];
        CAPTURE(what);
        Filter one = make();
        const uint64_t want = one.insert(shapes[si]);
        REQUIRE(want > 0);
        REQUIRE(want < n);  // the repeats are not new
        const bool blocked = layout == Layout::kBlock512 || layout == Layout::kRegister64 ||
                             layout == Layout::kSplitBlock256 || layout == Layout::kShifting;
        for (unsigned t : {2u, 3u, 8u}) {
          CAPTURE(t);
          const PartitionMinBytes forced(big ? detail::kDefaultPartitionMinBytes : 0);
          Filter f = make();
          const uint64_t got = f.insert(shapes[si], Threads{t});
          REQUIRE(std::memcmp(f.data(), one.data(), f.size_bytes()) == 0);
          REQUIRE(f.inserted_count() == n);
          if (blocked) REQUIRE(got == want);
          // A second batch into the filter: nothing new.
          if (blocked) REQUIRE(f.insert(shapes[si], Threads{t}) == 0);
        }
      }
    }
  }
}

}  // namespace
}  // namespace simdbloom
