// SPDX-License-Identifier: Apache-2.0
// The prefetch distance bulk calls use (lib/core/prefetch.cc): measured once per layout, size class
// and target on the machine, chosen among the candidates, cached, overridable, never measured on a
// view, and never a cause of different bytes or results.
#include "lib/core/prefetch.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

bool IsCandidate(uint32_t d) {
  for (uint32_t c : {0u, 16u, 32u, 64u, 128u, 256u}) {
    if (d == c) return true;
  }
  return false;
}

TEST_CASE("api: prefetch distance measured once per size class, results unchanged") {
  detail::ResetPrefetchCalibration();
  // Below 1 MiB: no prefetching, nothing measured.
  const Filter small = Filter::with_bits(uint64_t{1} << 20, 6);  // 128 KiB
  CHECK(detail::PrefetchDistance(small) == 0);

  Filter f = Filter::with_bits(uint64_t{64} << 20, 6);  // 8 MiB
  const uint32_t d = detail::PrefetchDistance(f);
  CHECK(IsCandidate(d));
  CHECK(detail::PrefetchDistance(f) == d);  // cached: the same answer without measuring again
  // Another filter of the same size class shares the measurement.
  const Filter g = Filter::with_bits(uint64_t{72} << 20, 6);
  CHECK(detail::PrefetchDistance(g) == d);

  detail::SetPrefetchOverride(40);
  CHECK(detail::PrefetchDistance(f) == 40);
  CHECK(detail::PrefetchDistance(small) == 40);
  detail::SetPrefetchOverride(-1);
  CHECK(detail::PrefetchDistance(f) == d);

  // A view (an mmapped file's pages may not be resident) is never measured: it takes its size
  // class's measured distance, or 64 when there is none.
  std::stringstream saved;
  f.save(saved);
  const std::string bytes = saved.str();
  std::vector<uint64_t> storage(bytes.size() / 8 + 16);
  auto* at = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) &
                                        ~uintptr_t{63});
  std::memcpy(at, bytes.data(), bytes.size());
  const Filter view = Filter::view(at, bytes.size());
  CHECK(detail::PrefetchDistance(view) == d);
  detail::ResetPrefetchCalibration();
  CHECK(detail::PrefetchDistance(view) == 64);

  // Bytes and answers are the same at every distance, the measured one included.
  const std::vector<uint64_t> keys = test::RandomKeys(300000, 71);
  std::vector<uint8_t> want_bytes, want_out;
  for (int forced : {-1, 0, 16, 256}) {
    CAPTURE(forced);
    detail::SetPrefetchOverride(forced);
    f.clear();
    f.insert(keys);
    std::vector<uint8_t> out(keys.size());
    const std::vector<uint64_t> probe = test::RandomKeys(keys.size(), 72);
    f.contains(probe, out.data());
    const std::vector<uint8_t> got(f.data(), f.data() + f.size_bytes());
    if (forced == -1) {
      want_bytes = got;
      want_out = out;
    } else {
      CHECK(got == want_bytes);
      CHECK(out == want_out);
    }
  }
  detail::SetPrefetchOverride(-1);
}

