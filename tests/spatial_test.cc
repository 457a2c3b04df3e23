// SPDX-License-Identifier: Apache-2.0
// SpatialFilter (simdbloom/spatial.hpp): its kernels on every SIMD target against the scalar
// reference (awkward sizes, unaligned hashes and outputs, tiny filters, both cell widths, every k),
// the API's rules (ascending labels, errors, every key shape), the paper's per-area formulas
// against measured rates (fixed seeds, binomial bounds), and its file format (round trip, hostile
// input, version 1 golden files, area names in version 2 and a hostile names table).
#include "simdbloom/spatial.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "kernels/spatial/scalar.h"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

using detail::SpatialKernels;
using detail::SpatialParams;

// Bytes whose start is `misalign` bytes past a 64-byte boundary.
struct Buffer {
  std::vector<uint8_t> storage;
  uint8_t* ptr;
  Buffer(size_t bytes, size_t misalign) : storage(bytes + 64 + misalign, 0) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    ptr = storage.data() + ((64 - p % 64) % 64) + misalign;
  }
};

std::vector<uint16_t> ReadLabels(const uint8_t* at, size_t n) {
  std::vector<uint16_t> out(n);
  if (n != 0) std::memcpy(out.data(), at, 2 * n);
  return out;
}

// Around every vector width (1..16 lanes), the kernels' tile (256) and their chunk of hashes.
const size_t kSizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 256, 257, 600, 1025};

TEST_CASE("equivalence: spatial insert and classify equal the reference") {
  const SpatialKernels& ref = detail::Reference().spatial;
  test::ForEachTarget("spatial", [&](const detail::Kernels& target) {
    const SpatialKernels& simd = target.spatial;
    for (uint32_t cell_bytes : {1u, 2u}) {
      for (uint32_t k = 1; k <= 8; ++k) {
        for (uint64_t blocks : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{37}}) {
          for (uint32_t dist : {0u, 5u, 1000u}) {
            CAPTURE(cell_bytes);
            CAPTURE(k);
            CAPTURE(blocks);
            CAPTURE(dist);
            SpatialParams p{blocks, k, cell_bytes, dist, 0x5EED0000u + k};
            const size_t bytes = blocks * 64 * cell_bytes;
            Buffer a(bytes, 0), b(bytes, 0);
            test::Rng rng(k * 1000 + blocks * 10 + cell_bytes);
            const uint16_t top = cell_bytes == 1 ? 255 : 65535;
            uint16_t label = 0;
            for (size_t n : kSizes) {
              CAPTURE(n);
              label = static_cast<uint16_t>(label + 1 + rng() % 3);
              if (label > top || label == 0) label = top;
              // Keys read from an address that is not 8-byte aligned: pre-hashed for even n,
              // u64 keys the kernels hash (XXH3 with p.seed) for odd n.
              Buffer hashes(8 * n, 4);
              for (size_t i = 0; i < n; ++i) {
                const uint64_t h = rng();
                std::memcpy(hashes.ptr + 8 * i, &h, 8);
              }
              const auto* hp = reinterpret_cast<const uint64_t*>(hashes.ptr);
              detail::KeySource src;
              src.kind = n % 2 == 0 ? detail::KeyKind::kHashes : detail::KeyKind::kU64;
              src.keys = hp;
              const uint64_t ra = ref.insert(a.ptr, p, src, n, label);
              const uint64_t rb = simd.insert(b.ptr, p, src, n, label);
              CHECK(ra == rb);
              REQUIRE(std::memcmp(a.ptr, b.ptr, bytes) == 0);
              // Classify the inserted hashes and as many fresh ones, into outputs at odd
              // addresses (uint16_t labels not 2-byte aligned).
              std::vector<uint64_t> probe(2 * n);
              for (size_t i = 0; i < n; ++i) std::memcpy(&probe[i], hp + i, 8);
              for (size_t i = n; i < 2 * n; ++i) probe[i] = rng();
              detail::KeySource probe_src = src;
              probe_src.keys = probe.data();
              Buffer la(4 * n + 2, 1), lb(4 * n + 2, 1);
              std::memset(lb.ptr, 0xAB, 4 * n + 2);
              const uint64_t ca =
                  ref.classify(a.ptr, p, probe_src, 2 * n, reinterpret_cast<uint16_t*>(la.ptr));
              const uint64_t cb =
                  simd.classify(b.ptr, p, probe_src, 2 * n, reinterpret_cast<uint16_t*>(lb.ptr));
              CHECK(ca == cb);
              CHECK(ReadLabels(la.ptr, 2 * n) == ReadLabels(lb.ptr, 2 * n));
              CHECK(lb.ptr[4 * n] == 0xAB);  // nothing written past the last label
              // Every inserted key is found with at least the label just inserted.
              const std::vector<uint16_t> got = ReadLabels(lb.ptr, n);
              for (size_t i = 0; i < n; ++i) REQUIRE(got[i] >= label);
            }
          }
        }
      }
    }
  });
}

