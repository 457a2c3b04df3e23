// SPDX-License-Identifier: Apache-2.0
// Key shapes and result forms through the public API, on every target (set_target), against the
// single-key scalar path: every shape builds the same filter bytes, every result form says what
// contains() says, a key inserted in one shape is found in every other.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/key_source.h"
#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// Every layout, from the registry (simdbloom::layouts()).
const Span<const Layout> kAllLayouts = layouts();

// Byte-string keys held three ways: string_views, Arrow int32 and int64 offsets over one data
// buffer that starts at an odd address, and fixed-width records when all have the same length.
struct StringColumn {
  std::vector<uint8_t> storage;
  const uint8_t* data = nullptr;
  std::vector<int32_t> offsets32;
  std::vector<int64_t> offsets64;
  std::vector<std::string_view> views;

  explicit StringColumn(const std::vector<std::string>& strings, size_t misalign = 1) {
    size_t total = 0;
    for (const auto& s : strings) total += s.size();
    storage.resize(total + misalign + 1);
    data = storage.data() + misalign;
    size_t at = 0;
    offsets32.push_back(0);
    offsets64.push_back(0);
    for (const auto& s : strings) {
      if (!s.empty()) std::memcpy(storage.data() + misalign + at, s.data(), s.size());
      at += s.size();
      offsets32.push_back(static_cast<int32_t>(at));
      offsets64.push_back(static_cast<int64_t>(at));
    }
    for (size_t i = 0; i < strings.size(); ++i) {
      views.emplace_back(reinterpret_cast<const char*>(data) + offsets64[i], strings[i].size());
    }
  }
  BinaryArray<int32_t> Arrow32() const { return {offsets32.data(), data, views.size()}; }
  BinaryArray<int64_t> Arrow64() const { return {offsets64.data(), data, views.size()}; }
};