// Native only (the "big" suite): 10M keys, more than the 8.4M a call with the most candidates
// (16 trials) tunes on.
TEST_CASE(
    "big: a large call tunes the prefetch distance on its own keys; bytes, results unchanged") {
  constexpr size_t n = 10000000;
  const std::vector<uint64_t> keys = test::RandomKeys(n, 81);
  std::vector<uint64_t> probe = test::RandomKeys(n, 82);
  std::copy(keys.begin(), keys.begin() + n / 2, probe.begin());  // half present
  // What a fixed distance gives.
  detail::SetPrefetchOverride(32);
  Filter want = Filter::create(n, 0.01, Layout::kBlock512);
  want.insert(keys);
  std::vector<uint8_t> want_out(n), want_bitmap((n + 7) / 8);
  std::vector<uint32_t> want_sel(n);
  const uint64_t want_hits = want.contains(probe, want_out.data());
  CHECK(want.contains_bitmap(probe, want_bitmap.data()) == want_hits);
  CHECK(want.select(probe, want_sel.data()) == want_hits);
  CHECK(want_hits >= n / 2);
  detail::SetPrefetchOverride(-1);

  // The first call on a new size class tunes; every result form and key path, tuned in turn.
  detail::ResetPrefetchCalibration();
  Filter f = Filter::create(n, 0.01, Layout::kBlock512);
  REQUIRE(f.size_bytes() >= (uint64_t{1} << 20));
  CHECK(!detail::PrefetchTuned(f));
  f.insert(keys);
  CHECK(detail::PrefetchTuned(f));
  CHECK(std::memcmp(f.data(), want.data(), f.size_bytes()) == 0);
  std::vector<uint8_t> out(n, 7), bitmap((n + 7) / 8, 7);
  std::vector<uint32_t> sel(n, 7);
  detail::ResetPrefetchCalibration();
  CHECK(f.contains(probe, out.data()) == want_hits);
  CHECK(detail::PrefetchTuned(f));
  CHECK(out == want_out);
  detail::ResetPrefetchCalibration();
  CHECK(f.contains_bitmap(probe, bitmap.data()) == want_hits);
  CHECK(detail::PrefetchTuned(f));
  CHECK(bitmap == want_bitmap);
  detail::ResetPrefetchCalibration();
  CHECK(f.select(probe, sel.data()) == want_hits);
  CHECK(detail::PrefetchTuned(f));
  CHECK(std::equal(sel.begin(), sel.begin() + want_hits, want_sel.begin()));
  // Byte strings (the keys' 8 bytes: XXH3 of the same bytes as a u64 key), hashed in chunks.
  // (A bytes filter of the same bits: integers and byte strings never share one.)
  const FixedWidth strings{reinterpret_cast<const uint8_t*>(probe.data()), 8, 8, n};
  const Filter f_bytes = test::WithKeyType(f, KeyType::kBytes);
  detail::ResetPrefetchCalibration();
  std::fill(sel.begin(), sel.end(), 7);
  CHECK(f_bytes.select(strings, sel.data()) == want_hits);
  CHECK(detail::PrefetchTuned(f_bytes));
  CHECK(std::equal(sel.begin(), sel.begin() + want_hits, want_sel.begin()));
  // Inserting the keys as byte strings after a reset (trials over hashed chunks), then again as
  // u64 keys into the tuned size class (no trials), leaves want's bytes.
  const FixedWidth key_strings{reinterpret_cast<const uint8_t*>(keys.data()), 8, 8, n};
  Filter g = Filter::create(n, 0.01, Layout::kBlock512);
  detail::ResetPrefetchCalibration();
  g.insert(key_strings);
  CHECK(detail::PrefetchTuned(g));
  CHECK(std::memcmp(g.data(), want.data(), g.size_bytes()) == 0);
  Filter g_ints = test::WithKeyType(g, KeyType::kInt64);
  g_ints.insert(keys);
  CHECK(std::memcmp(g_ints.data(), want.data(), g_ints.size_bytes()) == 0);

  // Per-key new flags of a tuning insert (pieces offset into `fresh`) equal the fixed distance's.
  detail::SetPrefetchOverride(32);
  Filter h_fixed = Filter::create(n, 0.01, Layout::kBlock512);
  std::vector<uint8_t> want_fresh(n);
  const uint64_t want_new = h_fixed.insert(probe, want_fresh.data());
  detail::SetPrefetchOverride(-1);
  Filter h = Filter::create(n, 0.01, Layout::kBlock512);
  std::vector<uint8_t> fresh(n, 7);
  detail::ResetPrefetchCalibration();
  CHECK(h.insert(probe, fresh.data()) == want_new);
  CHECK(detail::PrefetchTuned(h));
  CHECK(fresh == want_fresh);
  CHECK(std::memcmp(h.data(), h_fixed.data(), h.size_bytes()) == 0);

  // u32 keys (4-byte pieces) and pre-hashed keys, against the same calls at a fixed distance.
  std::vector<uint32_t> probe32(probe.begin(), probe.end());
  std::vector<uint64_t> hashes(n);
  f.hash(probe, hashes.data());
  for (int shape = 0; shape < 2; ++shape) {
    CAPTURE(shape);
    const Keys keys_of = shape == 0 ? Keys(probe32.data(), n) : Keys(Prehashed{hashes.data(), n});
    detail::SetPrefetchOverride(32);
    std::vector<uint8_t> want_bits((n + 7) / 8);
    const uint64_t hits = f.contains_bitmap(keys_of, want_bits.data());
    detail::SetPrefetchOverride(-1);
    if (shape == 1) CHECK(hits == want_hits);
    detail::ResetPrefetchCalibration();
    std::fill(bitmap.begin(), bitmap.end(), 7);
    CHECK(f.contains_bitmap(keys_of, bitmap.data()) == hits);
    CHECK(detail::PrefetchTuned(f));
    CHECK(bitmap == want_bits);
  }

  // A call below the threshold, with a selection vector, or with the override set never tunes.
  detail::ResetPrefetchCalibration();
  f.contains(Span<const uint64_t>(probe.data(), 100000), out.data());
  CHECK(!detail::PrefetchTuned(f));
  std::vector<uint32_t> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = static_cast<uint32_t>(i);
  CHECK(f.refine(probe, all.data(), n) == want_hits);
  CHECK(!detail::PrefetchTuned(f));
  detail::SetPrefetchOverride(64);
  f.contains(probe, out.data());
  detail::SetPrefetchOverride(-1);
  CHECK(!detail::PrefetchTuned(f));
  CHECK(out == want_out);
}