TEST_CASE("equivalence: the one-key classify kernel equals the scalar cells") {
  test::ForEachTarget("spatial one key", [&](const detail::Kernels& target) {
    if (target.spatial.classify_one == nullptr) return;  // the scalar loop runs there
    test::Rng rng(31);
    alignas(64) uint8_t block[64];
    for (int round = 0; round < 2000; ++round) {
      // Random cells, with runs of zeros and of 0xFF (the extremes of the minimum).
      for (uint8_t& cell : block) {
        const uint64_t r = rng();
        cell = r % 5 == 0 ? 0 : r % 5 == 1 ? 0xFF : static_cast<uint8_t>(r >> 8);
      }
      for (uint32_t k = 1; k <= 8; ++k) {
        const uint64_t h = rng();
        const SpatialParams p{1, k, 1};
        CAPTURE(k);
        CAPTURE(h);
        REQUIRE(target.spatial.classify_one(block, h, k) ==
                scalar::SpatialClassifyHash(block, p, h));
      }
    }
  });
}

TEST_CASE("equivalence: SpatialFilter gives the same cells and labels on every target") {
  // Through the public API: every key shape, on each available target (the reference included).
  std::vector<uint64_t> u64 = test::RandomKeys(3000, 5);
  std::vector<uint32_t> u32(u64.begin(), u64.end());
  std::vector<std::string> strings;
  for (size_t i = 0; i < 700; ++i) strings.push_back("region-key-" + std::to_string(u64[i]));
  std::vector<std::string_view> views(strings.begin(), strings.end());
  std::vector<uint8_t> records(13 * 500);
  for (size_t i = 0; i < records.size(); ++i) records[i] = static_cast<uint8_t>(u64[i % 3000] >> 7);
  std::vector<uint64_t> absent = test::RandomKeys(5000, 6);
  for (uint32_t areas : {7u, 300u}) {
    CAPTURE(areas);
    test::SameOnEveryTarget<std::vector<uint8_t>> same_cells;
    test::SameOnEveryTarget<std::vector<uint16_t>> same_labels;
    test::ForEachApiTarget([&](const std::string&) {
      // Integer keys in one filter, byte strings and records in another (they never mix).
      SpatialFilter f = SpatialFilter::create(5000, 0.02, areas, 11);
      f.insert(1, {u64.data(), 1000});
      f.insert(2, Span<const uint32_t>(u32.data() + 1000, 1000));
      f.insert(static_cast<uint16_t>(areas), Prehashed{nullptr, 0});
      SpatialFilter b = SpatialFilter::create(5000, 0.02, areas, 11);
      b.insert(3, views);
      b.insert(3, FixedWidth{records.data(), 13, 13, 500});
      std::vector<uint16_t> labels(5000 + 3000 + 700);
      f.classify(absent, labels.data());
      f.classify(u64, labels.data() + 5000);
      b.classify(views, labels.data() + 8000);
      std::vector<uint8_t> cells(f.data(), f.data() + f.size_bytes());
      cells.insert(cells.end(), b.data(), b.data() + b.size_bytes());
      same_cells.Check(cells);
      same_labels.Check(labels);
    });
  }
}

TEST_CASE("spatial: string batches over several hashing chunks equal one key at a time") {
  // Byte strings of more than 1024 keys are hashed 4096 at a time before the kernels run
  // (lib/core/key_source.h): 3 chunks and an odd tail, each chunk's labels at its own offset.
  constexpr size_t n = 3 * 4096 + 123;
  std::vector<std::string> strings;
  for (size_t i = 0; i < n; ++i) strings.push_back("spatial-chunk-" + std::to_string(i * 7919));
  std::vector<std::string_view> views(strings.begin(), strings.end());
  SpatialFilter bulk = SpatialFilter::create(n, 0.02, 300, 5);
  SpatialFilter single = SpatialFilter::create(n, 0.02, 300, 5);
  for (uint16_t label = 1; label <= 3; ++label) {
    const size_t begin = (label - 1) * n / 3, end = label * n / 3;
    bulk.insert(label, Span<const std::string_view>(views.data() + begin, end - begin));
    for (size_t i = begin; i < end; ++i) single.insert(label, views[i]);
  }
  REQUIRE(std::memcmp(bulk.data(), single.data(), bulk.size_bytes()) == 0);
  std::vector<uint16_t> labels(n, 0xABCD);
  bulk.classify(views, labels.data());
  for (size_t i = 0; i < n; ++i) {
    REQUIRE(labels[i] == single.classify(views[i]));
    REQUIRE(labels[i] >= 1 + 3 * i / n);  // never below the key's own area
  }
}

TEST_CASE(
    "equivalence: SpatialFilter above 1 MiB (prefetching, measured distance) on every target") {
  // Filters of 1 MiB and more are prefetched ahead, at a distance measured at the first bulk call:
  // results must not depend on it.
  const std::vector<uint64_t> keys = test::RandomKeys(60000, 8);
  const std::vector<uint64_t> absent = test::RandomKeys(60000, 9);
  for (uint32_t areas : {2u, 400u}) {
    CAPTURE(areas);
    test::SameOnEveryTarget<std::vector<uint8_t>> same_cells;
    test::SameOnEveryTarget<std::vector<uint16_t>> same_labels;
    test::ForEachApiTarget([&](const std::string&) {
      SpatialFilter f = SpatialFilter::with_blocks(20000, 5, areas, 3);
      REQUIRE(f.size_bytes() >= (size_t{1} << 20));
      f.insert(1, Span<const uint64_t>(keys.data(), 30000));
      f.insert(2, Span<const uint64_t>(keys.data() + 30000, 30000));
      std::vector<uint16_t> labels(120000);
      f.classify(keys, labels.data());
      f.classify(absent, labels.data() + 60000);
      for (size_t i = 0; i < 60000; ++i) REQUIRE(labels[i] >= (i < 30000 ? 1 : 2));
      std::vector<uint8_t> cells(f.data(), f.data() + f.size_bytes());
      same_cells.Check(cells);
      same_labels.Check(labels);
    });
  }
}

