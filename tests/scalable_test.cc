// SPDX-License-Identifier: Apache-2.0
// ScalableFilter (lib/kinds/scalable.cc): growth to 1000x the initial capacity with the measured
// false-positive rate at every decade within the requested one (fixed seeds, binomial bounds),
// stage capacities never exceeded, bulk calls equal to the single-key path for every key shape
// and result form on every target, persistence (byte-identical round trips, every truncation,
// bit flips, crafted tables with valid checksums), argument checks, chain limits and merge.
#include "simdbloom/scalable.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/reference.h"
#include "lib/core/key_source.h"
#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// One-sided 99.9% standard normal quantile; with >= 1e6 probes at rates >= 1e-3 the count of
// false positives has mean >= 1e3, where the normal approximation of the binomial is accurate.
constexpr double kZ999OneSided = 3.0902;
double UpperBound(double p, double q) { return q * p + kZ999OneSided * std::sqrt(q * p * (1 - p)); }

size_t Ones(const std::vector<uint8_t>& v) {
  size_t n = 0;
  for (uint8_t b : v) n += b;
  return n;
}

// The invariants of growth: no stage above its capacity; every stage but the newest full.
void CheckStages(const ScalableFilter& s) {
  uint64_t total = 0;
  for (size_t i = 0; i < s.stages(); ++i) {
    CAPTURE(i);
    CHECK(s.stage_count(i) <= s.stage_capacity(i));
    if (i + 1 < s.stages()) CHECK(s.stage_count(i) == s.stage_capacity(i));
    CHECK(s.stage(i).layout() == s.layout());
    CHECK(s.stage(i).seed() == s.seed());
    // Each stage is sized for its share of fpp at its capacity.
    CHECK(s.stage(i).predicted_fpp(s.stage_capacity(i)) <= s.stage_fpp(i));
    total += s.stage_count(i);
  }
  CHECK(s.count() == total);
}

struct GrowthCase {
  double fpp, growth, tightening;
  Layout layout;
};

TEST_CASE(
    "scalable_fpr: 1000x the initial capacity, FPR within fpp at every decade, no false negative") {
  const uint64_t initial = 1000;
  const size_t total = 1000000;
  const size_t q = 1000000;
  const std::vector<uint64_t> keys = test::RandomKeys(total, 20261125);
  const std::vector<uint64_t> probes = test::RandomKeys(q, 77);  // disjoint w.p. 1 - 1e-6
  std::vector<uint8_t> out(std::max(total, q));
  const GrowthCase cases[] = {
      {0.01, 2, 0.85, Layout::kBlock512},   {0.001, 2, 0.9, Layout::kBlock512},
      {0.01, 4, 0.85, Layout::kBlock512},   {0.01, 2, 0.85, Layout::kClassic},
      {0.01, 2, 0.85, Layout::kRegister64}, {0.01, 2, 0.85, Layout::kSplitBlock256}};
  for (const GrowthCase& c : cases) {
    const std::string layout = layout_name(c.layout);
    CAPTURE(layout);
    CAPTURE(c.fpp);
    CAPTURE(c.growth);
    CAPTURE(c.tightening);
    ScalableFilter s =
        ScalableFilter::create(initial, c.fpp, {c.growth, c.tightening, c.layout, /*seed=*/9});
    test::Rng rng(5);
    size_t done = 0;
    for (size_t decade = initial; decade <= total; decade *= 10) {
      // Batches of random sizes, so that stage boundaries fall inside them.
      while (done < decade) {
        const size_t m = std::min<size_t>(decade - done, 1 + rng() % 50000);
        s.insert(Span<const uint64_t>(keys.data() + done, m));
        done += m;
      }
      CAPTURE(decade);
      CheckStages(s);
      REQUIRE(s.contains(Span<const uint64_t>(keys.data(), decade), out.data()) == decade);
      const size_t fp = s.contains(probes, out.data());
      const double measured = static_cast<double>(fp) / q;
      MESSAGE(layout << " fpp " << c.fpp << " s " << c.growth << " r " << c.tightening << ": "
                     << decade << " keys, " << s.stages() << " stages, " << s.bits_per_key()
                     << " bits/key, measured FPR " << measured << ", expected_fpp "
                     << s.expected_fpp());
      CHECK(static_cast<double>(fp) <= UpperBound(c.fpp, q));
      CHECK(s.expected_fpp() <= c.fpp);
      // The count drives growth; the estimate from the bits agrees with it.
      CHECK(s.count() <= decade);
      CHECK(static_cast<double>(s.count()) >= 0.98 * static_cast<double>(decade));
      CHECK(std::fabs(s.approximate_count() / static_cast<double>(decade) - 1) < 0.03);
    }
    // s = 2: 1e6 keys from 1e3 need stages of 1e3 .. 512e3 (10 stages hold 1023e3).
    if (c.growth == 2) CHECK(s.stages() == 10);
  }
}