std::string LittleEndian(uint64_t v, size_t bytes) {
  std::string s(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// What the single-key scalar path answers for every probe.
std::vector<uint8_t> ScalarAnswers(const Filter& f, const std::vector<std::string>& probes) {
  std::vector<uint8_t> want;
  for (const auto& s : probes) want.push_back(f.contains(std::string_view(s)));
  return want;
}

// Every result form of `probes` against `want` (the scalar answers).
void CheckResults(const Filter& f, Keys probes, const std::vector<uint8_t>& want) {
  const size_t n = want.size();
  const uint64_t hits = static_cast<uint64_t>(std::count(want.begin(), want.end(), 1));
  std::vector<uint8_t> bytes(n + 1, 0xEE);
  REQUIRE(f.contains(probes, bytes.data()) == hits);
  REQUIRE(std::equal(want.begin(), want.end(), bytes.begin()));
  REQUIRE(bytes[n] == 0xEE);

  std::vector<uint8_t> bitmap((n + 7) / 8 + 1, 0xEE);
  REQUIRE(f.contains_bitmap(probes, bitmap.data()) == hits);
  for (size_t i = 0; i < n; ++i) REQUIRE(((bitmap[i / 8] >> (i % 8)) & 1) == want[i]);
  if (n % 8 != 0) REQUIRE((bitmap[n / 8] >> (n % 8)) == 0);  // pad bits are zero
  REQUIRE(bitmap[(n + 7) / 8] == 0xEE);

  std::vector<uint32_t> sel(n + 1, 0xEEEEEEEEu);
  const uint64_t count = f.select(probes, sel.data());
  REQUIRE(count == hits);
  std::vector<uint32_t> want_sel;
  for (uint32_t i = 0; i < n; ++i) {
    if (want[i]) want_sel.push_back(i);
  }
  REQUIRE(std::equal(want_sel.begin(), want_sel.end(), sel.begin()));
  REQUIRE(sel[n] == 0xEEEEEEEEu);

  // refine: every other index, in place, keeps exactly those that hit.
  std::vector<uint32_t> chain;
  for (uint32_t i = 0; i < n; i += 2) chain.push_back(i);
  std::vector<uint32_t> want_chain;
  for (uint32_t i : chain) {
    if (want[i]) want_chain.push_back(i);
  }
  const uint64_t kept = f.refine(probes, chain.data(), chain.size());
  REQUIRE(kept == want_chain.size());
  REQUIRE(std::equal(want_chain.begin(), want_chain.end(), chain.begin()));
}

// Integer keys hash as their value's 8 bytes, so a filter of u64 keys and a filter of their 8-byte
// strings have the same bits; each answers in its own key type (integers or byte strings never mix
// in one filter: KeyType).
TEST_CASE("shapes: u64 keys, 8-byte strings, Arrow, fixed-width and pre-hashed build one filter") {
  const size_t n = 777;
  const std::vector<uint64_t> keys = test::RandomKeys(n, 2024);
  std::vector<std::string> strings;
  for (uint64_t k : keys) strings.push_back(LittleEndian(k, 8));
  const StringColumn column(strings);
  // Fixed-width records: 8-byte keys every 11 bytes, from an odd address.
  std::vector<uint8_t> records(n * 11 + 3);
  for (size_t i = 0; i < n; ++i) std::memcpy(records.data() + 3 + i * 11, strings[i].data(), 8);
  const FixedWidth fixed{records.data() + 3, 8, 11, n};
  // Probes: the keys and as many absent ones, as u64 and as strings.
  std::vector<uint64_t> probes = keys;
  for (uint64_t k : test::RandomKeys(n, 7)) probes.push_back(k);
  std::vector<std::string> probe_strings;
  for (uint64_t k : probes) probe_strings.push_back(LittleEndian(k, 8));
  const StringColumn probe_column(probe_strings, 3);

  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    // Two sizes: cache-resident (no prefetch) and 2 MiB (prefetched, huge-page allocation).
    for (uint64_t bits : {uint64_t{8192}, uint64_t{16} << 20}) {
      CAPTURE(bits);
      const uint32_t k = layout == Layout::kSplitBlock256 ? 8 : 5;
      Filter scalar = Filter::with_bits(bits, k, layout, 42);
      Filter scalar_bytes = Filter::with_bits(bits, k, layout, 42);
      uint64_t want_changed = 0;
      for (uint64_t key : keys) want_changed += scalar.insert(key);
      for (const std::string& key : strings) scalar_bytes.insert(key);
      REQUIRE(std::memcmp(scalar.data(), scalar_bytes.data(), scalar.size_bytes()) == 0);
      const std::vector<uint8_t> want = ScalarAnswers(scalar_bytes, probe_strings);
      for (size_t i = 0; i < n; ++i) REQUIRE(want[i] == 1);
      for (size_t i = 0; i < probes.size(); ++i) REQUIRE(scalar.contains(probes[i]) == want[i]);
      std::vector<uint64_t> hashes(n);
      scalar.hash(Keys(keys), hashes.data());
      for (size_t i = 0; i < n; ++i) REQUIRE(hashes[i] == scalar_bytes.hash(strings[i]));

      test::ForEachApiTarget([&](const std::string&) {
        const Keys shapes[] = {Keys(keys),
                               Keys(column.views),
                               Keys(column.Arrow32()),
                               Keys(column.Arrow64()),
                               Keys(fixed),
                               Keys(Prehashed{hashes.data(), n})};
        int shape = 0;
        for (const Keys& s : shapes) {
          CAPTURE(shape++);
          // (guava refuses pre-hashed keys, guava_test.cc; guava32 takes hash() values.)
          if (layout == Layout::kGuava && s.kind() == Keys::Kind::kPrehashed) continue;
          Filter f = Filter::with_bits(bits, k, layout, 42);
          REQUIRE(f.insert(s) == want_changed);
          REQUIRE(f.inserted_count() == n);
          REQUIRE(std::memcmp(f.data(), scalar.data(), f.size_bytes()) == 0);
          REQUIRE(f.insert(s) == 0);  // nothing new the second time
        }
        CheckResults(scalar, Keys(probes), want);
        CheckResults(scalar_bytes, Keys(probe_column.views), want);
        CheckResults(scalar_bytes, Keys(probe_column.Arrow32()), want);
        CheckResults(scalar_bytes, Keys(probe_column.Arrow64()), want);
        std::vector<uint64_t> probe_hashes(probes.size());
        scalar_bytes.hash(Keys(probe_column.views), probe_hashes.data());
        if (layout != Layout::kGuava) {  // (refused: guava_test.cc)
          CheckResults(scalar, Keys(Prehashed{probe_hashes.data(), probe_hashes.size()}), want);
        }
      });
    }
  }
}

TEST_CASE("shapes: string batches of several hashing chunks, every form and flag") {
  // Byte strings are hashed a chunk at a time before the kernels run (lib/core/key_source.h,
  // OverHashedChunks: 16384 keys, 4096 without the thread's buffer); a batch of more than one
  // chunk and an odd tail checks every result form, the per-key new flags with repeats that
  // cross chunks, and insert_concurrent, against the single-key path (one thread: the parallel
  // forms are in tests/concurrency_test.cc, which does not run under qemu).
  const size_t n = 16384 + 4096 + 13;
  std::vector<std::string> keys;
  for (uint64_t v : test::RandomKeys(n, 4096)) keys.push_back("key-" + std::to_string(v));
  for (size_t i = 0; i < n; i += 97) keys[i] = keys[(i * 7919) % n];  // repeats across chunks
  std::vector<std::string> probes;
  for (size_t i = 0; i < n; ++i) {
    probes.push_back(i % 3 == 0 ? "absent-" + std::to_string(i) : keys[(i * 31) % n]);
  }
  const StringColumn column(keys, 3);
  const StringColumn probe_column(probes, 5);
  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    Filter scalar = Filter::create(n, 0.05, layout, 11);
    std::vector<uint8_t> want_fresh;
    for (const auto& key : keys) want_fresh.push_back(scalar.insert(std::string_view(key)));
    const std::vector<uint8_t> want = ScalarAnswers(scalar, probes);
    test::ForEachApiTarget([&](const std::string&) {
      int shape = 0;
      for (const Keys& s : {Keys(column.views), Keys(column.Arrow32()), Keys(column.Arrow64())}) {
        CAPTURE(shape++);
        Filter f = Filter::create(n, 0.05, layout, 11);
        std::vector<uint8_t> fresh(n + 1, 0xEE);
        REQUIRE(f.insert(s, fresh.data()) ==
                static_cast<uint64_t>(std::count(want_fresh.begin(), want_fresh.end(), 1)));
        REQUIRE(std::equal(want_fresh.begin(), want_fresh.end(), fresh.begin()));
        REQUIRE(fresh[n] == 0xEE);
        REQUIRE(std::memcmp(f.data(), scalar.data(), f.size_bytes()) == 0);
        Filter g = Filter::create(n, 0.05, layout, 11);
        g.insert_concurrent(s);
        REQUIRE(std::memcmp(g.data(), scalar.data(), g.size_bytes()) == 0);
      }
      CheckResults(scalar, Keys(probe_column.views), want);
      CheckResults(scalar, Keys(probe_column.Arrow32()), want);
      CheckResults(scalar, Keys(probe_column.Arrow64()), want);
    });
  }
}