TEST_CASE("spatial: labels, single keys, key shapes and errors") {
  SpatialFilter f = SpatialFilter::create(10000, 0.01, 3, 42);
  CHECK(f.cell_bytes() == 1);
  CHECK(f.num_hashes() >= 1);
  CHECK(f.num_hashes() <= 8);
  CHECK(f.predicted_fpp(10000) <= 0.01);
  CHECK(SpatialFilter::create(10, 0.01, 255).cell_bytes() == 1);
  CHECK(SpatialFilter::create(10, 0.01, 256).cell_bytes() == 2);
  CHECK(SpatialFilter::create(10, 0.01, 65535).cell_bytes() == 2);

  const std::vector<uint64_t> a = test::RandomKeys(3000, 1), b = test::RandomKeys(3000, 2);
  const std::vector<uint64_t> c = test::RandomKeys(3000, 3);
  f.insert(1, a);
  f.insert(2, {b.data(), 1500});
  f.insert(2, {b.data() + 1500, 1500});  // the same label again is allowed
  // A lower label after a higher one is refused and changes nothing.
  const std::vector<uint8_t> before(f.data(), f.data() + f.size_bytes());
  CHECK_THROWS_AS(f.insert(1, c), Error);
  CHECK_THROWS_AS(f.insert(uint16_t{1}, uint64_t{5}), Error);
  CHECK(std::vector<uint8_t>(f.data(), f.data() + f.size_bytes()) == before);
  CHECK(f.current_label() == 2);
  CHECK(f.members(1) == 3000);
  CHECK(f.members(2) == 3000);
  try {
    f.insert(1, c);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(e.what()).find("ascending") != std::string::npos);
  }
  CHECK_THROWS_AS(f.insert(0, c), Error);
  CHECK_THROWS_AS(f.insert(4, c), Error);
  CHECK_THROWS_AS(f.insert(3, {static_cast<const uint64_t*>(nullptr), 5}), Error);
  f.insert(3, c);

  // Keys are never classified below their area nor as absent; single and bulk agree.
  std::vector<uint16_t> la(3000), lb(3000), lc(3000);
  f.classify(a, la.data());
  f.classify(b, lb.data());
  CHECK(f.classify(c, lc.data()) == 3000);
  for (size_t i = 0; i < 3000; ++i) {
    REQUIRE(la[i] >= 1);
    REQUIRE(lb[i] >= 2);
    REQUIRE(lc[i] == 3);
    REQUIRE(f.classify(a[i]) == la[i]);
    REQUIRE(f.classify_hash(f.hash(b[i])) == lb[i]);
  }
  // Strings and prehashed keys reach the same cells as their bytes; integers are values (a
  // declared int32 filter hashes their 4 bytes) and never share a filter with strings.
  SpatialFilter g = SpatialFilter::create(1000, 0.01, 2, 7);
  g.insert(1, std::string_view("lisbon"));
  CHECK(g.key_type() == KeyType::kBytes);
  CHECK_THROWS_AS(g.insert(2, uint32_t{0x01020304}), KeyTypeError);
  g.insert(2, std::string_view("\x04\x03\x02\x01", 4));
  SpatialFilter g32 = SpatialFilter::create(1000, 0.01, 2, 7, KeyType::kInt32);
  g32.insert(2, int64_t{0x01020304});
  const char bytes4[4] = {4, 3, 2, 1};
  CHECK(g.classify(std::string_view(bytes4, 4)) == 2);
  CHECK(g32.classify(uint16_t{0x0304}) == 0);
  CHECK(g32.classify(uint32_t{0x01020304}) == 2);
  CHECK(g32.classify(int64_t{1} << 40) == 0);  // out of int32's range: absent
  CHECK_THROWS_AS(g32.insert(2, int64_t{1} << 40), Error);
  CHECK(g32.hash(uint32_t{0x01020304}) == g.hash(std::string_view(bytes4, 4)));
  CHECK(g.classify("lisbon") == 1);
  const uint64_t h = g.hash(std::string_view("lisbon"));
  uint16_t out = 0;
  g.classify(Prehashed{&h, 1}, &out);
  CHECK(out == 1);
  CHECK_THROWS_AS(g.classify(a, nullptr), Error);
  CHECK(g.classify(Keys(a.data(), 0), nullptr) == 0);

  CHECK_THROWS_AS(SpatialFilter::create(0, 0.01, 3), Error);
  CHECK_THROWS_AS(SpatialFilter::create(10, 0, 3), Error);
  CHECK_THROWS_AS(SpatialFilter::create(10, 0.01, 0), Error);
  CHECK_THROWS_AS(SpatialFilter::create(10, 0.01, 65536), Error);
  CHECK_THROWS_AS(SpatialFilter::with_blocks(0, 3, 3), Error);
  CHECK_THROWS_AS(SpatialFilter::with_blocks(1, 9, 3), Error);

  // Copies are independent; a moved-from filter refuses calls with an Error.
  SpatialFilter copy = f;
  CHECK(std::memcmp(copy.data(), f.data(), f.size_bytes()) == 0);
  SpatialFilter moved = std::move(copy);
  CHECK_THROWS_AS(copy.classify(a, la.data()), Error);  // NOLINT(bugprone-use-after-move)
  CHECK(copy.members(1) == 0);                          // NOLINT(bugprone-use-after-move)
  CHECK_THROWS_AS(copy.insert(3, c), Error);            // NOLINT(bugprone-use-after-move)
  CHECK(moved.classify(c[0]) == 3);
}