TEST_CASE("scalable: memory per key of tightening 0.85 against 0.9 (the default's reason)") {
  // Bits per key of full chains (s = 2, fpp 1%) of 1..11 stages from the stages' sizes; the
  // chain is at its worst just after a stage boundary, at its best when the newest stage is full.
  double bits85 = 0, bits90 = 0;
  uint64_t keys = 0;
  for (size_t i = 0; i < 11; ++i) {
    ScalableFilter a = ScalableFilter::create(1000, 0.01, {2, 0.85});
    ScalableFilter b = ScalableFilter::create(1000, 0.01, {2, 0.9});
    keys += a.stage_capacity(i);
    bits85 += static_cast<double>(size_for(a.stage_capacity(i), a.stage_fpp(i)).bits);
    bits90 += static_cast<double>(size_for(b.stage_capacity(i), b.stage_fpp(i)).bits);
    MESSAGE("s 2, fpp 1%, " << i + 1 << " full stages (" << keys / 1000 << "x initial): r 0.85 "
                            << bits85 / keys << " bits/key, r 0.9 " << bits90 / keys);
    // 0.85 is cheaper up to 9 full stages (511x the initial capacity), 0.9 beyond.
    CHECK((bits85 < bits90) == (i < 9));
  }
  // A plain block512 filter at 1% for comparison.
  MESSAGE("plain block512 at 1%: " << static_cast<double>(size_for(1000000, 0.01).bits) / 1e6
                                   << " bits/key");
}

TEST_CASE("scalable: a stage never takes more than its capacity, inside one bulk call too") {
  ScalableFilter s = ScalableFilter::create(100, 0.01);
  const std::vector<uint64_t> keys = test::RandomKeys(5000, 3);
  // Every key three times in one batch: repeats leave room, filled by later pieces.
  std::vector<uint64_t> batch;
  for (size_t i = 0; i < 700; ++i) batch.insert(batch.end(), {keys[i], keys[i], keys[i]});
  std::vector<uint8_t> fresh(batch.size());
  const uint64_t got = s.insert(batch, fresh.data());
  CHECK(got == Ones(fresh));
  CHECK(got == s.count());
  CheckStages(s);
  // 700 distinct keys (minus false positives of the newest stage): 100 + 200 + 400 = 700.
  CHECK(s.stages() >= 3);
  // Exactly at capacity: no stage is added before it is needed.
  ScalableFilter t = ScalableFilter::create(100, 0.01);
  size_t i = 0;
  while (t.count() < 100) t.insert(keys[i++]);
  CHECK(t.stages() == 1);
  CHECK(t.stage_count(0) == 100);
  t.insert(keys[i]);
  CHECK(t.stages() == 2);
  CHECK(t.stage_capacity(1) == 200);
  // Non-integer growth: capacities round up stage by stage.
  ScalableFilter u = ScalableFilter::create(10, 0.01, {1.5});
  CHECK(u.stage_capacity(1) == 15);
  CHECK(u.stage_capacity(2) == 23);
  CHECK(u.stage_capacity(3) == 35);
}

