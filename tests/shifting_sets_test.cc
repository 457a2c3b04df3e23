// SPDX-License-Identifier: Apache-2.0
// ShBF_A and ShBF_x (simdbloom/shifting.hpp): answers never lose the truth, measured rates of
// clear answers, correct counts and false positives follow the models (fixed seeds, two-sided 99.9%
// binomial bounds plus 3% model tolerance), persistence rejects every damaged input.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/scalar/hash.h"
#include "kernels/shbf_ax/spec.h"
#include "lib/core/key_source.h"
#include "lib/formats/file_io.h"
#include "simdbloom/shifting.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

constexpr double kZ = 3.2905;  // two-sided 99.9%

// |measured - predicted| within sampling noise of `trials` Bernoulli(predicted) plus 3% of it.
// An ShBF_A and an ShBF_x of `blocks` blocks holding the first n keys, one at a time: key i in
// set 1 << (i % 3) (S1, both, S2), with count 1 + i % max_count.
struct FilledPair {
  ShiftingAssociation a;
  ShiftingMultiplicity m;
  FilledPair(uint64_t blocks, uint32_t max_count, uint64_t seed, const std::vector<uint64_t>& keys,
             size_t n)
      : a(ShiftingAssociation::with_bits(512 * blocks, seed)),
        m(ShiftingMultiplicity::with_bits(512 * blocks, max_count, seed)) {
    for (size_t i = 0; i < n; ++i) {
      a.insert(keys[i], static_cast<uint8_t>(1 << (i % 3)));
      m.insert(keys[i], 1 + static_cast<uint32_t>(i % max_count));
    }
  }
};

bool WithinBinomial(double measured, double predicted, double trials) {
  const double sd = std::sqrt(predicted * (1 - predicted) / trials);
  return std::fabs(measured - predicted) <= kZ * sd + 0.03 * predicted;
}

// The candidates kernel of every target against the rotate-and-AND of the spec, computed here
// (FORMAT.md "Shifting set filters"), on sparse, half-full and full arrays, block counts 1 to
// 100003 and batch sizes around the vector width and the tile.
TEST_CASE("equivalence: the ShBF_A/x candidates kernel equals the spec on every target") {
  test::ForEachTarget("shifting sets", [&](const detail::Kernels& k) {
    const auto fn = k.shifting_sets.candidates;
    REQUIRE(static_cast<bool>(fn != nullptr));
    for (uint64_t nb : {uint64_t{1}, uint64_t{3}, uint64_t{1000}, uint64_t{100003}}) {
      for (int density : {0, 1, 2}) {  // sparse (1/8 of bits), half, all ones
        CAPTURE(nb);
        CAPTURE(density);
        detail::ShiftingBlocks b(nb, 0);
        test::Rng rng(nb * 3 + density);
        for (uint64_t i = 0; i < nb * 8; ++i) {
          const uint64_t r = rng();
          b.words()[i] = density == 0 ? r & rng() & rng() : (density == 1 ? r : ~uint64_t{0});
        }
        const std::vector<uint64_t> hashes = test::RandomKeys(600, nb + density);
        for (size_t m : {0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 255, 256, 257, 599}) {
          for (uint32_t dist : {0u, 5u, 64u, 1000u}) {
            CAPTURE(m);
            CAPTURE(dist);
            detail::Params p{nb, 8, 0};
            p.prefetch_distance = dist;
            // Pre-hashed keys at an address that is not 8-byte aligned.
            std::vector<uint8_t> raw(8 * m + 8);
            if (m != 0) std::memcpy(raw.data() + 4, hashes.data(), 8 * m);
            detail::KeySource src;
            src.kind = detail::KeyKind::kHashes;
            src.keys = raw.data() + 4;
            std::vector<uint64_t> out(m + 1, 12345);
            fn(b.words(), p, src, m, out.data());
            for (size_t i = 0; i < m; ++i) {
              const uint64_t h = hashes[i];
              const uint64_t* block = b.words() + 8 * (((h >> 32) * nb) >> 32);
              uint64_t want = ~uint64_t{0};
              for (uint32_t w = 0; w < 8; ++w) {
                const uint32_t r = (static_cast<uint32_t>(h) * detail::kMultipliers.m[w]) >> 26;
                want &= r == 0 ? block[w] : (block[w] >> r) | (block[w] << (64 - r));
              }
              REQUIRE(out[i] == want);
              REQUIRE(b.candidates(h) == want);
            }
            CHECK(out[m] == 12345);  // nothing written past m
          }
        }
      }
    }
  });
}

