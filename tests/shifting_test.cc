// SPDX-License-Identifier: Apache-2.0
// The shifting layout (ShBF_M, kernels/shbf_m/spec.h): a key's bits are ceil(k/2) pairs, each in
// one 64-bit word of the key's cache line, the second bit of a pair at the key's offset o(e); the
// blocked model of its false-positive rate against measurement (fixed seeds, binomial bounds).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

int Popcount(uint64_t x) { return __builtin_popcountll(x); }
uint64_t Rotl(uint64_t x, uint32_t r) { return (x << r) | (x >> ((64 - r) & 63)); }

TEST_CASE("shifting: a key sets k bits as ceil(k/2) pairs, o(e) apart inside one word") {
  test::Rng rng(2016);
  std::vector<int> offset_seen(64, 0);
  for (uint32_t k = 1; k <= 16; ++k) {
    CAPTURE(k);
    for (int trial = 0; trial < 300; ++trial) {
      // Through the public API (the inline path's out-of-line fallback and the bulk kernels).
      const uint64_t h = rng();
      Filter f = Filter::with_bits(512 * 5, k, Layout::kShifting, 1);
      Filter g = Filter::with_bits(512 * 5, k, Layout::kShifting, 1);
      CHECK(f.insert_hash(h));
      CHECK_FALSE(f.insert_hash(h));
      const uint64_t hashes[1] = {h};
      g.insert(Prehashed{hashes, 1});
      REQUIRE(std::string(reinterpret_cast<const char*>(f.data()), f.size_bytes()) ==
              std::string(reinterpret_cast<const char*>(g.data()), g.size_bytes()));
      const uint64_t* words = reinterpret_cast<const uint64_t*>(f.data());
      const uint64_t block = ((h >> 32) * 5) >> 32;
      const uint32_t w0 = static_cast<uint32_t>(h >> 32) & 7;
      const uint32_t o = detail::ShiftingOffset(h);
      REQUIRE(o >= 1);
      REQUIRE(o <= 63);
      ++offset_seen[o];
      int total = 0;
      for (uint64_t b = 0; b < 5; ++b) {
        for (uint32_t w = 0; w < 8; ++w) {
          const uint64_t x = words[8 * b + w];
          total += Popcount(x);
          const uint32_t rel = (w - w0) & 7;
          if (b != block || 2 * rel >= k) {
            CHECK(x == 0);  // only the key's block, only its first ceil(k/2) words
          } else if (2 * rel + 1 < k) {
            // Two bits, one of them the other rotated by o (a pair in one word).
            CHECK(Popcount(x) == 2);
            const uint64_t low = x & (~x + 1);
            const bool pair = (Rotl(low, o) | low) == x || (Rotl(x & ~low, o) | (x & ~low)) == x;
            CHECK(pair);
          } else {
            CHECK(Popcount(x) == 1);  // k odd: the last word has the single bit
          }
        }
      }
      CHECK(total == static_cast<int>(k));
      CHECK(f.contains_hash(h));
    }
  }
  // o(e) = 1 + (lo32(a * M[8]) * 63 >> 32) covers 1..63 evenly: 4800 keys, ~76 per value.
  for (uint32_t o = 1; o < 64; ++o) {
    CAPTURE(o);
    CHECK(offset_seen[o] > 30);
    CHECK(offset_seen[o] < 130);
  }
}

// The blocked ShBF_M model (kernels/shbf_m/model.cc) against measured rates, over a range of
// k and loads. Two-sided 99.9% binomial bound plus 3% of model error (FORMAT.md).
TEST_CASE("shifting: measured false-positive rates follow the blocked ShBF_M model") {
  const uint64_t n = 100000;
  const size_t q = 2000000;
  const std::vector<uint64_t> keys = test::RandomKeys(n, 77);
  const std::vector<uint64_t> probes = test::RandomKeys(q, 78);
  std::vector<uint8_t> out(q);
  struct Case {
    uint32_t k;
    double bits_per_key;
  };
  for (const Case c : {Case{1, 8}, Case{2, 6}, Case{3, 10}, Case{4, 8}, Case{7, 10}, Case{8, 12},
                       Case{10, 16}, Case{16, 24}}) {
    CAPTURE(c.k);
    CAPTURE(c.bits_per_key);
    Filter f =
        Filter::with_bits(static_cast<uint64_t>(n * c.bits_per_key), c.k, Layout::kShifting, 5);
    f.insert(keys);
    const uint64_t hits = f.contains(probes, out.data());
    const double predicted = predicted_fpp(Layout::kShifting, f.bit_count(), c.k, n);
    const double measured = static_cast<double>(hits) / q;
    const double sd = std::sqrt(predicted * (1 - predicted) / q);
    MESSAGE("k " << c.k << ", " << c.bits_per_key << " bits/key: measured " << measured
                 << ", model " << predicted << ", block512 model at the same size "
                 << predicted_fpp(Layout::kBlock512, f.bit_count(), c.k, n) << ", expected_fpp "
                 << f.expected_fpp());
    CHECK(std::fabs(measured - predicted) <= 3.2905 * sd + 0.03 * predicted);
    // The rate read from the bits agrees with the model too (it sees the actual block loads).
    CHECK(f.expected_fpp() == doctest::Approx(predicted).epsilon(0.05));
  }
}