// Keys of every shape over the same byte strings: key i is 8 bytes (u64 i) for numeric shapes.
struct Shapes {
  std::vector<uint64_t> u64;
  std::vector<uint32_t> u32;
  std::vector<uint16_t> u16;
  std::vector<std::string> strings;
  std::vector<std::string_view> views;
  std::vector<int32_t> off32{0};
  std::vector<int64_t> off64{0};
  std::vector<uint8_t> data;
  std::vector<uint8_t> records;  // 13-byte records, stride 16
  explicit Shapes(size_t n, uint64_t seed) {
    test::Rng rng(seed);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t x = rng();
      u64.push_back(x);
      u32.push_back(static_cast<uint32_t>(x));
      u16.push_back(static_cast<uint16_t>(x));
      std::string s = "k" + std::to_string(x % (1 + i % 977)) + "/" + std::to_string(i);
      strings.push_back(s);
      data.insert(data.end(), s.begin(), s.end());
      off32.push_back(static_cast<int32_t>(data.size()));
      off64.push_back(static_cast<int64_t>(data.size()));
      for (int b = 0; b < 16; ++b) records.push_back(static_cast<uint8_t>(x >> (4 * (b % 16))));
    }
    for (const std::string& s : strings) views.push_back(s);
  }
  size_t size() const { return u64.size(); }
  std::string_view Record(size_t i) const {
    return std::string_view(reinterpret_cast<const char*>(records.data() + 16 * i), 13);
  }
};

// Runs fn(name, keys, single(i)) for every shape, where single(i) is the chain's hash of key i
// computed by the single-key path of that shape.
template <class Fn>
void ForEachShape(const Shapes& sh, const ScalableFilter& s, Fn&& fn) {
  const size_t n = sh.size();
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) hashes[i] = s.hash(sh.u64[i]);
  fn("u64", Keys(sh.u64), [&](size_t i) { return s.hash(sh.u64[i]); });
  fn("u32", Keys(sh.u32), [&](size_t i) { return s.hash(sh.u32[i]); });
  fn("u16", Keys(sh.u16), [&](size_t i) { return s.hash(sh.u16[i]); });
  fn("string_view", Keys(sh.views), [&](size_t i) { return s.hash(sh.views[i]); });
  fn("std::string", Keys(sh.strings), [&](size_t i) { return s.hash(sh.views[i]); });
  fn("arrow32", Keys(BinaryArray<int32_t>{sh.off32.data(), sh.data.data(), n}),
     [&](size_t i) { return s.hash(sh.views[i]); });
  fn("arrow64", Keys(BinaryArray<int64_t>{sh.off64.data(), sh.data.data(), n}),
     [&](size_t i) { return s.hash(sh.views[i]); });
  fn("fixed13", Keys(FixedWidth{sh.records.data(), 13, 16, n}),
     [&](size_t i) { return s.hash(sh.Record(i)); });
  fn("prehashed", Keys(Prehashed{hashes.data(), n}), [&](size_t i) { return hashes[i]; });
}