TEST_CASE("shifting_sets: F(1) equals the closed form of one pattern in 8 words") {
  // E[(1 - (63/64)^L)^8] over L ~ Poisson(lambda) = sum_j C(8,j) (-1)^j exp(-lambda (1 - r^j)).
  for (double lambda : {1.0, 20.0, 51.2, 150.0}) {
    CAPTURE(lambda);
    double want = 0, binom = 1;
    for (int j = 0; j <= 8; ++j) {
      want += (j % 2 ? -binom : binom) * std::exp(-lambda * (1 - std::pow(63.0 / 64, j)));
      binom = binom * (8 - j) / (j + 1);
    }
    CHECK(shifting_patterns_set_probability(1, lambda * 1000, 1000) ==
          doctest::Approx(want).epsilon(1e-9));
    // More patterns, rarer; F(0) = 1.
    CHECK(shifting_patterns_set_probability(0, lambda, 1) == 1);
    CHECK(shifting_patterns_set_probability(2, lambda * 1000, 1000) <= want);
  }
}

TEST_CASE("shifting_sets: ShBF_A answers hold the truth; clear and false-positive rates match") {
  // S1 = keys [0, 60000), S2 = keys [40000, 100000): 40000 S1 only, 20000 both, 40000 S2 only.
  const std::vector<uint64_t> pool = test::RandomKeys(100000, 31);
  const std::vector<uint64_t> s1(pool.begin(), pool.begin() + 60000);
  const std::vector<uint64_t> s2(pool.begin() + 40000, pool.end());
  const std::vector<uint64_t> absent = test::RandomKeys(1000000, 32);
  for (double fpp : {0.05, 0.01}) {
    CAPTURE(fpp);
    const ShiftingAssociation f = ShiftingAssociation::build(s1, s2, fpp, 7);
    CHECK(f.items() == 100000);
    std::vector<uint8_t> out(pool.size());
    f.query(pool, out.data());
    size_t clear = 0;
    for (size_t i = 0; i < pool.size(); ++i) {
      const uint8_t truth = i < 40000   ? ShiftingAssociation::kOnlyFirst
                            : i < 60000 ? ShiftingAssociation::kBoth
                                        : ShiftingAssociation::kOnlySecond;
      REQUIRE((out[i] & truth) != 0);  // never a false negative
      REQUIRE(out[i] == f.query(pool[i]));
      clear += ShiftingAssociation::is_clear(out[i]);
    }
    const double p_clear = f.clear_answer_probability();
    const double measured_unclear = 1 - static_cast<double>(clear) / pool.size();
    std::vector<uint8_t> neg(absent.size());
    f.query(absent, neg.data());
    size_t fp = 0;
    for (uint8_t a : neg) fp += a != 0;
    const double measured_fp = static_cast<double>(fp) / absent.size();
    MESSAGE("ShBF_A fpp " << fpp << ": " << f.bit_count() / 1e5 << " bits/key, clear "
                          << 1 - measured_unclear << " (model " << p_clear << ", paper (1-f)^2 "
                          << f.paper_clear_answer_probability() << "), false positives "
                          << measured_fp << " (model " << f.false_positive_probability() << ")");
    CHECK(WithinBinomial(measured_unclear, 1 - p_clear, pool.size()));
    CHECK(WithinBinomial(measured_fp, f.false_positive_probability(), absent.size()));
    // The model's correlation term: the wrong patterns share the block, F(2) >= F(1)^2.
    CHECK(p_clear >= f.paper_clear_answer_probability());
    CHECK(1 - p_clear <= 2 * fpp);
  }
}