// A filter declared KeyType::kInt32 hashes integers as 4 bytes: u32 keys then equal their 4-byte
// strings in a bytes filter.
TEST_CASE("shapes: u32 keys of an int32 filter equal their 4-byte strings") {
  std::vector<uint32_t> keys;
  for (uint64_t v : test::RandomKeys(600, 5)) keys.push_back(static_cast<uint32_t>(v));
  keys.push_back(0);
  keys.push_back(0xFFFFFFFFu);
  std::vector<std::string> strings;
  for (uint32_t k : keys) strings.push_back(LittleEndian(k, 4));
  const StringColumn column(strings);
  std::vector<uint32_t> probes = keys;
  for (uint64_t v : test::RandomKeys(600, 6)) probes.push_back(static_cast<uint32_t>(v));
  std::vector<std::string> probe_strings;
  for (uint32_t k : probes) probe_strings.push_back(LittleEndian(k, 4));
  // 4-byte records packed back to back: FixedWidth with stride == width.
  std::vector<uint8_t> packed(probes.size() * 4);
  std::memcpy(packed.data(), probes.data(), packed.size());

  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    const uint32_t k = layout == Layout::kSplitBlock256 ? 8 : 4;
    Filter scalar = Filter::with_bits(1 << 14, k, layout, 9, KeyType::kInt32);
    for (uint32_t key : keys) scalar.insert(key);
    Filter scalar_bytes = Filter::with_bits(1 << 14, k, layout, 9);
    for (const std::string& key : strings) scalar_bytes.insert(key);
    REQUIRE(std::memcmp(scalar.data(), scalar_bytes.data(), scalar.size_bytes()) == 0);
    const std::vector<uint8_t> want = ScalarAnswers(scalar_bytes, probe_strings);
    for (size_t i = 0; i < probes.size(); ++i) REQUIRE(scalar.contains(probes[i]) == want[i]);
    test::ForEachApiTarget([&](const std::string&) {
      Filter f = Filter::with_bits(1 << 14, k, layout, 9, KeyType::kInt32);
      f.insert(Keys(keys));
      REQUIRE(std::memcmp(f.data(), scalar.data(), f.size_bytes()) == 0);
      Filter g = Filter::with_bits(1 << 14, k, layout, 9);
      g.insert(Keys(column.views));
      REQUIRE(std::memcmp(g.data(), scalar.data(), g.size_bytes()) == 0);
      CheckResults(scalar, Keys(probes), want);
      CheckResults(scalar_bytes, Keys(FixedWidth{packed.data(), 4, 4, probes.size()}), want);
    });
  }
}