detail::TuneTarget CountingTarget(const CountingFilter& f) {
  return detail::TuneTarget::Of(f.layout() == CountingLayout::kBlocked
                                    ? detail::TunedKind::counting_blocked
                                    : detail::TunedKind::counting_classic,
                                f.size_bytes(), true, false);
}
detail::TuneTarget SpatialTarget(const SpatialFilter& f) {
  return detail::TuneTarget::Of(detail::TunedKind::spatial, f.size_bytes(), true, false,
                                static_cast<int>(f.cell_bytes()) - 1);
}
detail::TuneTarget SetsTarget(const ShiftingAssociation& f) {
  return detail::TuneTarget::Of(detail::TunedKind::shifting_sets, f.num_blocks() * 64, true, false);
}

TEST_CASE("api: every kind measures its own prefetch distance per size class") {
  const std::vector<uint64_t> keys = test::RandomKeys(5000, 91);
  std::vector<uint8_t> out(keys.size());
  std::vector<uint16_t> labels(keys.size());
  CountingFilter blocked = CountingFilter::with_counters(uint64_t{16} << 20, 4);  // 8 MiB
  CountingFilter classic =
      CountingFilter::with_counters(uint64_t{16} << 20, 4, CountingLayout::kClassic);
  SpatialFilter narrow = SpatialFilter::with_blocks(uint64_t{1} << 17, 4, 3);     // 8 MiB, u8
  SpatialFilter wide = SpatialFilter::with_blocks(uint64_t{1} << 16, 4, 300);     // 8 MiB, u16
  ShiftingAssociation sets = ShiftingAssociation::with_bits(uint64_t{64} << 20);  // 8 MiB
  const Filter plain = Filter::with_bits(uint64_t{64} << 20, 6);                  // 8 MiB
  REQUIRE(narrow.size_bytes() == wide.size_bytes());
  const detail::TuneTarget targets[] = {CountingTarget(blocked), CountingTarget(classic),
                                        SpatialTarget(narrow),   SpatialTarget(wide),
                                        SetsTarget(sets),        detail::TuneTarget::Of(plain)};
  // Each bulk call measures its own kernel's row (and spatial its cell width's) and no other.
  const std::function<void()> calls[] = {
      [&] { blocked.contains(keys, out.data()); }, [&] { classic.count(keys, out.data()); },
      [&] { narrow.classify(keys, labels.data()); }, [&] { wide.insert(1, keys); },
      [&] { sets.query(keys, out.data()); }};
  for (size_t c = 0; c < 5; ++c) {
    CAPTURE(c);
    detail::ResetPrefetchCalibration();
    for (const detail::TuneTarget& t : targets) CHECK(detail::CachedDistance(t) == -1);
    calls[c]();
    for (size_t t = 0; t < 6; ++t) {
      CAPTURE(t);
      const int64_t d = detail::CachedDistance(targets[t]);
      if (t == c) {
        CHECK(IsCandidate(static_cast<uint32_t>(d)));
      } else {
        CHECK(d == -1);
      }
    }
  }
  // Below 1 MiB nothing is measured.
  detail::ResetPrefetchCalibration();
  CountingFilter small = CountingFilter::with_counters(4096, 4);
  small.contains(keys, out.data());
  CHECK(detail::CachedDistance(CountingTarget(small)) == 0);
  CHECK(detail::CachedDistance(CountingTarget(blocked)) == -1);
}