TEST_CASE("scalable: bulk calls equal the single-key path for every shape, form and target") {
  const size_t n = 3001;  // not a multiple of the 1024-key tile
  const Shapes sh(n, 11);
  for (Layout layout : {Layout::kBlock512, Layout::kSplitBlock256}) {
    CAPTURE(layout_name(layout));
    // The single-key reference chain: the first 2000 keys of each shape, one at a time.
    ScalableFilter probe = ScalableFilter::create(150, 0.05, {2, 0.85, layout, 3});
    ForEachShape(sh, probe, [&](const char* name, Keys keys, auto single) {
      CAPTURE(name);
      ScalableFilter one = ScalableFilter::create(150, 0.05, {2, 0.85, layout, 3});
      std::vector<uint8_t> fresh_single(2000);
      for (size_t i = 0; i < 2000; ++i) fresh_single[i] = one.insert_hash(single(i));
      REQUIRE(one.stages() >= 4);
      // Pre-hashed inserts leave the key type open; a bulk insert of the shape sets it.
      if (keys.is_integer()) {
        one.set_key_type(KeyType::kInt64);
      } else if (keys.kind() != Keys::Kind::kPrehashed) {
        one.set_key_type(KeyType::kBytes);
      }
      test::ForEachApiTarget([&](const std::string&) {
        // Bulk insert, split into uneven batches: the same stages, bytes and fresh flags.
        ScalableFilter bulk = ScalableFilter::create(150, 0.05, {2, 0.85, layout, 3});
        std::vector<uint8_t> fresh(2000);
        bulk.insert(detail::SliceKeys(keys, 0, 700), fresh.data());
        bulk.insert(detail::SliceKeys(keys, 700, 1300), fresh.data() + 700);
        CHECK(fresh == fresh_single);
        CHECK(bulk.to_bytes() == one.to_bytes());
        ScalableFilter plain = ScalableFilter::create(150, 0.05, {2, 0.85, layout, 3});
        CHECK(plain.insert(detail::SliceKeys(keys, 0, 2000)) == one.count());
        CHECK(plain.to_bytes() == one.to_bytes());

        // Queries over all n keys (2000 present, 1001 mostly absent).
        std::vector<uint8_t> expect(n), out(n, 7), bitmap((n + 7) / 8, 0xAA);
        std::vector<uint32_t> expect_sel;
        for (size_t i = 0; i < n; ++i) {
          expect[i] = one.contains_hash(single(i));
          if (expect[i]) expect_sel.push_back(static_cast<uint32_t>(i));
        }
        CHECK(one.contains(keys, out.data()) == Ones(expect));
        CHECK(out == expect);
        CHECK(one.contains_bitmap(keys, bitmap.data()) == Ones(expect));
        for (size_t i = 0; i < n; ++i) CHECK(((bitmap[i / 8] >> (i % 8)) & 1) == expect[i]);
        CHECK((bitmap.back() >> (n % 8)) == 0);  // unused high bits are 0
        std::vector<uint32_t> sel(n);
        sel.resize(one.select(keys, sel.data()));
        CHECK(sel == expect_sel);
        // refine over a shuffled selection with repeats, in place and in order.
        std::vector<uint32_t> pick, expect_pick;
        test::Rng rng(8);
        for (size_t i = 0; i < 2500; ++i) pick.push_back(static_cast<uint32_t>(rng() % n));
        for (uint32_t p : pick) {
          if (expect[p]) expect_pick.push_back(p);
        }
        pick.resize(one.refine(keys, pick.data(), pick.size()));
        CHECK(pick == expect_pick);
      });
    });
  }
}

