// The public C++ API: arguments and errors, target selection, sizing, single-key vs bulk paths.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

ErrorCode CodeOf(void (*fn)()) {
  try {
    fn();
  } catch (const Error& e) {
    CHECK(std::strlen(e.what()) > 0);
    return e.code();
  }
  return static_cast<ErrorCode>(0);
}

TEST_CASE("api: version matches the header macros") {
  CHECK(std::string(version()) == SIMDBLOOM_VERSION_STRING);
  CHECK(std::string(SIMDBLOOM_VERSION_STRING) == std::to_string(SIMDBLOOM_VERSION_MAJOR) + "." +
                                                     std::to_string(SIMDBLOOM_VERSION_MINOR) + "." +
                                                     std::to_string(SIMDBLOOM_VERSION_PATCH));
}

TEST_CASE("api: invalid arguments throw Error(kInvalidArgument)") {
  const ErrorCode kInvalid = ErrorCode::kInvalidArgument;
  CHECK(CodeOf([] { Filter::create(0, 0.01); }) == kInvalid);
  CHECK(CodeOf([] { Filter::create(100, 0.0); }) == kInvalid);
  CHECK(CodeOf([] { Filter::create(100, 1.0); }) == kInvalid);
  CHECK(CodeOf([] { Filter::create(100, -0.5); }) == kInvalid);
  CHECK(CodeOf([] { Filter::create(100, std::nan("")); }) == kInvalid);
  CHECK(CodeOf([] { Filter::create(100, 1e-12); }) == kInvalid);
  CHECK(CodeOf([] { Filter::create(~uint64_t{0}, 1e-6); }) == kInvalid);  // > 2^32 blocks
  CHECK(CodeOf([] { Filter::with_bits(0, 3); }) == kInvalid);
  CHECK(CodeOf([] { Filter::with_bits(1024, 0); }) == kInvalid);
  CHECK(CodeOf([] { Filter::with_bits(1024, 17); }) == kInvalid);
  CHECK(CodeOf([] { Filter::with_bits(uint64_t{1} << 42, 3); }) == kInvalid);
  CHECK(CodeOf([] { Filter::with_bits(1024, 3, static_cast<Layout>(99)); }) == kInvalid);
  CHECK(CodeOf([] {
          Filter f = Filter::with_bits(1024, 3);
          f.insert(Span<const uint64_t>(nullptr, 5));
        }) == kInvalid);
  CHECK(CodeOf([] {
          Filter f = Filter::with_bits(1024, 3);
          uint8_t out[5];
          f.contains(Span<const uint64_t>(nullptr, 5), out);
        }) == kInvalid);
  CHECK(CodeOf([] {
          Filter f = Filter::with_bits(1024, 3);
          const uint64_t keys[2] = {1, 2};
          f.contains(keys, nullptr);
        }) == kInvalid);
  // Null pointers with zero length are an empty batch, not an error.
  Filter f = Filter::with_bits(1024, 3);
  f.insert(Span<const uint64_t>(nullptr, 0));
  f.contains(Span<const uint64_t>(nullptr, 0), nullptr);
  CHECK(CodeOf([] { predicted_fpp(Layout::kBlock512, 1024, 0, 10); }) == kInvalid);
}

TEST_CASE("api: with_bits rounds up to whole blocks and keeps k and seed") {
  Filter f = Filter::with_bits(513, 5, Layout::kBlock512, 77);
  CHECK(f.bit_count() == 1024);
  CHECK(f.num_blocks() == 2);
  CHECK(f.size_bytes() == 128);
  CHECK(f.num_hashes() == 5);
  CHECK(f.seed() == 77);
  CHECK(f.layout() == Layout::kBlock512);
  CHECK(reinterpret_cast<uintptr_t>(f.data()) % 64 == 0);
  for (size_t i = 0; i < f.size_bytes(); ++i) REQUIRE(f.data()[i] == 0);
}

TEST_CASE("api: create sizes by the block512 model and meets the requested rate") {
  for (double fpp : {0.1, 0.01, 0.001, 1e-6}) {
    for (uint64_t n : {uint64_t{1}, uint64_t{1000}, uint64_t{1000000}}) {
      Filter f = Filter::create(n, fpp);
      CAPTURE(fpp);
      CAPTURE(n);
      CHECK(f.predicted_fpp(n) <= fpp);
      // Minimal: one block fewer (at any k) would miss the target.
      if (f.num_blocks() > 1) {
        for (uint32_t k = 1; k <= 16; ++k) {
          CHECK(predicted_fpp(Layout::kBlock512, (f.num_blocks() - 1) * 512, k, n) > fpp);
        }
      }
    }
  }
  // The design's table: about 9.9 bits/key at 1% and 15.5 at 0.1% for 512-bit blocks.
  Filter one = Filter::create(1000000, 0.01);
  Filter tenth = Filter::create(1000000, 0.001);
  const double bpk1 = one.bit_count() / 1e6, bpk01 = tenth.bit_count() / 1e6;
  MESSAGE("bits/key at 1%: " << bpk1 << " (k=" << one.num_hashes() << "), at 0.1%: " << bpk01
                             << " (k=" << tenth.num_hashes() << ")");
  CHECK(bpk1 > 9.5);
  CHECK(bpk1 < 10.5);
  CHECK(bpk01 > 14.5);
  CHECK(bpk01 < 16.5);
}