TEST_CASE("shapes: strings of length 0 to 300, empty ones included, from unaligned buffers") {
  test::Rng rng(300);
  std::vector<std::string> strings;
  for (size_t len = 0; len <= 300; ++len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    strings.push_back(s);
  }
  for (int i = 0; i < 20; ++i) strings.push_back("");  // repeats of the empty key
  std::vector<std::string> absent;
  for (size_t len = 0; len <= 300; len += 3) absent.push_back(std::string(len, 'x'));
  std::vector<std::string> probes = strings;
  probes.insert(probes.end(), absent.begin(), absent.end());

  for (size_t misalign : {0, 1, 5, 63}) {
    const StringColumn column(strings, misalign);
    const StringColumn probe_column(probes, misalign);
    for (Layout layout : kAllLayouts) {
      CAPTURE(layout_name(layout));
      CAPTURE(misalign);
      const uint32_t k = layout == Layout::kSplitBlock256 ? 8 : 7;
      Filter scalar = Filter::with_bits(1 << 13, k, layout, 3);
      uint64_t want_changed = 0;
      for (const auto& s : strings) want_changed += scalar.insert(std::string_view(s));
      REQUIRE(want_changed <= 302);  // the 20 repeated empty keys change nothing
      const std::vector<uint8_t> want = ScalarAnswers(scalar, probes);
      test::ForEachApiTarget([&](const std::string&) {
        for (int shape = 0; shape < 3; ++shape) {
          CAPTURE(shape);
          Filter f = Filter::with_bits(1 << 13, k, layout, 3);
          const Keys keys = shape == 0   ? Keys(column.views)
                            : shape == 1 ? Keys(column.Arrow32())
                                         : Keys(column.Arrow64());
          REQUIRE(f.insert(keys) == want_changed);
          REQUIRE(std::memcmp(f.data(), scalar.data(), f.size_bytes()) == 0);
        }
        CheckResults(scalar, Keys(probe_column.views), want);
        CheckResults(scalar, Keys(probe_column.Arrow32()), want);
        CheckResults(scalar, Keys(probe_column.Arrow64()), want);
      });
    }
  }
}