// Native only: the kinds' large calls tune on their own keys, with the same bytes and answers as
// at a fixed distance.
TEST_CASE("big: counting, spatial and shifting set calls tune the prefetch distance") {
  constexpr size_t n = 10000000;
  const std::vector<uint64_t> keys = test::RandomKeys(n, 93);
  std::vector<uint8_t> out(n), want_out(n);
  detail::SetPrefetchOverride(32);
  CountingFilter want = CountingFilter::create(n, 0.01);
  want.insert(keys);
  want.count(keys, want_out.data());
  detail::SetPrefetchOverride(-1);
  detail::ResetPrefetchCalibration();
  CountingFilter f = CountingFilter::create(n, 0.01);
  CHECK(!detail::PrefetchTuned(CountingTarget(f)));
  f.insert(keys);
  CHECK(detail::PrefetchTuned(CountingTarget(f)));
  CHECK(std::memcmp(f.data(), want.data(), f.size_bytes()) == 0);
  detail::ResetPrefetchCalibration();
  f.count(keys, out.data());
  CHECK(detail::PrefetchTuned(CountingTarget(f)));
  CHECK(out == want_out);

  SpatialFilter s = SpatialFilter::create(n, 0.01, 2);
  s.insert(1, Span<const uint64_t>(keys.data(), n / 2));
  s.insert(2, Span<const uint64_t>(keys.data() + n / 2, n / 2));
  std::vector<uint16_t> labels(n), want_labels(n);
  detail::SetPrefetchOverride(32);
  s.classify(keys, want_labels.data());
  detail::SetPrefetchOverride(-1);
  detail::ResetPrefetchCalibration();
  s.classify(keys, labels.data());
  CHECK(detail::PrefetchTuned(SpatialTarget(s)));
  CHECK(labels == want_labels);
  for (size_t i = 0; i < n; ++i) REQUIRE(labels[i] >= (i < n / 2 ? 1 : 2));

  ShiftingMultiplicity m = ShiftingMultiplicity::create(n, 0.01, 4);
  m.insert(keys, 3);
  std::vector<uint32_t> counts(n);
  detail::ResetPrefetchCalibration();
  ShiftingAssociation probe = ShiftingAssociation::with_bits(m.bit_count());
  REQUIRE(!detail::PrefetchTuned(SetsTarget(probe)));
  m.count(keys, counts.data());
  CHECK(detail::PrefetchTuned(SetsTarget(probe)));  // the same kernel, the same size class
  for (size_t i = 0; i < n; ++i) REQUIRE(counts[i] >= 1);
}

}  // namespace
}  // namespace simdbloom