TEST_CASE(
    "shifting_sets: ShBF_x never over-reports; correct-count and false-positive rates match") {
  const uint32_t c = 8;
  // 80000 distinct keys, key i with count 1 + i % 8, given as a multiset in shuffled order.
  const std::vector<uint64_t> distinct = test::RandomKeys(80000, 41);
  std::vector<uint64_t> multiset;
  for (size_t i = 0; i < distinct.size(); ++i) {
    for (uint32_t r = 0; r <= i % c; ++r) multiset.push_back(distinct[i]);
  }
  test::Rng rng(42);
  for (size_t i = multiset.size() - 1; i > 0; --i)
    std::swap(multiset[i], multiset[rng() % (i + 1)]);
  const std::vector<uint64_t> absent = test::RandomKeys(1000000, 43);
  for (double fpp : {0.02, 0.005}) {
    CAPTURE(fpp);
    const ShiftingMultiplicity f = ShiftingMultiplicity::build(multiset, fpp, c, 9);
    CHECK(f.items() == distinct.size());
    std::vector<uint32_t> out(distinct.size());
    f.count(distinct, out.data());
    std::vector<size_t> right(c + 1, 0), total(c + 1, 0);
    for (size_t i = 0; i < distinct.size(); ++i) {
      const uint32_t x = 1 + i % c;
      REQUIRE(out[i] >= 1);
      REQUIRE(out[i] <= x);  // the smallest candidate: never above the truth
      REQUIRE(out[i] == f.count(distinct[i]));
      ++total[x];
      right[x] += out[i] == x;
    }
    for (uint32_t x = 1; x <= c; ++x) {
      CAPTURE(x);
      const double measured_wrong = 1 - static_cast<double>(right[x]) / total[x];
      const double model_wrong = 1 - f.correct_probability(x);
      if (x == 1) CHECK(right[x] == total[x]);  // nothing below count 1
      CHECK(WithinBinomial(measured_wrong, model_wrong, total[x]));
      if (x == c) {
        MESSAGE("ShBF_x fpp " << fpp << ": count " << x << " correct " << 1 - measured_wrong
                              << " (model " << 1 - model_wrong << ", paper (1-f)^(x-1) "
                              << std::pow(1 - shifting_patterns_set_probability(1, f.items(),
                                                                                f.num_blocks()),
                                          x - 1)
                              << ")");
      }
    }
    std::vector<uint32_t> neg(absent.size());
    f.count(absent, neg.data());
    size_t fp = 0;
    for (uint32_t a : neg) fp += a != 0;
    CHECK(WithinBinomial(static_cast<double>(fp) / absent.size(), f.false_positive_probability(),
                         absent.size()));
  }
}