TEST_CASE("shapes: string batches at chunk edges equal their pre-hashed keys, long and empty") {
  // Bulk calls hash byte strings in chunks of 16384 keys (4096 without the thread's buffer) above
  // 1024 keys (lib/core/key_source.h, ChunkStrings, OverHashedChunks; perf/README.md design notes
  // M6 and M29 say why): batch sizes at those edges and
  // within a tile, with empty strings, UUID-like 36-byte strings and strings longer than XXH3's
  // 240-byte short path, must build the bytes and give the answers of the same keys hashed by
  // Filter::hash and passed pre-hashed, and of the single-key path.
  test::Rng rng(44);
  auto random_string = [&](size_t len) {
    std::string s(len, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  };
  for (size_t n : {size_t{1}, size_t{7}, size_t{15}, size_t{17}, size_t{1023}, size_t{1025},
                   size_t{4095}, size_t{4097}, size_t{16385}}) {
    CAPTURE(n);
    std::vector<std::string> keys, probes;
    for (size_t i = 0; i < n; ++i) {
      const size_t len = i % 5 == 0 ? 0 : i % 5 == 1 ? 241 + i % 60 : 36;
      keys.push_back(len == 0 ? std::string() : random_string(len));
    }
    for (size_t i = 0; i < n; ++i) probes.push_back(i % 2 == 0 ? keys[i] : random_string(i % 300));
    const StringColumn column(keys, 7);
    const StringColumn probe_column(probes, 3);
    for (Layout layout : kAllLayouts) {
      if (layout == Layout::kGuava) continue;  // no pre-hashed keys (both halves of Murmur3)
      CAPTURE(layout_name(layout));
      Filter scalar = Filter::create(n, 0.03, layout, 5);
      uint64_t want_changed = 0;
      for (const auto& key : keys) want_changed += scalar.insert(std::string_view(key));
      const std::vector<uint8_t> want = ScalarAnswers(scalar, probes);
      test::ForEachApiTarget([&](const std::string&) {
        std::vector<uint64_t> hashes(n), probe_hashes(n);
        scalar.hash(Keys(column.views), hashes.data());
        scalar.hash(Keys(probe_column.Arrow64()), probe_hashes.data());
        Filter hashed = Filter::create(n, 0.03, layout, 5);
        REQUIRE(hashed.insert(Prehashed{hashes.data(), n}) == want_changed);
        REQUIRE(std::memcmp(hashed.data(), scalar.data(), scalar.size_bytes()) == 0);
        std::vector<uint8_t> hashed_out(n);
        hashed.contains(Prehashed{probe_hashes.data(), n}, hashed_out.data());
        REQUIRE(hashed_out == want);
        int shape = 0;
        for (const Keys& s : {Keys(column.views), Keys(column.Arrow32()), Keys(column.Arrow64())}) {
          CAPTURE(shape++);
          Filter f = Filter::create(n, 0.03, layout, 5);
          std::vector<uint8_t> fresh(n);
          REQUIRE(f.insert(s, fresh.data()) == want_changed);
          REQUIRE(std::memcmp(f.data(), hashed.data(), f.size_bytes()) == 0);
        }
        CheckResults(hashed, Keys(probe_column.views), want);
        CheckResults(hashed, Keys(probe_column.Arrow32()), want);
      });
    }
  }
}

TEST_CASE("shapes: the string chunk buffer has one holder at a time on a thread") {
  // A second holder on the same thread (a nested bulk call) must not get the buffer the first is
  // filling: it hashes its chunks on its stack instead (lib/core/key_source.h). A call short
  // enough for one chunk on the stack does not ask for it (and never allocates it).
  uint64_t* p = nullptr;
  {
    const detail::StringChunkBuffer unwanted(false);
    REQUIRE(unwanted.get() == nullptr);
    const detail::StringChunkBuffer first(true);
    p = first.get();
    REQUIRE(p != nullptr);
    REQUIRE(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    {
      const detail::StringChunkBuffer nested(true);
      REQUIRE(nested.get() == nullptr);
    }
    const detail::StringChunkBuffer still_held(true);  // the nested one's end released nothing
    REQUIRE(still_held.get() == nullptr);
  }
  const detail::StringChunkBuffer again(true);
  REQUIRE(again.get() == p);  // the same buffer, kept for the thread
}

TEST_CASE("shapes: selection vectors at hit rates 0, 50 and 100 percent, chained filters") {
  const size_t n = 5000;
  const std::vector<uint64_t> present = test::RandomKeys(n, 1);
  const std::vector<uint64_t> absent = test::RandomKeys(n, 2);
  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    // fpp 1e-6: an absent key hits with probability ~1e-6, so at 5000 probes P(any) < 0.5%;
    // the scalar path decides either way.
    Filter f = Filter::create(n, 1e-6, layout, 77);
    f.insert(Keys(present));
    for (int rate : {0, 50, 100}) {
      CAPTURE(rate);
      std::vector<uint64_t> probes(n);
      std::vector<uint8_t> want(n);
      test::Rng rng(rate);
      for (size_t i = 0; i < n; ++i) {
        const bool hit = rate == 100 || (rate == 50 && rng() % 2 == 0);
        probes[i] = hit ? present[i] : absent[i];
        want[i] = f.contains(probes[i]);
        if (hit) REQUIRE(want[i] == 1);
      }
      const size_t hits = static_cast<size_t>(std::count(want.begin(), want.end(), 1));
      if (rate == 100) REQUIRE(hits == n);
      if (rate == 50) REQUIRE(hits > n / 3);
      if (rate == 0) REQUIRE(hits < 5);
      test::ForEachApiTarget([&](const std::string&) { CheckResults(f, Keys(probes), want); });
    }
    // Chaining: the keys in both of two filters, by select then refine.
    Filter g = Filter::create(n, 1e-6, layout, 78);
    g.insert(Span<const uint64_t>(present.data(), n / 2));
    std::vector<uint64_t> probes = present;
    probes.insert(probes.end(), absent.begin(), absent.end());
    std::vector<uint32_t> sel(probes.size());
    test::ForEachApiTarget([&](const std::string&) {
      size_t count = f.select(Keys(probes), sel.data());
      count = g.refine(Keys(probes), sel.data(), count);
      std::vector<uint32_t> want_sel;
      for (uint32_t i = 0; i < probes.size(); ++i) {
        if (f.contains(probes[i]) && g.contains(probes[i])) want_sel.push_back(i);
      }
      REQUIRE(count == want_sel.size());
      REQUIRE(std::equal(want_sel.begin(), want_sel.end(), sel.begin()));
      REQUIRE(count >= n / 2);
    });
  }
}

TEST_CASE("shapes: bulk insert counts the keys that changed the filter") {
  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    test::ForEachApiTarget([&](const std::string&) {
      Filter f = Filter::create(100000, 0.01, layout);
      std::vector<uint64_t> keys = test::RandomKeys(1000, 11);
      // Repeats inside one batch count once: the second copy finds its bits set.
      std::vector<uint64_t> twice = keys;
      twice.insert(twice.end(), keys.begin(), keys.end());
      const uint64_t changed = f.insert(Keys(twice));
      REQUIRE(changed <= keys.size());
      REQUIRE(changed >= keys.size() - 5);  // at 1% load, distinct keys almost never collide
      Filter g = Filter::create(100000, 0.01, layout);
      uint64_t single = 0;
      for (uint64_t k : twice) single += g.insert(k);
      REQUIRE(changed == single);
      REQUIRE(f.insert(Keys(keys)) == 0);
      REQUIRE(f.inserted_count() == 3000);
    });
  }
}