TEST_CASE("scalable: single keys, moved-from chains, clear, bad bulk arguments") {
  ScalableFilter s = ScalableFilter::create(50, 0.01);
  for (uint64_t k = 0; k < 500; ++k) s.insert(k);
  s.insert(int32_t{-1});
  CHECK(s.key_type() == KeyType::kInt64);
  CHECK(s.contains(~uint64_t{0}));  // int32_t -1 is the value -1: 2^64 - 1 as 64 bits
  CHECK(s.contains(int16_t{-1}));
  for (uint64_t k = 0; k < 500; ++k) REQUIRE(s.contains(uint32_t(k)));
  CHECK(s.stages() == 4);  // 50 + 100 + 200 + 400 >= 501
  ScalableFilter words = ScalableFilter::create(50, 0.01);
  words.insert(std::string_view("hello"));
  CHECK(words.contains("hello"));
  CHECK(words.key_type() == KeyType::kBytes);
  CHECK_THROWS_AS(words.contains(uint64_t{1}), KeyTypeError);
  CHECK_THROWS_AS(s.contains("hello"), KeyTypeError);
  // Errors before anything is written: bad Arrow offsets leave the chain as it was.
  const std::vector<uint8_t> before = s.to_bytes();
  const int32_t offsets[] = {0, 4, 2};
  const uint8_t data[] = {1, 2, 3, 4};
  CHECK(test::CodeOf([&] {
          s.insert(BinaryArray<int32_t>{offsets, data, 2});
        }) == ErrorCode::kInvalidArgument);
  CHECK(s.to_bytes() == before);
  std::vector<uint8_t> out(2);
  CHECK(test::CodeOf([&] {
          s.contains(BinaryArray<int32_t>{offsets, data, 2}, out.data());
        }) == ErrorCode::kInvalidArgument);
  const uint64_t keys[2] = {1, 2};
  CHECK(test::CodeOf([&] { s.contains(keys, nullptr); }) == ErrorCode::kInvalidArgument);
  CHECK(test::CodeOf([&] { s.insert(Keys(keys), nullptr); }) == ErrorCode::kInvalidArgument);
  uint32_t sel[2] = {0, 2};
  CHECK(test::CodeOf([&] { s.refine(keys, sel, 2); }) == ErrorCode::kInvalidArgument);
  CHECK(test::CodeOf([&] { s.stage(4); }) == ErrorCode::kInvalidArgument);

  ScalableFilter moved = std::move(s);
  CHECK(moved.contains(uint64_t{7}));
  CHECK(s.stages() == 0);  // NOLINT(bugprone-use-after-move): documented state
  CHECK(test::CodeOf([&] { (void)s.contains(uint64_t{7}); }) == ErrorCode::kInvalidArgument);
  CHECK(test::CodeOf([&] { s.insert(uint64_t{7}); }) == ErrorCode::kInvalidArgument);
  CHECK(test::CodeOf([&] { s.contains(keys, out.data()); }) == ErrorCode::kInvalidArgument);
  CHECK(test::CodeOf([&] { s.to_bytes(); }) == ErrorCode::kInvalidArgument);
  s = ScalableFilter::create(50, 0.01);  // assignable again
  CHECK(s.stages() == 1);

  ScalableFilter copy = moved;
  moved.clear();
  CHECK(moved.stages() == 1);
  CHECK(moved.count() == 0);
  ScalableOptions int64_chain;  // clear keeps what the chain holds
  int64_chain.key_type = KeyType::kInt64;
  CHECK(moved.key_type() == KeyType::kInt64);
  CHECK(moved.to_bytes() == ScalableFilter::create(50, 0.01, int64_chain).to_bytes());
  CHECK(copy.contains(uint64_t{7}));  // the copy is deep
}