// |measured - expected| within `sigmas` standard deviations of a binomial(n, p), plus a small
// relative allowance for the model (0.5%: probes are products of one 32-bit value, FORMAT.md).
void CheckBinomial(uint64_t count, uint64_t n, double p, double sigmas = 5) {
  const double expect = static_cast<double>(n) * p;
  const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
  CAPTURE(count);
  CAPTURE(expect);
  CHECK(std::fabs(static_cast<double>(count) - expect) <= sigmas * sd + 0.005 * expect + 1);
}

void CheckFormulas(uint32_t num_areas, const std::vector<uint64_t>& per_area, double fpp,
                   uint64_t seed) {
  uint64_t total = 0;
  for (uint64_t n : per_area) total += n;
  SpatialFilter f = SpatialFilter::create(total, fpp, num_areas, seed);
  std::vector<std::vector<uint64_t>> keys;
  for (size_t i = 0; i < per_area.size(); ++i) {
    keys.push_back(test::RandomKeys(per_area[i], seed * 100 + i));
    f.insert(static_cast<uint16_t>(i + 1), keys.back());
  }
  const SpatialStats s = f.stats(true);
  CHECK(s.measured);
  CHECK(s.members == total);
  CHECK(s.apriori_fpp <= fpp);
  // Keys in no area: the label each gets, against the a-priori and a-posteriori rates.
  const size_t probes = 2000000;
  const std::vector<uint64_t> absent = test::RandomKeys(probes, seed + 999);
  std::vector<uint16_t> labels(probes);
  const uint64_t positives = f.classify(absent, labels.data());
  CheckBinomial(positives, probes, s.apriori_fpp);
  CheckBinomial(positives, probes, s.fpp);
  std::vector<uint64_t> got(num_areas + 1, 0);
  for (uint16_t l : labels) ++got[l];
  double sum_fpp = 0;
  for (size_t i = 0; i < per_area.size(); ++i) {
    CAPTURE(i);
    const SpatialAreaStats& a = s.areas[i];
    sum_fpp += a.apriori_fpp;
    CheckBinomial(got[i + 1], probes, a.apriori_fpp);
    CheckBinomial(got[i + 1], probes, a.fpp);
    // Keys of the area: classified higher with the inter-set error probability.
    std::vector<uint16_t> own(per_area[i]);
    f.classify(keys[i], own.data());
    uint64_t higher = 0;
    for (uint16_t l : own) {
      REQUIRE(l >= i + 1);
      higher += l > i + 1;
    }
    CheckBinomial(higher, per_area[i], a.apriori_isep);
    // Emersion: the share of the area's written cells that kept its label. A key's cells share
    // one block (and its later keys), so they survive together: the bound counts keys, not cells.
    CHECK(a.cells_written > 0);
    const double e = a.expected_emersion;
    CHECK(std::fabs(a.emersion - e) <=
          5 * std::sqrt(e * (1 - e) / static_cast<double>(a.members)) + 0.005 * e);
    CHECK(a.emersion ==
          doctest::Approx(static_cast<double>(a.cells) / static_cast<double>(a.cells_written)));
    CheckBinomial(a.cells, s.num_cells, a.expected_cells / static_cast<double>(s.num_cells));
  }
  CHECK(sum_fpp == doctest::Approx(s.apriori_fpp).epsilon(1e-9));
  // The highest area is never overwritten.
  CHECK(s.areas[per_area.size() - 1].expected_emersion == 1.0);
  CHECK(s.areas[per_area.size() - 1].cells == s.areas[per_area.size() - 1].cells_written);
}

TEST_CASE("spatial: measured rates match the paper's formulas (blocked form)") {
  SUBCASE("4 areas, 1-byte cells, 1%") { CheckFormulas(4, {40000, 30000, 20000, 10000}, 0.01, 1); }
  SUBCASE("3 areas, 1-byte cells, 5%") { CheckFormulas(3, {10000, 60000, 30000}, 0.05, 2); }
  SUBCASE("5 of 1000 areas, 2-byte cells, 0.5%") {
    CheckFormulas(1000, {20000, 20000, 20000, 20000, 20000}, 0.005, 3);
  }
}