// Short calls (a packet burst) take inline checks, key plans and sources (lib/core/driver.h,
// key_source.h, key_types.h) where long ones may not: calls of 1 to 40 keys, one after another,
// must write the bytes, the per-key flags and the results of one call over the same keys, for
// every layout, target, result form and key shape with an inline path (u64 and i64 on a filter of
// int64 keys or none yet, u32 and i32 on int32, u64 and u32 on a legacy filter, pre-hashed, i64
// out of an int32 filter's range), inserts with and without per-key flags. Calls of up to 32 keys
// of these shapes on block512, register64 and split_block256 go straight to the kernel
// (lib/core/bulk.cc, ShortCallOf); longer ones, and the other layouts, through the driver.
TEST_CASE("shapes: calls of 1 to 40 keys equal one call over the same keys") {
  const std::vector<uint64_t> keys = test::RandomKeys(600, 44);
  std::vector<int64_t> signed_keys(keys.begin(), keys.end());
  std::vector<uint32_t> narrow(keys.begin(), keys.end());
  std::vector<int32_t> narrow_signed(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) narrow_signed[i] = static_cast<int32_t>(narrow[i]);
  std::vector<int64_t> wide_int32(keys.size());  // every third out of int32's range
  for (size_t i = 0; i < keys.size(); ++i) {
    wide_int32[i] = i % 3 == 0 ? int64_t{1} << 40 : static_cast<int64_t>(keys[i] >> 33);
  }
  struct Case {
    const char* name;
    KeyType type;
    Keys keys;
    bool insert_all;  // else only the keys an int32 filter takes are inserted
  };
  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    const Filter made = Filter::create(400, 0.01, layout);  // one create per layout (qemu)
    std::vector<Case> cases = {
        {"u64, none yet", KeyType::kNone, Keys(keys), true},
        {"i64, int64", KeyType::kInt64, Keys(signed_keys), true},
        {"u64, int64", KeyType::kInt64, Keys(keys), true},
        {"u32, int32", KeyType::kInt32, Keys(narrow), true},
        {"i32, int32", KeyType::kInt32, Keys(narrow_signed), true},
        {"u64, legacy", KeyType::kLegacy, Keys(keys), true},
        {"u32, legacy", KeyType::kLegacy, Keys(narrow), true},
        {"i64, int32, some out of range", KeyType::kInt32, Keys(wide_int32), false},
    };
    if (layout != Layout::kGuava) {  // (guava refuses pre-hashed keys)
      cases.push_back(
          {"pre-hashed", KeyType::kNone, Keys(Prehashed{keys.data(), keys.size()}), true});
    }
    test::ForEachApiTarget([&](const std::string&) {
      for (const Case& c : cases) {
        CAPTURE(c.name);
        const size_t n = c.keys.size(), half = n / 2;
        // The first half inserted, in one call and in bursts (fresh flags and counts too).
        Filter one = test::WithKeyType(made, c.type), bursts = test::WithKeyType(made, c.type),
               plain = test::WithKeyType(made, c.type);  // bursts without per-key flags
        std::vector<uint8_t> fresh_one(n, 7), fresh_bursts(n, 7);
        std::vector<size_t> starts;  // burst b covers keys [starts[b], starts[b + 1])
        for (size_t at = 0, len = 1; at < n; at += len, len = len % 40 + 1) starts.push_back(at);
        starts.push_back(n);
        if (c.insert_all) {
          const uint64_t changed = one.insert(detail::SliceKeys(c.keys, 0, half), fresh_one.data());
          uint64_t changed_bursts = 0, changed_plain = 0;
          for (size_t b = 0; starts[b] < half; ++b) {
            const size_t e = std::min(starts[b + 1], half);
            const Keys part = detail::SliceKeys(c.keys, starts[b], e - starts[b]);
            changed_bursts += bursts.insert(part, fresh_bursts.data() + starts[b]);
            changed_plain += plain.insert(part);
          }
          CHECK(changed_bursts == changed);
          CHECK(changed_plain == changed);
          CHECK(fresh_bursts == fresh_one);
          CHECK(plain.inserted_count() == one.inserted_count());
          test::CheckSameBits(one, plain);
        } else {
          for (size_t i = 1; i < n; i += 3) {
            one.insert(wide_int32[i]);
            bursts.insert(detail::SliceKeys(c.keys, i, 1));
          }
        }
        CHECK(bursts.key_type() == one.key_type());
        CHECK(bursts.inserted_count() == one.inserted_count());
        test::CheckSameBits(one, bursts);
        // Every key queried, in one call and in bursts, in each result form.
        std::vector<uint8_t> want(n), got(n, 9);
        const uint64_t hits = one.contains(c.keys, want.data());
        std::vector<uint8_t> want_bitmap((n + 7) / 8);
        CHECK(one.contains_bitmap(c.keys, want_bitmap.data()) == hits);
        std::vector<uint32_t> want_sel(n);
        want_sel.resize(one.select(c.keys, want_sel.data()));
        CHECK(want_sel.size() == hits);
        uint64_t got_hits = 0, got_bitmap_hits = 0;
        std::vector<uint32_t> got_sel;
        for (size_t b = 0; b + 1 < starts.size(); ++b) {
          const size_t at = starts[b], m = starts[b + 1] - at;
          const Keys part = detail::SliceKeys(c.keys, at, m);
          got_hits += one.contains(part, got.data() + at);
          uint8_t bitmap[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
          got_bitmap_hits += one.contains_bitmap(part, bitmap);
          for (size_t j = 0; j < m; ++j) {
            CHECK(((bitmap[j / 8] >> (j % 8)) & 1) == want[at + j]);
          }
          // The last byte's unused bits are 0 (as one call writes them), later bytes untouched.
          if (m % 8 != 0) CHECK((bitmap[m / 8] >> (m % 8)) == 0);
          for (size_t j = (m + 7) / 8; j < 8; ++j) CHECK(bitmap[j] == 0xFF);
          uint32_t sel[40];
          const uint64_t selected = one.select(part, sel);
          for (uint64_t j = 0; j < selected; ++j) got_sel.push_back(uint32_t(at) + sel[j]);
        }
        CHECK(got == want);
        CHECK(got_hits == hits);
        CHECK(got_bitmap_hits == hits);
        CHECK(got_sel == want_sel);
        if (c.insert_all) {
          for (size_t i = 0; i < half; ++i) REQUIRE(want[i] == 1);  // no false negatives
        } else {
          for (size_t i = 0; i < n; i += 3) REQUIRE(want[i] == 0);  // out of range: absent
        }
      }
    });
  }
}