TEST_CASE("scalable: argument checks and the chain's limits") {
  const auto invalid = [](uint64_t n, double fpp, ScalableOptions o) {
    return test::CodeOf([&] { ScalableFilter::create(n, fpp, o); }) == ErrorCode::kInvalidArgument;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(invalid(0, 0.01, {}));
  CHECK(invalid(100, 0, {}));
  CHECK(invalid(100, 1, {}));
  CHECK(invalid(100, nan, {}));
  CHECK(invalid(100, 0.01, {0.99}));
  CHECK(invalid(100, 0.01, {16.5}));
  CHECK(invalid(100, 0.01, {nan}));
  CHECK(invalid(100, 0.01, {2, 0}));
  CHECK(invalid(100, 0.01, {2, 1}));
  CHECK(invalid(100, 0.01, {2, -0.5}));
  CHECK(invalid(100, 0.01, {2, nan}));
  CHECK(invalid(100, 1e-8, {2, 0.95}));  // first stage at 5e-10
  CHECK(invalid(100, 0.01, {2, 0.85, static_cast<Layout>(99)}));
  CHECK_FALSE(invalid(100, 0.01, {1, 0.5}));
  CHECK_FALSE(invalid(100, 0.01, {16, 0.99}));

  // growth 1: 64 stages of 10 keys, then the chain is full. The key that needed a 65th stage is
  // not inserted, everything before it is, and the chain stays usable.
  ScalableFilter s = ScalableFilter::create(10, 0.01, {1, 0.85});
  const std::vector<uint64_t> keys = test::RandomKeys(1000, 4);
  CHECK(test::CodeOf([&] { s.insert(keys); }) == ErrorCode::kCapacityExhausted);
  CHECK(s.stages() == ScalableFilter::kMaxStages);
  CHECK(s.count() == 640);
  CheckStages(s);
  std::vector<uint8_t> out(keys.size());
  s.contains(keys, out.data());
  size_t first_missing = 0;
  while (first_missing < keys.size() && out[first_missing]) ++first_missing;
  CHECK(first_missing >= 640);
  // Tightening 0.5: stage 23 would need the rate 0.005 * 2^-23 < 1e-9.
  ScalableFilter t = ScalableFilter::create(1, 0.01, {1, 0.5});
  // Its own code and message (issue 45: it was kOutOfMemory, "its rate 0.000000 would be ...").
  try {
    t.insert(keys);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCapacityExhausted);
    CHECK(
        std::string(e.what()) ==
        "ScalableFilter::insert: capacity exhausted: cannot add stage 23: its rate 5.96e-10 would "
        "be below 1e-9");
  }
  CHECK(t.stages() == 23);
  CHECK(t.stage_fpp(22) >= 1e-9);
  CHECK(t.stage_fpp(23) < 1e-9);
}

TEST_CASE("scalable: save and load round-trip byte for byte and keep growing alike") {
  ScalableFilter s = ScalableFilter::create(200, 0.02, {3, 0.8, Layout::kRegister64, 12345});
  const std::vector<uint64_t> keys = test::RandomKeys(10000, 21);
  s.insert(Span<const uint64_t>(keys.data(), 5000));
  REQUIRE(s.stages() >= 3);
  const std::vector<uint8_t> bytes = s.to_bytes();
  CHECK(bytes.size() == s.serialized_size());
  CHECK(std::memcmp(bytes.data(), "SIMDBSCL", 8) == 0);

  ScalableFilter a = ScalableFilter::from_bytes(bytes.data(), bytes.size());
  CHECK(a.to_bytes() == bytes);
  std::stringstream stream;
  s.save(stream);
  CHECK(stream.str() == std::string(bytes.begin(), bytes.end()));
  ScalableFilter b = ScalableFilter::load(stream);
  CHECK(b.to_bytes() == bytes);
  const std::string path = "scalable_test_roundtrip.sbs";
  s.save_file(path);
  ScalableFilter c = ScalableFilter::load_file(path);
  std::remove(path.c_str());
  CHECK(c.to_bytes() == bytes);
  CHECK(c.growth() == 3);
  CHECK(c.tightening() == 0.8);
  CHECK(c.layout() == Layout::kRegister64);
  CHECK(c.seed() == 12345);
  CHECK(c.count() == s.count());
  for (size_t i = 0; i < s.stages(); ++i) CHECK(c.stage_count(i) == s.stage_count(i));
  CHECK(test::CodeOf([&] { ScalableFilter::load_file("/nonexistent/chain"); }) == ErrorCode::kIo);
  CHECK(test::CodeOf([&] { ScalableFilter::load_file("."); }) == ErrorCode::kIo);

  // The loaded chain goes on exactly as the original.
  s.insert(Span<const uint64_t>(keys.data() + 5000, 5000));
  c.insert(Span<const uint64_t>(keys.data() + 5000, 5000));
  CHECK(c.to_bytes() == s.to_bytes());

  // A stream that cannot seek is read stage by stage.
  struct OneWay : std::streambuf {
    explicit OneWay(const std::vector<uint8_t>& b) {
      char* p = const_cast<char*>(reinterpret_cast<const char*>(b.data()));
      setg(p, p, p + b.size());
    }
  } oneway(bytes);
  std::istream in(&oneway);
  CHECK(ScalableFilter::load(in).to_bytes() == bytes);
}