// The model's pair correlation, computed another way for k = 2: one pair per key, so only the keys
// whose pair falls in the query's word matter (Poisson thinning: lambda / 8 of them), and
// P(pair set) = 1 - 2 P(x clear) + P(both clear) with E[a^L] = exp(-m (1 - a)). A key's pair
// avoids one given bit with probability 62/64, the query's pair {x, x + o_q} with 61/64 if its
// offset is +-o_q (2 of 63), 62/64 if o = o_q = 32, else 60/64.
TEST_CASE("shifting: the model is exact for one pair per key") {
  for (uint64_t lambda : {4, 16, 40}) {
    CAPTURE(lambda);
    const double m = lambda / 8.0;
    const double a1 = 62.0 / 64;
    const double a_half = (1.0 / 63) * 62 / 64 + (62.0 / 63) * 60 / 64;   // o_q = 32
    const double a_other = (2.0 / 63) * 61 / 64 + (61.0 / 63) * 60 / 64;  // o_q != 32
    const double want =
        (1.0 / 63) * (1 - 2 * std::exp(-m * (1 - a1)) + std::exp(-m * (1 - a_half))) +
        (62.0 / 63) * (1 - 2 * std::exp(-m * (1 - a1)) + std::exp(-m * (1 - a_other)));
    // One block of 512 bits holding `lambda` keys on average.
    CHECK(predicted_fpp(Layout::kShifting, 512, 2, lambda) == doctest::Approx(want).epsilon(1e-9));
  }
}

// lib/FORMAT.md's formulas, written out here, give the golden file's payload bit for bit
// (tests/data/golden/shifting.bin: with_bits(1024, 7, kShifting, seed 3), u64 keys 0..19).
TEST_CASE("shifting: the golden file's bits follow FORMAT.md") {
  std::FILE* file = std::fopen(SIMDBLOOM_TEST_DATA_DIR "/golden/shifting.bin", "rb");
  REQUIRE(file != nullptr);
  std::vector<uint8_t> bytes(64 + 128 + 1);  // one more: the file must hold exactly 192 bytes
  const size_t got = std::fread(bytes.data(), 1, bytes.size(), file);
  std::fclose(file);
  REQUIRE(got == 64 + 128);
  uint64_t want[16] = {};
  const uint32_t k = 7, num_blocks = 2;
  for (uint64_t key = 0; key < 20; ++key) {
    const uint64_t h = detail::Xxh3U64(key, 3);
    const uint32_t a = static_cast<uint32_t>(h), hi = static_cast<uint32_t>(h >> 32);
    const uint64_t block = (uint64_t{hi} * num_blocks) >> 32;
    uint32_t m[9];
    uint32_t c = 1;
    for (int t = 0; t < 9; ++t) m[t] = c *= 0x9E3779B9u;  // M[t] = 0x9E3779B9^(t+1)
    const uint32_t o = 1 + static_cast<uint32_t>((uint64_t{a * m[8]} * 63) >> 32);
    for (uint32_t i = 0; 2 * i < k; ++i) {
      const uint32_t w = (hi % 8 + i) % 8, b = (a * m[w]) >> 26;
      want[8 * block + w] |= uint64_t{1} << b;
      if (2 * i + 1 < k) want[8 * block + w] |= uint64_t{1} << ((b + o) % 64);
    }
  }
  for (int i = 0; i < 16; ++i) {
    uint64_t word = 0;
    for (int j = 0; j < 8; ++j) word |= uint64_t{bytes[64 + 8 * i + j]} << (8 * j);
    CAPTURE(i);
    CHECK(word == want[i]);
  }
}

}  // namespace
}  // namespace simdbloom
