// SPDX-License-Identifier: Apache-2.0
// The inline single-key path as a caller compiled with its own flags sees it. CMake builds this
// file several times: with the toolchain's defaults (baseline x86-64: the "portable" path; AArch64:
// "neon") and, on x86-64, with -march=x86-64-v3 ("avx2") and -march=x86-64-v4 ("avx512"), run only
// where the CPU has that instruction set (cpu_gate.c). Each build checks that it runs the path its
// flags select (SIMDBLOOM_EXPECT_ONE_KEY) and that every single-key insert and query gives the bits
// and answers of the library's bulk calls and of the inline scalar loops, for every k, on several
// sizes, for Filter and ScalableFilter; and that SpatialFilter::classify and CountingFilter::
// contains / count of one key answer as their bulk calls, for every k and cell width.
#include <doctest/doctest.h>  // implemented in ../doctest_impl.cc

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"
#include "tests/test_util.h"

namespace {

using simdbloom::Filter;
using simdbloom::Layout;
namespace detail = simdbloom::detail;
namespace test = simdbloom::test;

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

TEST_CASE("one_key: the path the caller's flags select") {
  CHECK(std::string(detail::OneKey::kName) == SIMDBLOOM_EXPECT_ONE_KEY);
}

struct Case {
  Layout layout;
  uint32_t k_min, k_max;
};

TEST_CASE("one_key: single keys give the bulk calls' bits and answers") {
  const Case cases[] = {
      {Layout::kBlock512, 1, 16}, {Layout::kSplitBlock256, 8, 8}, {Layout::kRegister64, 1, 16}};
  uint64_t s = 42;
  for (const Case& c : cases) {
    for (uint32_t k = c.k_min; k <= c.k_max; ++k) {
      // One block, an odd number of blocks, and a filter larger than L2.
      for (uint64_t bits : {uint64_t{512}, uint64_t{37} * 512, uint64_t{1} << 24}) {
        CAPTURE(simdbloom::layout_name(c.layout));
        CAPTURE(k);
        CAPTURE(bits);
        Filter single = Filter::with_bits(bits, k, c.layout, 7);
        Filter bulk = Filter::with_bits(bits, k, c.layout, 7);
        const size_t n = static_cast<size_t>(std::min<uint64_t>(bits / 12, 20000));
        std::vector<uint64_t> keys(n), absent(n);
        for (auto& key : keys) key = SplitMix(s);
        for (auto& key : absent) key = SplitMix(s);
        // insert's answer: true iff a probe was clear, as the scalar loops say on the bytes before.
        std::vector<uint64_t> scalar(single.size_bytes() / 8 + 8);
        for (uint64_t key : keys) {
          const uint64_t h = single.hash(key);
          const uint64_t block = detail::BlockOf(h, single.num_blocks());
          bool want = false;
          if (c.layout == Layout::kBlock512) {
            want = detail::Block512Insert(scalar.data() + 8 * block, h, k);
          } else if (c.layout == Layout::kSplitBlock256) {
            want = detail::SplitBlock256Insert(
                reinterpret_cast<uint8_t*>(scalar.data() + 4 * block), h);
          } else {
            const uint64_t mask = detail::Register64Mask(h, k);
            want = (mask & ~scalar[block]) != 0;
            scalar[block] |= mask;
          }
          REQUIRE(single.insert(key) == want);
        }
        bulk.insert({keys.data(), keys.size()});
        REQUIRE(std::memcmp(single.data(), bulk.data(), bulk.size_bytes()) == 0);
        REQUIRE(std::memcmp(single.data(), scalar.data(), bulk.size_bytes()) == 0);
        std::vector<uint8_t> out(n);
        bulk.contains({absent.data(), absent.size()}, out.data());
        for (size_t i = 0; i < n; ++i) {
          REQUIRE(single.contains(keys[i]));  // never a false negative
          REQUIRE(single.contains(absent[i]) == (out[i] != 0));
          REQUIRE(single.contains(static_cast<uint32_t>(absent[i])) ==
                  bulk.contains(static_cast<uint32_t>(absent[i])));
        }
      }
    }
  }
}

// Every layout's single-key calls (block512 and the others hashed inline, classic and shifting
// through contains_hash's switch, Guava's through Murmur3), on int64, untyped and int32 filters and
// on a read-only view: the bulk calls' bytes and answers, and a view's insert refused.
TEST_CASE("one_key: every layout and key type gives the bulk calls' bits and answers") {
  uint64_t s = 43;
  const size_t n = 3000;
  std::vector<uint64_t> keys(n), absent(n);
  for (auto& key : keys) key = SplitMix(s) >> 33;  // values that fit an int32 filter too
  for (auto& key : absent) key = SplitMix(s) >> 33;
  for (int l = 1; l <= 7; ++l) {
    const Layout layout = static_cast<Layout>(l);
    for (simdbloom::KeyType type :
         {simdbloom::KeyType::kInt64, simdbloom::KeyType::kNone, simdbloom::KeyType::kInt32}) {
      CAPTURE(simdbloom::layout_name(layout));
      CAPTURE(static_cast<int>(type));
      Filter single = Filter::create(n, 0.02, layout, 9, type);
      Filter bulk = Filter::create(n, 0.02, layout, 9, type);
      size_t fresh = 0;
      for (uint64_t key : keys) fresh += single.insert(static_cast<int64_t>(key));
      CHECK(bulk.insert({keys.data(), n}) == fresh);
      REQUIRE(single.size_bytes() == bulk.size_bytes());
      CHECK(std::memcmp(single.data(), bulk.data(), bulk.size_bytes()) == 0);
      CHECK(single.key_type() == bulk.key_type());
      std::vector<uint8_t> out(n);
      bulk.contains({absent.data(), n}, out.data());
      std::ostringstream saved;
      single.save(saved);
      const test::Aligned bytes(saved.str());
      const Filter view = Filter::view(bytes.ptr, saved.str().size());
      for (size_t i = 0; i < n; ++i) {
        REQUIRE(single.contains(keys[i]));  // never a false negative
        REQUIRE(single.contains(absent[i]) == (out[i] != 0));
        REQUIRE(view.contains(absent[i]) == (out[i] != 0));
      }
      Filter writable = Filter::view(bytes.ptr, saved.str().size());
      CHECK(test::CodeOf([&] { writable.insert(keys[0]); }) == simdbloom::ErrorCode::kReadOnly);
    }
  }
}

TEST_CASE("one_key: scalable chains probe their stages the same way") {
  simdbloom::ScalableFilter chain = simdbloom::ScalableFilter::create(1000, 0.01);
  uint64_t s = 9;
  std::vector<uint64_t> keys(5000), absent(5000);
  for (auto& key : keys) key = SplitMix(s);
  for (auto& key : absent) key = SplitMix(s);
  for (uint64_t key : keys) chain.insert(key);
  REQUIRE(chain.stages() > 2);
  std::vector<uint8_t> out(absent.size());
  chain.contains({absent.data(), absent.size()}, out.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    REQUIRE(chain.contains(keys[i]));
    REQUIRE(chain.contains(absent[i]) == (out[i] != 0));
  }
}

TEST_CASE("one_key: spatial classify of one key gives the bulk call's label") {
  uint64_t s = 77;
  // Up to 255 areas: 1-byte cells (inline on AVX2 / AVX-512 callers); 256 and 300: 2-byte cells
  // (out of line).
  for (uint32_t areas : {3u, 255u, 256u, 300u}) {
    for (uint32_t k = 1; k <= 8; ++k) {
      for (uint64_t blocks : {uint64_t{1}, uint64_t{37}, uint64_t{40000}}) {
        CAPTURE(areas);
        CAPTURE(k);
        CAPTURE(blocks);
        simdbloom::SpatialFilter f = simdbloom::SpatialFilter::with_blocks(blocks, k, areas, 5);
        const size_t n = static_cast<size_t>(std::min<uint64_t>(blocks * 6, 30000));
        std::vector<uint64_t> keys(n), absent(n);
        for (auto& key : keys) key = SplitMix(s);
        for (auto& key : absent) key = SplitMix(s);
        // Labels spread over 1..areas, ascending, so cells hold many different labels.
        const uint32_t used = std::min<uint32_t>(areas, 16);
        for (uint32_t a = 0; a < used; ++a) {
          const size_t begin = n * a / used, end = n * (a + 1) / used;
          const auto label = static_cast<uint16_t>(1 + a * (areas - 1) / std::max(used - 1, 1u));
          f.insert(label, {keys.data() + begin, end - begin});
        }
        std::vector<uint16_t> want(n), want_absent(n);
        f.classify({keys.data(), n}, want.data());
        f.classify({absent.data(), n}, want_absent.data());
        for (size_t i = 0; i < n; ++i) {
          REQUIRE(want[i] != 0);  // never a false negative
          REQUIRE(f.classify(keys[i]) == want[i]);
          REQUIRE(f.classify(absent[i]) == want_absent[i]);
          REQUIRE(f.classify(static_cast<uint32_t>(absent[i])) ==
                  f.classify_hash(f.hash(static_cast<uint32_t>(absent[i]))));
        }
      }
    }
  }
}

TEST_CASE("one_key: counting contains and count of one key give the bulk count") {
  uint64_t s = 123;
  for (auto layout : {simdbloom::CountingLayout::kBlocked, simdbloom::CountingLayout::kClassic}) {
    for (uint32_t k = 1; k <= 16; ++k) {
      for (uint64_t blocks : {uint64_t{1}, uint64_t{37}, uint64_t{20000}}) {
        CAPTURE(simdbloom::counting_layout_name(layout));
        CAPTURE(k);
        CAPTURE(blocks);
        simdbloom::CountingFilter f =
            simdbloom::CountingFilter::with_counters(blocks * 128, k, layout, 3);
        const size_t n = static_cast<size_t>(std::min<uint64_t>(blocks * 8, 20000));
        std::vector<uint64_t> keys(n), absent(n);
        for (auto& key : keys) key = SplitMix(s);
        for (auto& key : absent) key = SplitMix(s);
        // Counts 1..20 (some saturate at 15), then a third of the keys inserted twice or more
        // removed once.
        for (size_t i = 0; i < n; ++i) {
          for (size_t r = 0; r <= i % 20; ++r) f.insert(keys[i]);
        }
        for (size_t i = 0; i < n; i += 3) {
          if (i % 20 != 0) REQUIRE(f.remove(keys[i]));
        }
        std::vector<uint8_t> want(n), want_absent(n);
        f.count(simdbloom::Keys(keys.data(), n), want.data());
        f.count(simdbloom::Keys(absent.data(), n), want_absent.data());
        for (size_t i = 0; i < n; ++i) {
          REQUIRE(f.contains(keys[i]));  // inserted at least once more than removed
          REQUIRE(f.count(keys[i]) == want[i]);
          REQUIRE(f.count(absent[i]) == want_absent[i]);
          REQUIRE(f.contains(absent[i]) == (want_absent[i] != 0));
          REQUIRE(f.count(static_cast<uint32_t>(absent[i])) ==
                  f.count_hash(f.hash(static_cast<uint32_t>(absent[i]))));
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  return context.run();
}