TEST_CASE("scalable: truncated, corrupt and crafted chains are refused with kFormat") {
  ScalableFilter s = ScalableFilter::create(20, 0.05, {2, 0.85, Layout::kBlock512, 1});
  s.insert(test::RandomKeys(100, 2));
  REQUIRE(s.stages() == 3);
  const std::vector<uint8_t> bytes = s.to_bytes();
  const auto refused = [](const std::vector<uint8_t>& b) {
    if (test::CodeOf([&] { ScalableFilter::from_bytes(b.data(), b.size()); }) !=
        ErrorCode::kFormat) {
      return false;
    }
    std::stringstream in(std::string(b.begin(), b.end()));
    return test::CodeOf([&] { ScalableFilter::load(in); }) == ErrorCode::kFormat;
  };
  // Every truncation, and one byte too many.
  for (size_t n = 0; n < bytes.size(); ++n) {
    CAPTURE(n);
    REQUIRE(refused(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n)));
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  CHECK(refused(longer));
  // Every bit of the header, table and checksum; a byte of every stage's header and payload.
  const size_t prefix = 64 + 16 * 3 + 8;
  for (size_t i = 0; i < prefix * 8; ++i) {
    std::vector<uint8_t> b = bytes;
    b[i / 8] ^= static_cast<uint8_t>(1 << (i % 8));
    CAPTURE(i);
    REQUIRE(refused(b));
  }
  for (size_t at = prefix; at < bytes.size(); at += 37) {
    std::vector<uint8_t> b = bytes;
    b[at] ^= 0x10;
    CAPTURE(at);
    REQUIRE(refused(b));
  }
  // Crafted tables with valid checksums: fields that make no chain.
  const auto craft = [&](auto edit) {
    std::vector<uint8_t> b = bytes;
    edit(b);
    const size_t n = b[20] | (b[21] << 8);
    const size_t end = 64 + 16 * std::min<size_t>(n, 3);
    if (end + 8 <= b.size()) {
      const uint64_t sum = ref::Checksum(b.data(), end);
      for (int j = 0; j < 8; ++j) b[end + j] = static_cast<uint8_t>(sum >> (8 * j));
    }
    return b;
  };
  const auto put64 = [](std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int j = 0; j < 8; ++j) b[at + j] = static_cast<uint8_t>(v >> (8 * j));
  };
  const auto putf = [&](std::vector<uint8_t>& b, size_t at, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    put64(b, at, bits);
  };
  // Untouched, the crafting reproduces a valid file.
  CHECK_FALSE(refused(craft([](std::vector<uint8_t>&) {})));
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { put64(b, 64, 21); })));  // count > capacity
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { put64(b, 24, 0); })));   // capacity 0
  CHECK(
      refused(craft([&](std::vector<uint8_t>& b) { put64(b, 24, 10); })));  // counts above capacity
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { putf(b, 32, 1.5); })));    // fpp
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { putf(b, 40, 0.5); })));    // growth
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { putf(b, 48, 1.0); })));    // tightening
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { putf(b, 32, 0.001); })));  // stages too small
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { put64(b, 56, 2); })));     // seed differs
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[16] = 2; })));           // layout differs
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[16] = 77; })));          // unknown layout
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[17] = 5; })));           // key type
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[17] = b[17] == 3 ? 1 : 3; })));  // stages'
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[18] = 1; })));                   // reserved
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[20] = 65; })));  // stage count
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[20] = 0; })));
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { b[20] = 2; })));  // a stage left over
  // Stage sizes that do not add up to the input, or claim terabytes: refused before any
  // allocation, at once.
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { put64(b, 64 + 8, 63); })));
  const auto start = std::chrono::steady_clock::now();
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { put64(b, 64 + 16 + 8, uint64_t{1} << 42); })));
  CHECK(refused(craft([&](std::vector<uint8_t>& b) { put64(b, 64 + 32 + 8, ~uint64_t{0}); })));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  CHECK(test::CodeOf([] { ScalableFilter::from_bytes(nullptr, 5); }) ==
        ErrorCode::kInvalidArgument);
  // A plain filter's file is not a chain, nor a chain's a filter.
  std::stringstream plain;
  Filter::create(100, 0.01).save(plain);
  const std::string p = plain.str();
  CHECK(test::CodeOf([&] {
          ScalableFilter::from_bytes(reinterpret_cast<const uint8_t*>(p.data()), p.size());
        }) == ErrorCode::kFormat);
  CHECK(test::CodeOf([&] { Filter::load(bytes.data(), bytes.size()); }) == ErrorCode::kFormat);
}