TEST_CASE("spatial: the blocked model against closed forms") {
  // Blocked emersion equals the unblocked paper's in expectation: exp(-k N_{>i} / cells).
  SpatialFilter f = SpatialFilter::with_blocks(1000, 5, 3);
  f.insert(1, test::RandomKeys(3000, 1));
  f.insert(2, test::RandomKeys(2000, 2));
  f.insert(3, test::RandomKeys(1000, 3));
  const SpatialStats s = f.stats();
  CHECK(!s.measured);
  CHECK(s.areas[0].expected_emersion == doctest::Approx(std::exp(-5.0 * 3000 / 64000)));
  CHECK(s.areas[1].expected_emersion == doctest::Approx(std::exp(-5.0 * 1000 / 64000)));
  // Blocking costs false positives against the unblocked formula at the same size.
  const double unblocked = std::pow(1 - std::exp(-5.0 * 6000 / 64000), 5);
  CHECK(s.apriori_fpp > unblocked);
  CHECK(s.apriori_fpp < 3 * unblocked);
  // k = 1: one cell, written by each key of its block with probability 1/64 (Poisson thinning).
  SpatialFilter one = SpatialFilter::with_blocks(100, 1, 2);
  CHECK(one.predicted_fpp(5000) == doctest::Approx(1 - std::exp(-50.0 / 64)));
  // k = 8: every key writes one uniform cell of every group, so given the block's load L all 8
  // query cells are written with probability (1 - (7/8)^L)^8; over L ~ Poisson(lambda = 50):
  // sum_t (-1)^t C(8,t) exp(-lambda (1 - (7/8)^t)).
  double closed = 0, binom = 1;
  for (int t = 0; t <= 8; ++t) {
    closed += (t % 2 == 0 ? 1 : -1) * binom * std::exp(-50.0 * (1 - std::pow(7.0 / 8, t)));
    binom = binom * (8 - t) / (t + 1);
  }
  SpatialFilter eight = SpatialFilter::with_blocks(100, 8, 2);
  CHECK(eight.predicted_fpp(5000) == doctest::Approx(closed).epsilon(1e-12));
}

std::vector<uint8_t> Saved(const SpatialFilter& f) {
  std::ostringstream out;
  f.save(out);
  const std::string s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

void CheckSame(const SpatialFilter& a, const SpatialFilter& b) {
  CHECK(a.num_areas() == b.num_areas());
  CHECK(a.current_label() == b.current_label());
  test::CheckSameBits(a, b);
  for (uint32_t l = 1; l <= a.num_areas(); ++l) {
    CHECK(a.members(static_cast<uint16_t>(l)) == b.members(static_cast<uint16_t>(l)));
  }
}

TEST_CASE("spatial: save and load round trip") {
  for (uint32_t areas : {3u, 700u}) {
    SpatialFilter f = SpatialFilter::create(3000, 0.01, areas, 99);
    f.insert(1, test::RandomKeys(1000, 1));
    f.insert(2, test::RandomKeys(1000, 2));
    const std::vector<uint8_t> bytes = Saved(f);
    REQUIRE(bytes.size() == f.serialized_size());
    CHECK(std::memcmp(bytes.data(), "SIMDBSBF", 8) == 0);
    SpatialFilter g = SpatialFilter::load(bytes.data(), bytes.size());
    CheckSame(f, g);
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    SpatialFilter h = SpatialFilter::load(in);
    CheckSame(f, h);
    // The loaded filter keeps the label order and its statistics.
    CHECK_THROWS_AS(g.insert(1, uint64_t{1}), Error);
    g.insert(3, test::RandomKeys(500, 3));
    f.insert(3, test::RandomKeys(500, 3));
    CheckSame(f, g);
    CHECK(f.stats(true).areas[0].emersion == g.stats(true).areas[0].emersion);
    const std::string path = "spatial_test_" + std::to_string(areas) + ".sbf";
    g.save_file(path);
    CheckSame(g, SpatialFilter::load_file(path));
    std::remove(path.c_str());
  }
  CHECK_THROWS_AS(SpatialFilter::load_file("no/such/file.sbf"), Error);
}

void ExpectFormatError(const std::vector<uint8_t>& bytes) {
  try {
    SpatialFilter::load(bytes.data(), bytes.size());
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kFormat);
  }
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  CHECK_THROWS_AS(SpatialFilter::load(in), Error);
}

// Rewrites both checksums, so a bad field is caught by its own check.
void Reseal(std::vector<uint8_t>* b) {
  std::vector<uint8_t>& v = *b;
  auto put = [&](size_t at, uint64_t x) {
    for (int i = 0; i < 8; ++i) v[at + i] = static_cast<uint8_t>(x >> (8 * i));
  };
  put(48, ref::Checksum(v.data() + 64, v.size() - 64));
  put(56, ref::Checksum(v.data(), 56));
}