TEST_CASE("shifting_sets: bulk answers equal single-key answers on every target") {
  const std::vector<uint64_t> keys = test::RandomKeys(3000, 61);
  FilledPair filled(40, 64, 5, keys, 1500);
  ShiftingAssociation& a = filled.a;
  ShiftingMultiplicity& m = filled.m;
  test::ForEachApiTarget([&](const std::string&) {
    // Bulk inserts write the same bytes as single ones (groups by membership / count).
    ShiftingAssociation a2 = ShiftingAssociation::with_bits(512 * 40, 5);
    ShiftingMultiplicity m2 = ShiftingMultiplicity::with_bits(512 * 40, 64, 5);
    for (uint32_t g = 0; g < 64; ++g) {
      std::vector<uint64_t> group;
      for (size_t i = g; i < 1500; i += 64) group.push_back(keys[i]);
      m2.insert(group, g + 1);
      if (g < 3) {
        group.clear();
        for (size_t i = g; i < 1500; i += 3) group.push_back(keys[i]);
        a2.insert(group, static_cast<uint8_t>(1 << g));
      }
    }
    CHECK(a2.save() == a.save());
    CHECK(m2.save() == m.save());
    for (size_t n : {0, 1, 255, 256, 257, 3000}) {
      CAPTURE(n);
      std::vector<uint8_t> qa(n + 1, 99);
      std::vector<uint32_t> qm(n + 1, 99);
      a.query(Span<const uint64_t>(keys.data(), n), qa.data());
      m.count(Span<const uint64_t>(keys.data(), n), qm.data());
      for (size_t i = 0; i < n; ++i) {
        REQUIRE(qa[i] == a.query(keys[i]));
        REQUIRE(qm[i] == m.count(keys[i]));
      }
      CHECK(qa[n] == 99);
      CHECK(qm[n] == 99);
    }
  });
}

TEST_CASE("shifting_sets: bulk calls take every key shape and equal single-key calls") {
  test::KeyShapes data(test::RandomKeys(900, 17));
  test::ForEachApiTarget([&](const std::string&) {
    const ShiftingAssociation a0 = ShiftingAssociation::with_bits(512 * 64, 9);
    const std::vector<test::KeyShapes::Shape> shapes = data.For(a0);
    for (size_t s = 0; s < shapes.size(); ++s) {
      CAPTURE(s);
      const test::KeyShapes::Shape& shape = shapes[s];
      const size_t n = shape.keys.size();
      const size_t third = n / 3;
      ShiftingAssociation bulk_a = ShiftingAssociation::with_bits(512 * 64, 9);
      ShiftingAssociation single_a = ShiftingAssociation::with_bits(512 * 64, 9);
      ShiftingMultiplicity bulk_m = ShiftingMultiplicity::with_bits(512 * 64, 5, 9);
      ShiftingMultiplicity single_m = ShiftingMultiplicity::with_bits(512 * 64, 5, 9);
      // The first third of the keys in S1 only / with count 2, the second in both / count 5.
      for (size_t g = 0; g < 2; ++g) {
        const Keys part = g == 0 ? detail::SliceKeys(shape.keys, 0, third)
                                 : detail::SliceKeys(shape.keys, third, third);
        const uint8_t membership =
            g == 0 ? ShiftingAssociation::kOnlyFirst : ShiftingAssociation::kBoth;
        const uint32_t count = g == 0 ? 2 : 5;
        bulk_a.insert(part, membership);
        bulk_m.insert(part, count);
        for (size_t i = g * third; i < (g + 1) * third; ++i) {
          single_a.insert_hash(shape.hash(i), membership);
          single_m.insert_hash(shape.hash(i), count);
        }
      }
      // Pre-hashed inserts leave the key type open; the bulk inserts of the shape set it.
      single_a.set_key_type(bulk_a.key_type() == KeyType::kNone ? KeyType::kInt64
                                                                : bulk_a.key_type());
      single_m.set_key_type(bulk_m.key_type() == KeyType::kNone ? KeyType::kInt64
                                                                : bulk_m.key_type());
      if (bulk_a.key_type() == KeyType::kNone) {  // Prehashed: no key type either
        bulk_a.set_key_type(KeyType::kInt64);
        bulk_m.set_key_type(KeyType::kInt64);
      }
      CHECK(bulk_a.save() == single_a.save());
      CHECK(bulk_m.save() == single_m.save());
      std::vector<uint8_t> qa(n + 1, 99);
      std::vector<uint32_t> qm(n + 1, 99);
      bulk_a.query(shape.keys, qa.data());
      bulk_m.count(shape.keys, qm.data());
      for (size_t i = 0; i < n; ++i) {
        REQUIRE(qa[i] == single_a.query_hash(shape.hash(i)));
        REQUIRE(qm[i] == single_m.count_hash(shape.hash(i)));
        if (i < third) REQUIRE((qa[i] & ShiftingAssociation::kOnlyFirst) != 0);
        if (i >= third && i < 2 * third) REQUIRE((qa[i] & ShiftingAssociation::kBoth) != 0);
        if (i < 2 * third) REQUIRE(qm[i] >= 1);  // never larger than the truth, never 0
      }
      CHECK(qa[n] == 99);
      CHECK(qm[n] == 99);
    }
  });
  // An integer key is its value, whatever its width, in single and bulk calls alike.
  ShiftingAssociation a = ShiftingAssociation::with_bits(1 << 16, 3);
  const std::vector<uint32_t> narrow = {7, 8, 9};
  a.insert(narrow, ShiftingAssociation::kOnlySecond);
  CHECK(a.key_type() == KeyType::kInt64);
  CHECK(a.query(uint32_t{7}) == ShiftingAssociation::kOnlySecond);
  CHECK(a.query(int64_t{8}) == ShiftingAssociation::kOnlySecond);
  CHECK(a.hash(uint32_t{7}) == a.hash(uint64_t{7}));
  CHECK(a.hash(uint64_t{7}) == detail::Xxh3U64(7, 3));
  CHECK_THROWS_AS(a.hash(std::string_view("\x07\0\0\0\0\0\0\0", 8)), KeyTypeError);
  ShiftingMultiplicity m = ShiftingMultiplicity::with_bits(1 << 16, 4, 3);
  m.insert(uint16_t{300}, 3);
  const std::vector<uint16_t> shorts = {300};
  uint32_t got = 0;
  m.count(shorts, &got);
  CHECK(got == 3);
  // Keys the bulk calls cannot read are refused before any bit changes.
  const std::string before = a.save();
  const int32_t bad_offsets[] = {0, 5, 2};
  const uint8_t chars[8] = {};
  const BinaryArray<int32_t> bad{bad_offsets, chars, 2};
  CHECK_THROWS_WITH_AS(a.insert(bad, ShiftingAssociation::kBoth),
                       doctest::Contains("ShiftingAssociation::insert"), Error);
  CHECK_THROWS_WITH_AS(m.insert(bad, 1), doctest::Contains("ShiftingMultiplicity::insert"), Error);
  uint8_t qa[2];
  uint32_t qm[2];
  CHECK_THROWS_WITH_AS(a.query(bad, qa), doctest::Contains("ShiftingAssociation::query"), Error);
  CHECK_THROWS_WITH_AS(m.count(bad, qm), doctest::Contains("ShiftingMultiplicity::count"), Error);
  CHECK(a.save() == before);
}

