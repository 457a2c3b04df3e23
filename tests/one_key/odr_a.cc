// SPDX-License-Identifier: Apache-2.0
// one_key.odr, unit A: compiled with the toolchain's default flags (see odr_main.cc).
#include "simdbloom/counting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

const char* PathOfUnitA() { return simdbloom::detail::OneKey::kName; }
#if defined(SIMDBLOOM_EXPECT_NEON)  // one_key.neon.compile: this unit for AArch64
static_assert(simdbloom::detail::OneKey::kName[0] == 'n', "the NEON path (one_key/neon.hpp)");
#endif
bool ContainsInUnitA(const simdbloom::Filter& f, uint64_t key) { return f.contains(key); }
bool InsertInUnitA(simdbloom::Filter& f, uint64_t key) { return f.insert(key); }
// Through a member pointer: this unit's out-of-line instantiation of contains_hash<>.
using ContainsHashFn = bool (simdbloom::Filter::*)(uint64_t) const;
ContainsHashFn ContainsHashOfUnitA() { return &simdbloom::Filter::contains_hash<>; }
bool CallContainsHashOfUnitA(const simdbloom::Filter& f, uint64_t h) {
  bool (simdbloom::Filter::*fn)(uint64_t) const = &simdbloom::Filter::contains_hash<>;
  return (f.*fn)(h);
}
// The other kinds' inline one-key calls (SpatialFilter::classify, CountingFilter::count).
using ClassifyFn = uint16_t (simdbloom::SpatialFilter::*)(simdbloom::Key) const;
ClassifyFn ClassifyOfUnitA() { return &simdbloom::SpatialFilter::classify<>; }
using CountFn = uint32_t (simdbloom::CountingFilter::*)(simdbloom::Key) const;
CountFn CountOfUnitA() { return &simdbloom::CountingFilter::count<>; }