TEST_CASE("spatial: hostile input is refused") {
  SpatialFilter f = SpatialFilter::create(200, 0.05, 5, 1);
  f.insert(2, test::RandomKeys(100, 1));
  const std::vector<uint8_t> good = Saved(f);
  for (size_t n = 0; n < good.size(); ++n) {
    ExpectFormatError(std::vector<uint8_t>(good.begin(), good.begin() + n));
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  ExpectFormatError(longer);
  for (size_t i = 0; i < good.size(); ++i) {  // every byte flipped (checksums catch the payload)
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x10;
    ExpectFormatError(bad);
  }
  auto field = [&](size_t at, std::vector<uint8_t> value) {
    std::vector<uint8_t> bad = good;
    std::memcpy(bad.data() + at, value.data(), value.size());
    Reseal(&bad);
    ExpectFormatError(bad);
  };
  field(8, {2, 0, 0, 0});                           // version
  field(12, {65, 0, 0, 0});                         // header size
  field(16, {2});                                   // 2-byte cells with 5 areas
  field(17, {2});                                   // hash id
  field(18, {5});                                   // key type
  field(19, {1});                                   // reserved
  field(20, {0, 0, 0, 0});                          // k = 0
  field(20, {9, 0, 0, 0});                          // k = 9
  field(24, {0, 0, 0, 0, 0, 0, 0, 0});              // no blocks
  field(24, {0, 0, 0, 0, 1, 0, 0, 0});              // 2^32 blocks
  field(24, {0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0});  // a size far beyond the input
  field(40, {0, 0, 0, 0});                          // no areas
  field(40, {0, 0, 1, 0});                          // 65536 areas
  field(44, {6, 0, 0, 0});                          // highest label above the areas
  field(44, {1, 0, 0, 0});                          // cells hold label 2, the header says 1
  // A cell above the highest label, a table entry above it, more cells written than keys x k.
  field(64, {3});
  field(64 + f.size_bytes() + 16 * 3, {1});
  field(64 + f.size_bytes() + 16 + 8, {0xFF, 0xFF, 0, 0});
}

TEST_CASE("spatial: area names") {
  SpatialFilter f = SpatialFilter::with_blocks(4, 3, 3, 1);
  CHECK(!f.has_area_names());
  for (uint16_t l = 0; l <= 4; ++l) CHECK(f.area_name(l).empty());
  f.set_area_name(2, "");  // removing a name that was never set: still none
  CHECK(!f.has_area_names());
  f.set_area_name(2, "berlin.txt");
  CHECK(f.has_area_names());
  CHECK(f.area_name(2) == "berlin.txt");
  CHECK(f.area_name(1).empty());
  CHECK(f.area_name(3).empty());
  CHECK(f.area_name(0).empty());
  CHECK(f.area_name(4).empty());
  const std::string bytes("a\0b\n\xff", 5);  // any bytes
  f.set_area_name(3, bytes);
  CHECK(f.area_name(3) == bytes);
  f.set_area_name(3, std::string(SpatialFilter::kMaxAreaNameBytes, 'x'));
  CHECK(f.area_name(3).size() == SpatialFilter::kMaxAreaNameBytes);
  // Errors leave the filter as it was.
  for (uint16_t bad : {0, 4}) {
    try {
      f.set_area_name(bad, "x");
      FAIL("accepted label " << bad);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kInvalidArgument);
    }
  }
  try {
    f.set_area_name(1, std::string(SpatialFilter::kMaxAreaNameBytes + 1, 'x'));
    FAIL("accepted a name over the limit");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
  }
  CHECK(f.area_name(1).empty());
  CHECK(f.area_name(2) == "berlin.txt");
  // Copies and moves carry the names; names do not change inserts or classification.
  SpatialFilter plain = SpatialFilter::with_blocks(4, 3, 3, 1);
  const std::vector<uint64_t> keys = test::RandomKeys(50, 4);
  f.insert(2, keys);
  plain.insert(2, keys);
  CHECK(std::memcmp(f.data(), plain.data(), f.size_bytes()) == 0);
  SpatialFilter copy = f;
  CHECK(copy.area_name(2) == "berlin.txt");
  SpatialFilter moved = std::move(copy);
  CHECK(moved.area_name(2) == "berlin.txt");
  CHECK_THROWS_AS(copy.set_area_name(1, "x"), Error);  // NOLINT(bugprone-use-after-move)
  f.set_area_name(2, "");
  f.set_area_name(3, "");
  CHECK(!f.has_area_names());
  CHECK(f.area_name(2).empty());
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::vector<uint8_t> bytes;
  uint8_t buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), file)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  std::fclose(file);
  return bytes;
}

// Files saved before area names existed (tests/data/golden, format version 1): every target
// reads them, classifies their keys, and writes the same bytes for the same filter rebuilt, with
// or without names set and removed again. A name makes a version-2 file that is the version-1
// file (version field and header checksum aside) followed by the names table.
TEST_CASE("spatial: golden version-1 files load everywhere and are reproduced bit for bit") {
  struct Area {
    uint16_t label;
    uint64_t first, last;  // u64 keys first..last
  };
  struct Golden {
    const char* file;
    uint64_t blocks;
    uint32_t k, areas;
    std::vector<Area> inserted;
  };
  const Golden golden[] = {{"spatial_u8.bin", 4, 3, 3, {{1, 0, 9}, {2, 10, 19}}},
                           {"spatial_u16.bin", 2, 4, 300, {{1, 0, 6}, {7, 7, 13}, {300, 14, 19}}}};
  for (const Golden& g : golden) {
    CAPTURE(g.file);
    const std::vector<uint8_t> bytes =
        ReadFile(std::string(SIMDBLOOM_TEST_DATA_DIR "/golden/") + g.file);
    REQUIRE(bytes.size() > 12);
    CHECK(bytes[8] == 1);  // version 1
    test::ForEachApiTarget([&](const std::string&) {
      SpatialFilter f = SpatialFilter::load(bytes.data(), bytes.size());
      std::istringstream in(std::string(bytes.begin(), bytes.end()));
      CheckSame(f, SpatialFilter::load(in));
      CHECK(!f.has_area_names());
      CHECK(f.num_areas() == g.areas);
      CHECK(f.cell_bytes() == (g.areas <= 255 ? 1u : 2u));
      SpatialFilter rebuilt = SpatialFilter::with_blocks(g.blocks, g.k, g.areas, 3);
      for (const Area& a : g.inserted) {
        std::vector<uint64_t> keys;
        for (uint64_t x = a.first; x <= a.last; ++x) keys.push_back(x);
        rebuilt.insert(a.label, keys);
        std::vector<uint16_t> labels(keys.size());
        f.classify(keys, labels.data());
        for (uint16_t l : labels) CHECK(l >= a.label);  // never below its area, never 0
        CHECK(f.members(a.label) == keys.size());
      }
      CheckSame(f, rebuilt);
      // The golden file predates key types (legacy, key type byte 0); the rebuilt filter holds
      // int64 keys, whose hashes of u64 keys are the legacy ones: the same bytes but that one.
      CHECK(f.key_type() == KeyType::kLegacy);
      CHECK(rebuilt.key_type() == KeyType::kInt64);
      rebuilt.set_key_type(KeyType::kInt64);  // (already: declaring the same type is allowed)
      CHECK(test::AsLegacy(Saved(rebuilt), 18) == bytes);
      CHECK(Saved(f) == bytes);
      CHECK(rebuilt.serialized_size() == bytes.size());
      // Named, then the names removed: version 1 again, the same bytes.
      rebuilt.set_area_name(1, "first");
      const std::vector<uint8_t> named = Saved(rebuilt);
      CHECK(named.size() == rebuilt.serialized_size());
      REQUIRE(named.size() > bytes.size());
      CHECK(named[8] == 2);
      std::vector<uint8_t> head(named.begin(), named.begin() + bytes.size());
      head[8] = 1;
      for (int i = 0; i < 8; ++i) {
        head[56 + i] = static_cast<uint8_t>(ref::Checksum(head.data(), 56) >> (8 * i));
      }
      CHECK(test::AsLegacy(head, 18) == bytes);
      rebuilt.set_area_name(1, "");
      CHECK(test::AsLegacy(Saved(rebuilt), 18) == bytes);
    });
  }
}