TEST_CASE("scalable: merge is offered only where the rate bound holds") {
  const std::vector<uint64_t> keys = test::RandomKeys(3000, 31);
  ScalableFilter a = ScalableFilter::create(1000, 0.01);
  ScalableFilter b = ScalableFilter::create(1000, 0.01);
  a.insert(Span<const uint64_t>(keys.data(), 400));
  b.insert(Span<const uint64_t>(keys.data() + 400, 500));
  ScalableFilter whole = ScalableFilter::create(1000, 0.01);
  whole.insert(Span<const uint64_t>(keys.data(), 900));
  REQUIRE(a.can_merge(b));
  const uint64_t a_count = a.count();
  a.merge(b);
  CHECK(a.count() == a_count + b.count());
  CHECK(a.stages() == 1);
  // The OR of the stages is the stage built from all keys.
  CHECK(std::memcmp(a.stage(0).data(), whole.stage(0).data(), whole.stage(0).size_bytes()) == 0);
  std::vector<uint8_t> out(900);
  CHECK(a.contains(Span<const uint64_t>(keys.data(), 900), out.data()) == 900);
  // 900 + 900 keys would overfill stage 0 (capacity 1000): refused, a unchanged.
  const std::vector<uint8_t> before = a.to_bytes();
  CHECK_FALSE(a.can_merge(whole));
  CHECK(test::CodeOf([&] { a.merge(whole); }) == ErrorCode::kIncompatible);
  CHECK(a.to_bytes() == before);
  // Grown chains: their full older stages cannot take more keys.
  ScalableFilter g1 = ScalableFilter::create(100, 0.01), g2 = ScalableFilter::create(100, 0.01);
  g1.insert(Span<const uint64_t>(keys.data(), 300));
  g2.insert(Span<const uint64_t>(keys.data() + 300, 300));
  CHECK(test::CodeOf([&] { g1.merge(g2); }) == ErrorCode::kIncompatible);
  // An empty chain merges into a grown one (its stages are copied), and parameters must match.
  ScalableFilter empty = ScalableFilter::create(100, 0.01);
  empty.merge(g1);
  CHECK(empty.to_bytes() == g1.to_bytes());
  CHECK_FALSE(a.can_merge(ScalableFilter::create(1000, 0.01, {2, 0.9})));
  CHECK_FALSE(a.can_merge(ScalableFilter::create(1000, 0.01, {4})));
  CHECK_FALSE(a.can_merge(ScalableFilter::create(1000, 0.02)));
  CHECK_FALSE(a.can_merge(ScalableFilter::create(999, 0.01)));
  CHECK_FALSE(a.can_merge(ScalableFilter::create(1000, 0.01, {2, 0.85, Layout::kBlock512, 1})));
}

}  // namespace
}  // namespace simdbloom