TEST_CASE("shifting_sets: keys as strings, as integers (never both), and argument errors") {
  ShiftingAssociation a = ShiftingAssociation::with_bits(1 << 16, 3);
  a.insert(std::string_view("flow-a"), ShiftingAssociation::kBoth);
  CHECK(a.key_type() == KeyType::kBytes);
  CHECK((a.query(std::string_view("flow-a")) & ShiftingAssociation::kBoth) != 0);
  CHECK_THROWS_AS(a.insert(uint64_t{0x0102030405060708}, ShiftingAssociation::kOnlySecond),
                  KeyTypeError);
  CHECK_THROWS_AS(a.query(uint64_t{1}), KeyTypeError);
  const char bytes[8] = {8, 7, 6, 5, 4, 3, 2, 1};  // an integer's little-endian bytes
  a.insert(std::string_view(bytes, 8), ShiftingAssociation::kOnlySecond);
  CHECK((a.query(std::string_view(bytes, 8)) & ShiftingAssociation::kOnlySecond) != 0);
  ShiftingMultiplicity m = ShiftingMultiplicity::with_bits(1 << 16, 64, 3);
  m.insert(uint64_t{5}, 1);
  CHECK(m.count(int32_t{5}) == 1);
  CHECK_THROWS_AS(m.insert(std::string_view("x"), 64), KeyTypeError);
  ShiftingMultiplicity words = ShiftingMultiplicity::with_bits(1 << 16, 64, 3);
  words.insert(std::string_view("x"), 64);
  CHECK(words.count(std::string_view("x")) >= 1);

  // Moved from: every key call and save throw (an answer of 0 would be a silent false negative),
  // never crashes; outputs are left alone.
  ShiftingAssociation a_moved = std::move(a);
  CHECK((a_moved.query(std::string_view("flow-a")) & ShiftingAssociation::kBoth) != 0);
  // NOLINTNEXTLINE(bugprone-use-after-move): the documented state
  CHECK_THROWS_AS((void)a.query(uint64_t{1}), Error);
  uint8_t qa[2] = {7, 7};
  const uint64_t two[2] = {1, 2};
  CHECK_THROWS_AS(a.query(two, qa), Error);
  CHECK((qa[0] & qa[1]) == 7);
  CHECK_THROWS_AS(a.insert(uint64_t{1}, ShiftingAssociation::kBoth), Error);
  CHECK_THROWS_AS(a.save(), Error);
  ShiftingMultiplicity m_moved = std::move(m);
  uint32_t qm[2] = {7, 7};
  CHECK_THROWS_AS(m.count(two, qm), Error);
  CHECK((qm[0] & qm[1]) == 7);
  CHECK_THROWS_AS((void)m.count(uint64_t{5}), Error);
  CHECK(m_moved.count(uint64_t{5}) == 1);
  CHECK_THROWS_AS(m.insert(uint64_t{1}, 1u), Error);

  const ErrorCode kInvalid = ErrorCode::kInvalidArgument;
  CHECK(test::CodeOf([] { ShiftingAssociation::create(0, 0.01); }) == kInvalid);
  CHECK(test::CodeOf([] { ShiftingAssociation::create(10, 0); }) == kInvalid);
  CHECK(test::CodeOf([] { ShiftingAssociation::create(10, 1.0); }) == kInvalid);
  CHECK(test::CodeOf([] { ShiftingAssociation::with_bits(0); }) == kInvalid);
  CHECK(test::CodeOf([] { ShiftingAssociation::with_bits(512).insert(uint64_t{1}, 3); }) ==
        kInvalid);
  CHECK(test::CodeOf([] { ShiftingAssociation::with_bits(512).insert(uint64_t{1}, 0); }) ==
        kInvalid);
  CHECK(test::CodeOf([] { ShiftingMultiplicity::create(10, 0.01, 0); }) == kInvalid);
  CHECK(test::CodeOf([] { ShiftingMultiplicity::create(10, 0.01, 65); }) == kInvalid);
  CHECK(test::CodeOf([] { ShiftingMultiplicity::with_bits(512, 4).insert(uint64_t{1}, 5); }) ==
        kInvalid);
  CHECK(test::CodeOf([] { ShiftingMultiplicity::with_bits(512, 4).insert(uint64_t{1}, 0); }) ==
        kInvalid);
  CHECK(test::CodeOf([] { ShiftingMultiplicity::with_bits(512, 4).correct_probability(5); }) ==
        kInvalid);
  CHECK(test::CodeOf([] {
          const uint64_t keys[] = {1, 2, 2, 2};
          ShiftingMultiplicity::build(keys, 0.01, 2);
        }) == kInvalid);
  CHECK(test::CodeOf([] { shifting_patterns_set_probability(65, 1, 1); }) == kInvalid);
  // The bulk driver's checks: a null output of keys is refused (no keys: nothing written).
  const ShiftingAssociation fa = ShiftingAssociation::with_bits(512, 1);
  const ShiftingMultiplicity fm = ShiftingMultiplicity::with_bits(512, 4, 1);
  CHECK_THROWS_WITH_AS(fa.query(two, nullptr),
                       "ShiftingAssociation::query: null output with non-zero size", Error);
  CHECK_THROWS_WITH_AS(fm.count(two, nullptr),
                       "ShiftingMultiplicity::count: null output with non-zero size", Error);
  fa.query(std::vector<uint64_t>{}, nullptr);
  fm.count(std::vector<uint64_t>{}, nullptr);
}

