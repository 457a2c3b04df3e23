// SPDX-License-Identifier: Apache-2.0
// Filters beyond 2^32 bits, for every layout: a filter of more than 2^33 bits (1 GiB) where keys
// land past bit 2^32, built by every target's bulk path and by the single-key path, bit-identical,
// with no false negatives.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/reference.h"
#include "kernels/scalar/probes.h"
#include "lib/core/layout.h"
#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// Highest bit position key hash `h` touches in `layout` (from the reference's definition).
uint64_t HighestBit(Layout layout, const detail::Params& p, uint64_t h) {
  if (layout == Layout::kClassic) {
    uint64_t top = 0, g = h;
    for (uint32_t i = 0; i < p.k; ++i, g += scalar::ClassicStep(h)) {
      const uint64_t b = scalar::ClassicBit(g, p.num_blocks);
      top = b > top ? b : top;
    }
    return top;
  }
  return ref::BlockIndex(h, p.num_blocks) * block_bits(layout);
}

TEST_CASE("big: filters of more than 2^33 bits on every layout and target") {
  const uint64_t bits = (uint64_t{1} << 33) + 4096;
  const std::vector<uint64_t> keys = test::RandomKeys(200000, 33);
  for (Layout layout : layouts()) {
    const std::string name = layout_name(layout);
    CAPTURE(name);
    const uint32_t k = layout == Layout::kSplitBlock256 ? 8 : 7;
    Filter single = Filter::with_bits(bits, k, layout, 3);
    REQUIRE(single.bit_count() >= bits);
    REQUIRE(single.bit_count() > (uint64_t{1} << 33));
    for (uint64_t key : keys) single.insert(key);

    // Keys really land past bit 2^32 (half of them, roughly) and near the very end.
    const detail::Params p{single.num_blocks(), k, 3};
    size_t high = 0;
    uint64_t top = 0;
    for (uint64_t key : keys) {
      const uint64_t b = HighestBit(layout, p, ref::HashFor(detail::IdOf(layout), key, p.seed));
      high += b >= (uint64_t{1} << 32);
      top = b > top ? b : top;
    }
    MESSAGE(name << ": " << high << " of " << keys.size()
                 << " keys set bits past 2^32; highest bit " << top);
    CHECK(high > keys.size() / 3);
    CHECK(top > single.bit_count() - single.bit_count() / 1000);

    Filter bulk = Filter::with_bits(bits, k, layout, 3);
    std::vector<uint8_t> out(keys.size());
    test::ForEachApiTarget([&](const std::string&) {
      bulk.clear();
      bulk.insert(keys);
      REQUIRE(std::memcmp(bulk.data(), single.data(), bulk.size_bytes()) == 0);
      bulk.contains(keys, out.data());
      size_t found = 0;
      for (uint8_t o : out) found += o;
      CHECK(found == keys.size());
    });
    for (size_t i = 0; i < keys.size(); i += 97) REQUIRE(single.contains(keys[i]));
  }
}

}  // namespace
}  // namespace simdbloom