// The names table of `names` (one per area): u64 size, u64 XXH3, then u16 size + bytes each.
std::vector<uint8_t> NamesTable(const std::vector<std::string>& names) {
  std::vector<uint8_t> entries;
  for (const std::string& n : names) {
    entries.push_back(static_cast<uint8_t>(n.size()));
    entries.push_back(static_cast<uint8_t>(n.size() >> 8));
    entries.insert(entries.end(), n.begin(), n.end());
  }
  std::vector<uint8_t> t(16);
  for (int i = 0; i < 8; ++i) {
    t[i] = static_cast<uint8_t>(uint64_t{entries.size()} >> (8 * i));
    t[8 + i] = static_cast<uint8_t>(ref::Checksum(entries.data(), entries.size()) >> (8 * i));
  }
  t.insert(t.end(), entries.begin(), entries.end());
  return t;
}

TEST_CASE("spatial: area names round trip (format version 2)") {
  for (uint32_t areas : {3u, 700u}) {
    CAPTURE(areas);
    SpatialFilter f = SpatialFilter::create(3000, 0.01, areas, 7);
    f.insert(1, test::RandomKeys(1000, 1));
    f.insert(2, test::RandomKeys(1000, 2));
    const std::vector<uint8_t> v1 = Saved(f);
    CHECK(v1[8] == 1);
    CHECK(v1.size() == 64 + f.size_bytes() + 16 * size_t{areas});
    std::vector<std::string> names(areas);
    names[0] = "area one.txt";
    names[1] = std::string("\0tab\there\n", 10);
    names[areas - 1] = std::string(SpatialFilter::kMaxAreaNameBytes, 'z');  // an area not inserted
    for (uint32_t l = 1; l <= areas; ++l) f.set_area_name(static_cast<uint16_t>(l), names[l - 1]);
    const std::vector<uint8_t> v2 = Saved(f);
    CHECK(v2.size() == f.serialized_size());
    CHECK(v2[8] == 2);
    // Version 1's bytes (version and header checksum aside), then the names table.
    const std::vector<uint8_t> table = NamesTable(names);
    REQUIRE(v2.size() == v1.size() + table.size());
    CHECK(std::vector<uint8_t>(v2.begin() + v1.size(), v2.end()) == table);
    CHECK(std::memcmp(v2.data() + 12, v1.data() + 12, 44) == 0);
    CHECK(std::memcmp(v2.data() + 64, v1.data() + 64, v1.size() - 64) == 0);
    auto check_names = [&](const SpatialFilter& g) {
      CheckSame(f, g);
      for (uint32_t l = 1; l <= areas; ++l) {
        CHECK(g.area_name(static_cast<uint16_t>(l)) == names[l - 1]);
      }
    };
    check_names(SpatialFilter::load(v2.data(), v2.size()));
    std::istringstream in(std::string(v2.begin(), v2.end()));
    check_names(SpatialFilter::load(in));
    const std::string path = "spatial_names_" + std::to_string(areas) + ".sbf";
    f.save_file(path);
    SpatialFilter g = SpatialFilter::load_file(path);
    check_names(g);
    std::remove(path.c_str());
    // From a pipe (a stream that cannot seek): the same filter.
    std::stringbuf pipe_bytes(std::string(v2.begin(), v2.end()));
    struct Pipe : std::streambuf {
      explicit Pipe(std::streambuf* b) : b_(b) {}
      int_type underflow() override { return b_->sgetc(); }
      int_type uflow() override { return b_->sbumpc(); }
      std::streambuf* b_;
    } pipe(&pipe_bytes);
    std::istream pin(&pipe);
    check_names(SpatialFilter::load(pin));
    // A loaded filter goes on: inserts continue, the names stay, the bytes are the same again.
    g.insert(3, test::RandomKeys(10, 3));
    f.insert(3, test::RandomKeys(10, 3));
    CHECK(Saved(g) == Saved(f));
  }
}