TEST_CASE("api: predicted_fpp behaves like a false-positive rate") {
  const uint64_t bits = 512 * 1000;
  double last = 0;
  for (uint64_t n : {1000, 10000, 50000, 100000, 1000000}) {
    const double p = predicted_fpp(Layout::kBlock512, bits, 7, n);
    CHECK(p > last);  // more keys, more false positives
    CHECK(p <= 1.0);
    last = p;
  }
  CHECK(predicted_fpp(Layout::kBlock512, bits, 7, 0) == 0);
  // One key in a huge filter: a false positive needs the query's block to hold that key (1/blocks)
  // and all 7 bits to match: tiny.
  CHECK(predicted_fpp(Layout::kBlock512, bits, 7, 1) < 1e-12);
}

TEST_CASE("api: measured FPR agrees with the model (fixed seed, binomial bounds)") {
  // n = 200k at the size create() picks for 1%; 2M negative probes. With p = predicted rate, the
  // false-positive count is Binomial(2e6, p); 4.5 sigma bounds (two-sided 1e-5) around 2e6 * p,
  // plus a 3% allowance for the model's independence assumption (FORMAT.md measured ~1%).
  const uint64_t n = 200000;
  Filter f = Filter::create(n, 0.01, Layout::kBlock512, 5);
  std::vector<uint64_t> keys = test::RandomKeys(n, 1);
  f.insert(keys);
  const size_t q = 2000000;
  std::vector<uint64_t> probes = test::RandomKeys(q, 2);
  std::vector<uint8_t> out(q);
  f.contains(probes, out.data());
  size_t fp = 0;
  for (uint8_t o : out) fp += o;
  const double p = f.predicted_fpp(n);
  const double mean = p * q, sigma = std::sqrt(q * p * (1 - p));
  MESSAGE("measured FPR " << double(fp) / q << " predicted " << p);
  CHECK(fp <= mean * 1.03 + 4.5 * sigma);
  CHECK(fp >= mean * 0.97 - 4.5 * sigma);
  CHECK(double(fp) / q <= 0.01 + 4.5 * std::sqrt(0.01 * 0.99 / q));
}

TEST_CASE("api: single-key and bulk paths agree on every target") {
  const std::vector<uint64_t> keys = test::RandomKeys(3000, 9);
  Filter single = Filter::with_bits(64 * 1024, 6, Layout::kBlock512, 3);
  for (uint64_t k : keys) single.insert(k);
  for (const std::string& name : available_targets()) {
    CAPTURE(name);
    set_target(name);
    CHECK(test::SameTargetName(active_target(), name));
    Filter bulk = Filter::with_bits(64 * 1024, 6, Layout::kBlock512, 3);
    bulk.insert(keys);
    REQUIRE(std::memcmp(bulk.data(), single.data(), bulk.size_bytes()) == 0);
    std::vector<uint8_t> out(keys.size());
    bulk.contains(keys, out.data());
    for (size_t i = 0; i < keys.size(); ++i) REQUIRE(out[i] == 1);
    for (uint64_t k : keys) REQUIRE(bulk.contains(k));
  }
  reset_target();
}

TEST_CASE("api: target selection") {
  const std::vector<std::string> names = available_targets();
  REQUIRE(names.size() >= 2);
  CHECK(names.back() == "reference");
  reset_target();
  CHECK(active_target() == names.front());  // the best target by default
  set_target("REFERENCE");                  // case-insensitive
  CHECK(active_target() == "reference");
  CHECK(CodeOf([] { set_target("no-such-target"); }) == ErrorCode::kUnknownTarget);
  CHECK(active_target() == "reference");  // a failed call changes nothing
  reset_target();
  CHECK(active_target() == names.front());
}

TEST_CASE("api: copy, move and clear") {
  Filter a = Filter::with_bits(4096, 4);
  const uint64_t keys[] = {1, 2, 3, 4, 5};
  a.insert(keys);
  Filter b = a;  // deep copy
  CHECK(std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
  CHECK(a.data() != b.data());
  Filter c = std::move(a);
  for (uint64_t k : keys) CHECK(c.contains(k));
  c.clear();
  for (size_t i = 0; i < c.size_bytes(); ++i) REQUIRE(c.data()[i] == 0);
  for (uint64_t k : keys) CHECK(b.contains(k));
  b = c;
  for (size_t i = 0; i < b.size_bytes(); ++i) REQUIRE(b.data()[i] == 0);
}

}  // namespace
}  // namespace simdbloom

namespace simdbloom {
namespace {

// Run by ctest with SIMDBLOOM_TARGET set and SIMDBLOOM_TEST_EXPECT = the target name that must be
// active, or "error" when SIMDBLOOM_TARGET names no usable target.
TEST_CASE("env: SIMDBLOOM_TARGET selects or rejects a target") {
  const char* expect = std::getenv("SIMDBLOOM_TEST_EXPECT");
  if (expect == nullptr) {
    CHECK(active_target() == available_targets().front());
    return;
  }
  if (std::string(expect) == "error") {
    CHECK(CodeOf([] { active_target(); }) == ErrorCode::kUnknownTarget);
    CHECK(CodeOf([] { Filter::create(100, 0.01); }) == ErrorCode::kUnknownTarget);
    CHECK(CodeOf([] { Filter::with_bits(1024, 3); }) == ErrorCode::kUnknownTarget);
    set_target("reference");  // an explicit choice still works
    CHECK(active_target() == "reference");
  } else {
    CHECK(test::SameTargetName(active_target(), expect));
  }
}

}  // namespace
}  // namespace simdbloom