TEST_CASE("shapes: bad input is refused before anything is written") {
  Filter f = Filter::create(1000, 0.01);
  const std::vector<uint8_t> empty_bits(f.data(), f.data() + f.size_bytes());
  uint8_t out[8];
  const uint8_t data[] = "abcdefgh";
  const auto code = [](auto&& fn) { return test::CodeOf(fn); };
  const ErrorCode kInvalid = ErrorCode::kInvalidArgument;
  // Null pointers with non-zero sizes.
  CHECK(code([&] { f.insert(Span<const uint64_t>(nullptr, 3)); }) == kInvalid);
  CHECK(code([&] { f.insert(Span<const uint32_t>(nullptr, 3)); }) == kInvalid);
  CHECK(code([&] { f.insert(Prehashed{nullptr, 3}); }) == kInvalid);
  CHECK(code([&] { f.insert(BinaryArray<int32_t>{nullptr, data, 2}); }) == kInvalid);
  const uint64_t keys[3] = {1, 2, 3};
  CHECK(code([&] { f.contains(Keys(keys), nullptr); }) == kInvalid);
  CHECK(code([&] { f.contains_bitmap(Keys(keys), nullptr); }) == kInvalid);
  CHECK(code([&] { f.select(Keys(keys), nullptr); }) == kInvalid);
  CHECK(code([&] { f.refine(Keys(keys), nullptr, 2); }) == kInvalid);
  CHECK(code([&] { f.hash(Keys(keys), nullptr); }) == kInvalid);
  // Arrow offsets that decrease, are negative, or point into a null buffer.
  const int32_t decreasing[] = {0, 4, 2, 8};
  const int64_t negative[] = {-1, 4, 8};
  const int32_t fine[] = {0, 4, 8};
  CHECK(code([&] { f.insert(BinaryArray<int32_t>{decreasing, data, 3}); }) == kInvalid);
  CHECK(code([&] { f.insert(BinaryArray<int64_t>{negative, data, 2}); }) == kInvalid);
  CHECK(code([&] { f.insert(BinaryArray<int32_t>{fine, nullptr, 2}); }) == kInvalid);
  CHECK(code([&] { f.contains(BinaryArray<int32_t>{decreasing, data, 3}, out); }) == kInvalid);
  // FixedWidth records that overflow the address space, or null data.
  CHECK(code([&] { f.insert(FixedWidth{data, 8, SIZE_MAX / 2, 4}); }) == kInvalid);
  CHECK(code([&] { f.insert(FixedWidth{nullptr, 8, 8, 2}); }) == kInvalid);
  // refine with an index past the keys leaves the selection as it was.
  uint32_t bad_sel[4] = {0, 2, 3, 1};
  CHECK(code([&] { f.refine(Keys(keys), bad_sel, 4); }) == kInvalid);
  CHECK(bad_sel[0] == 0);
  CHECK(bad_sel[1] == 2);
  CHECK(bad_sel[2] == 3);
  CHECK(bad_sel[3] == 1);
  // Nothing was inserted by any refused call.
  CHECK(std::memcmp(f.data(), empty_bits.data(), empty_bits.size()) == 0);
  CHECK(f.inserted_count() == 0);
  // Empty batches are fine with null pointers and write nothing.
  CHECK(f.insert(Span<const uint64_t>()) == 0);
  CHECK(f.contains(Span<const uint64_t>(), nullptr) == 0);
  CHECK(f.select(Span<const std::string_view>(), nullptr) == 0);
  CHECK(f.refine(Keys(keys), nullptr, 0) == 0);
  Filter records = Filter::create(1000, 0.01);
  CHECK(records.insert(FixedWidth{nullptr, 0, 0, 5}) == 1);  // five empty records: one key
  // A view refuses inserts of every shape; its queries work.
  std::stringstream stream;
  f.save(stream);
  const std::string saved = stream.str();
  const test::Aligned aligned(saved);
  const Filter v = Filter::view(aligned.ptr, saved.size());
  Filter& mutable_view = const_cast<Filter&>(v);
  CHECK(code([&] { mutable_view.insert(Keys(keys)); }) == ErrorCode::kReadOnly);
  CHECK(code([&] { mutable_view.insert(FixedWidth{data, 4, 4, 2}); }) == ErrorCode::kReadOnly);
  CHECK(v.contains(Keys(keys), out) == f.contains(Keys(keys), out + 3));
}