TEST_CASE("spatial: a hostile names table is refused") {
  SpatialFilter f = SpatialFilter::create(200, 0.05, 5, 1);
  f.insert(2, test::RandomKeys(100, 1));
  const std::vector<uint8_t> v1 = Saved(f);
  // Version 2's first part: version 1's bytes with version 2 and the header resealed.
  std::vector<uint8_t> head = v1;
  head[8] = 2;
  for (int i = 0; i < 8; ++i) {
    head[56 + i] = static_cast<uint8_t>(ref::Checksum(head.data(), 56) >> (8 * i));
  }
  const std::vector<std::string> names = {"a", "", "ccc", "dd", ""};
  std::vector<uint8_t> good = head;
  const std::vector<uint8_t> table = NamesTable(names);
  good.insert(good.end(), table.begin(), table.end());
  {
    SpatialFilter g = SpatialFilter::load(good.data(), good.size());
    for (uint16_t l = 1; l <= 5; ++l) CHECK(g.area_name(l) == names[l - 1]);
  }
  // The exact message (issue 45: a reader that read a byte past the table still threw a "name"
  // error), loaded from a copy of exactly the bytes' size, so that a read past them fails under
  // AddressSanitizer.
  auto names_error = [](const std::vector<uint8_t>& bytes, const std::string& want) {
    CAPTURE(want);
    ExpectFormatError(bytes);
    const std::unique_ptr<uint8_t[]> exact(new uint8_t[bytes.size()]);
    std::memcpy(exact.get(), bytes.data(), bytes.size());
    std::string got = "no error";
    try {
      SpatialFilter::load(exact.get(), bytes.size());
    } catch (const Error& e) {
      got = e.what();
    }
    CHECK(got == "not a valid simdbloom spatial filter: " + want);
  };
  // Every truncation, every byte of the table flipped, a byte more.
  for (size_t n = head.size(); n < good.size(); ++n) {
    ExpectFormatError(std::vector<uint8_t>(good.begin(), good.begin() + n));
  }
  for (size_t i = head.size(); i < good.size(); ++i) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0x04;
    ExpectFormatError(bad);
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  ExpectFormatError(longer);
  // A version-1 file relabelled version 2: no names table at all.
  names_error(head,
              "payload of 1552 bytes, the header needs at least 1568 (cells, area "
              "table, names table)");
  // Entries whose sizes lie, with the table's size and checksum consistent, so that only the
  // entry checks can catch them.
  auto with_entries = [&](std::vector<uint8_t> entries) {
    std::vector<uint8_t> bytes = head;
    std::vector<uint8_t> prefix(16);
    for (int i = 0; i < 8; ++i) {
      prefix[i] = static_cast<uint8_t>(uint64_t{entries.size()} >> (8 * i));
      prefix[8 + i] =
          static_cast<uint8_t>(ref::Checksum(entries.data(), entries.size()) >> (8 * i));
    }
    bytes.insert(bytes.end(), prefix.begin(), prefix.end());
    bytes.insert(bytes.end(), entries.begin(), entries.end());
    return bytes;
  };
  names_error(with_entries({}), "names table ends before the name of label 1");  // none
  // Four entries for five areas; the last entry's size cut after its first byte.
  names_error(with_entries({1, 0, 'a', 0, 0, 0, 0, 0, 0}),
              "names table ends before the name of label 5");
  names_error(with_entries({1, 0, 'a', 0, 0, 0, 0, 0, 0, 0}),
              "names table ends before the name of label 5");
  names_error(with_entries({1, 0, 'a', 0, 0, 0, 0, 0, 0, 2, 0, 'x'}),
              "name of label 5: 2 bytes, 1 left in the names table");
  names_error(with_entries({1, 0, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 'x'}),
              "1 bytes after the last name");
  names_error(with_entries({0xFF, 0xFF, 'a', 0, 0, 0, 0, 0, 0, 0, 0}),
              "name of label 1: 65535 bytes, 9 left in the names table");
  // The table's size field: too large, too small, far beyond the input (a stream must not
  // allocate it), beyond what five names can hold.
  for (uint64_t size : {uint64_t{table.size() - 16 + 1}, uint64_t{table.size() - 16 - 1},
                        uint64_t{1} << 40, uint64_t{5} * 65537 + 1, ~uint64_t{0}}) {
    CAPTURE(size);
    std::vector<uint8_t> bad = good;
    for (int i = 0; i < 8; ++i) bad[head.size() + i] = static_cast<uint8_t>(size >> (8 * i));
    names_error(bad, "names table of " + std::to_string(size) + " bytes, " +
                         std::to_string(table.size() - 16) + " present");
  }
  // The names checksum.
  std::vector<uint8_t> bad = good;
  bad[head.size() + 8] ^= 1;
  names_error(bad, "names table checksum mismatch");
  // Another version.
  std::vector<uint8_t> v3 = good;
  v3[8] = 3;
  Reseal(&v3);
  ExpectFormatError(v3);
}

}  // namespace
}  // namespace simdbloom