template <class F, class Answer>
void CheckPersistence(const F& f, const std::vector<uint64_t>& keys, const Answer& answer) {
  const std::string bytes = f.save();
  REQUIRE(bytes.size() == 64 + f.num_blocks() * 64);
  const F g = F::load(bytes.data(), bytes.size());
  CHECK(g.save() == bytes);
  CHECK(g.items() == f.items());
  CHECK(g.seed() == f.seed());
  for (uint64_t k : keys) CHECK(answer(g, k) == answer(f, k));
  // Every truncation, and every single-byte change, is a format error.
  for (size_t n = 0; n < bytes.size(); ++n) {
    try {
      F::load(bytes.data(), n);
      FAIL("truncated to " << n << " bytes loaded");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kFormat);
    }
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    try {
      F::load(bad.data(), bad.size());
      FAIL("byte " << i << " changed, still loaded");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kFormat);
    }
  }
}

TEST_CASE("shifting_sets: save/load round-trips; damaged or foreign bytes are format errors") {
  const std::vector<uint64_t> keys = test::RandomKeys(300, 51);
  FilledPair filled(3, 12, 11, keys, 200);
  ShiftingAssociation& a = filled.a;
  ShiftingMultiplicity& m = filled.m;
  CheckPersistence(a, keys, [](const ShiftingAssociation& f, uint64_t k) { return f.query(k); });
  CheckPersistence(m, keys, [](const ShiftingMultiplicity& f, uint64_t k) { return f.count(k); });
  const ShiftingMultiplicity m2 = ShiftingMultiplicity::load(m.save().data(), m.save().size());
  CHECK(m2.max_count() == 12);
  // One kind's file is not the other's.
  const std::string sa = a.save(), sm = m.save();
  CHECK_THROWS_AS(ShiftingMultiplicity::load(sa.data(), sa.size()), Error);
  CHECK_THROWS_AS(ShiftingAssociation::load(sm.data(), sm.size()), Error);
  // From a stream (issue 45, item 9): the same filter; bytes past the payload, a truncated
  // payload and a header claiming 2^32 - 1 blocks are format errors, nothing allocated for them.
  {
    std::istringstream in(sa);
    CHECK(ShiftingAssociation::load(in).save() == sa);
    std::istringstream in_m(sm);
    CHECK(ShiftingMultiplicity::load(in_m).save() == sm);
  }
  const auto format_error = [](const std::string& bytes, const std::string& what) {
    std::istringstream in(bytes);
    try {
      ShiftingAssociation::load(in);
      FAIL("loaded");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kFormat);
      CHECK(std::string(e.what()) ==
            "ShiftingAssociation::load: not a valid simdbloom shifting-set file: " + what);
    }
  };
  format_error(sa + std::string(1, '\0'), "bytes past the payload");
  const std::string payload = std::to_string(sa.size() - 64);
  format_error(sa.substr(0, sa.size() - 1), "truncated payload (" + std::to_string(sa.size() - 65) +
                                                " of " + payload + " bytes)");
  std::string lying = sa;
  detail::PutU64(reinterpret_cast<uint8_t*>(&lying[24]), (uint64_t{1} << 32) - 1);
  detail::PutU64(reinterpret_cast<uint8_t*>(&lying[56]),
                 scalar::Checksum(reinterpret_cast<const uint8_t*>(lying.data()), 56));
  format_error(lying, "truncated payload (" + payload + " of 274877906880 bytes)");
}

}  // namespace
}  // namespace simdbloom