// Ranges the library can check without reading them: a pointer plus its size that wraps the end of
// the address space (or exceeds PTRDIFF_MAX bytes), and Arrow offsets past a declared data size.
// Refused with kInvalidArgument before any key is read; the filter and outputs are untouched.
TEST_CASE("shapes: ranges past the address space or the declared data are refused") {
  Filter f = Filter::create(1000, 0.01, Layout::kBlock512, 3);
  const uint64_t keys[3] = {1, 2, 3};
  f.insert(Keys(keys));
  const std::vector<uint8_t> bits(f.data(), f.data() + f.size_bytes());
  uint8_t data[4] = {'a', 'b', 'c', 'd'};
  uint8_t out[64];
  std::memset(out, 0xAB, sizeof(out));
  // The address n bytes before the end of the address space (from an integer: no pointer
  // arithmetic outside an object): n - 1 bytes from it fit, n wrap.
  auto end_minus = [](uintptr_t n) { return reinterpret_cast<uint8_t*>(UINTPTR_MAX - (n - 1)); };
  uint8_t* const last = end_minus(64);
  auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.code() == ErrorCode::kInvalidArgument ? "invalid: " : "other: ") +
             e.what();
    }
    return std::string("no error");
  };
  auto refused = [&](auto&& fn, const std::string& part) {
    const std::string m = message(fn);
    INFO(m);
    CHECK(m.rfind("invalid: ", 0) == 0);
    CHECK(m.find(part) != std::string::npos);
  };
  // One record of SIZE_MAX bytes, one larger than any object, records that run off the end.
  refused([&] { f.insert(FixedWidth{data, SIZE_MAX, 0, 1}); }, "past the end of the address");
  refused([&] { f.contains(FixedWidth{data, size_t{PTRDIFF_MAX} + 1, 4, 1}, out); }, "width");
  refused([&] { f.insert(FixedWidth{last, 16, 16, 4}); }, "span 64 bytes");
  // Arrow offsets of INT64_MAX over 4 bytes of declared data; undeclared, from the last 64 bytes.
  const int64_t huge[3] = {0, 2, INT64_MAX};
  refused(
      [&] {
        f.insert(BinaryArray<int64_t>{huge, data, 2, sizeof(data)});
      },
      "insert: Arrow offsets[2] = 9223372036854775807 passes the data's size, 4 bytes");
  refused([&] { f.contains(BinaryArray<int64_t>{huge, last, 2}, out); }, "address space");
  const int32_t past[3] = {0, 2, 5};
  uint32_t sel[2] = {7, 7};
  refused(
      [&] {
        f.select(BinaryArray<int32_t>{past, data, 2, sizeof(data)}, sel);
      },
      "offsets[2] = 5 passes");
  // Key arrays and outputs that run off the end.
  refused([&] { f.insert(Span<const uint64_t>(reinterpret_cast<const uint64_t*>(last), 8)); },
          "8 keys of 8 bytes at 0x");
  refused([&] { f.contains(Keys(keys), end_minus(2)); }, "3 result bytes");
  refused([&] { f.contains_bitmap(Keys(keys), end_minus(1), Threads{2}); }, "1 bitmap bytes");
  refused([&] { f.hash(Keys(keys), reinterpret_cast<uint64_t*>(end_minus(16))); }, "3 hashes");
  refused([&] { f.insert(Keys(keys), end_minus(2)); }, "3 fresh bytes");
  refused([&] { f.refine(Keys(keys), reinterpret_cast<uint32_t*>(last), 16); }, "16 selection");
  refused([&] { Filter::load(last, 4096); }, "4096 bytes at 0x");
  refused([&] { Filter::view(last, 4096); }, "address space");
  CHECK(std::memcmp(f.data(), bits.data(), bits.size()) == 0);
  CHECK(f.inserted_count() == 3);
  for (uint8_t b : out) CHECK(b == 0xAB);
  CHECK(sel[0] == 7);
  CHECK(sel[1] == 7);
  // Offsets within a declared size are keys like any others.
  const int32_t within[3] = {0, 2, 4};
  Filter b = Filter::create(1000, 0.01, Layout::kBlock512, 3);
  CHECK(b.insert(BinaryArray<int32_t>{within, data, 2, sizeof(data)}) <= 2);
  CHECK(b.contains(std::string_view("ab")));
  CHECK(b.contains(std::string_view("cd")));
}

}  // namespace
}  // namespace simdbloom
