// SPDX-License-Identifier: Apache-2.0
// The body of one_key.odr's two units (odr_a.cc, odr_b.cc, see odr_main.cc): the same inline
// one-key calls instantiated in each unit, which is compiled with its own flags. The includer
// defines SIMDBLOOM_ODR_UNIT (A or B), the suffix of every function's name. Not a header of its
// own: no include guard, included once per unit.
#include "simdbloom/counting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

#define SIMDBLOOM_ODR_CAT2(name, unit) name##unit
#define SIMDBLOOM_ODR_CAT(name, unit) SIMDBLOOM_ODR_CAT2(name, unit)
#define SIMDBLOOM_ODR(name) SIMDBLOOM_ODR_CAT(name, SIMDBLOOM_ODR_UNIT)

const char* SIMDBLOOM_ODR(PathOfUnit)() { return simdbloom::detail::OneKey::kName; }
bool SIMDBLOOM_ODR(ContainsInUnit)(const simdbloom::Filter& f, uint64_t key) {
  return f.contains(key);
}
bool SIMDBLOOM_ODR(InsertInUnit)(simdbloom::Filter& f, uint64_t key) { return f.insert(key); }
// Through a member pointer: this unit's out-of-line instantiation of contains_hash<>.
using ContainsHashFn = bool (simdbloom::Filter::*)(uint64_t) const;
ContainsHashFn SIMDBLOOM_ODR(ContainsHashOfUnit)() { return &simdbloom::Filter::contains_hash<>; }
bool SIMDBLOOM_ODR(CallContainsHashOfUnit)(const simdbloom::Filter& f, uint64_t h) {
  bool (simdbloom::Filter::*fn)(uint64_t) const = &simdbloom::Filter::contains_hash<>;
  return (f.*fn)(h);
}
// The other kinds' inline one-key calls (SpatialFilter::classify, CountingFilter::count).
using ClassifyFn = uint16_t (simdbloom::SpatialFilter::*)(simdbloom::Key) const;
ClassifyFn SIMDBLOOM_ODR(ClassifyOfUnit)() { return &simdbloom::SpatialFilter::classify<>; }
using CountFn = uint32_t (simdbloom::CountingFilter::*)(simdbloom::Key) const;
CountFn SIMDBLOOM_ODR(CountOfUnit)() { return &simdbloom::CountingFilter::count<>; }
