// SPDX-License-Identifier: Apache-2.0
// one_key.odr: two translation units of one program, one compiled for baseline x86-64 (odr_a.cc),
// one with -march=x86-64-v3 (odr_b.cc), both using Filter's inline single-key calls. Each must run
// its own path ("portable" and "avx2"), and their out-of-line instantiations of contains_hash must
// be different functions: were they one (same mangled name), the linker would keep one copy and a
// baseline unit could run AVX2 code on a CPU without it. Run only on CPUs with AVX2 (cpu_gate.c).
#include <cstdio>
#include <cstring>

#include "simdbloom/counting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

const char* PathOfUnitA();
const char* PathOfUnitB();
bool ContainsInUnitA(const simdbloom::Filter& f, uint64_t key);
bool ContainsInUnitB(const simdbloom::Filter& f, uint64_t key);
bool InsertInUnitA(simdbloom::Filter& f, uint64_t key);
bool InsertInUnitB(simdbloom::Filter& f, uint64_t key);
using ContainsHashFn = bool (simdbloom::Filter::*)(uint64_t) const;
ContainsHashFn ContainsHashOfUnitA();
ContainsHashFn ContainsHashOfUnitB();
bool CallContainsHashOfUnitA(const simdbloom::Filter& f, uint64_t h);
bool CallContainsHashOfUnitB(const simdbloom::Filter& f, uint64_t h);
using ClassifyFn = uint16_t (simdbloom::SpatialFilter::*)(simdbloom::Key) const;
ClassifyFn ClassifyOfUnitA();
ClassifyFn ClassifyOfUnitB();
using CountFn = uint32_t (simdbloom::CountingFilter::*)(simdbloom::Key) const;
CountFn CountOfUnitA();
CountFn CountOfUnitB();

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::printf("FAILED: %s\n", what);
      ++failures;
    }
  };
  check(std::strcmp(PathOfUnitA(), "portable") == 0, "unit A runs the portable path");
  check(std::strcmp(PathOfUnitB(), "avx2") == 0, "unit B runs the AVX2 path");
  check(ContainsHashOfUnitA() != ContainsHashOfUnitB(),
        "the units' contains_hash instantiations are different functions");
  simdbloom::Filter a = simdbloom::Filter::create(10000, 0.01);
  simdbloom::Filter b = simdbloom::Filter::create(10000, 0.01);
  uint64_t key = 1;
  for (int i = 0; i < 10000; ++i, key = key * 6364136223846793005ULL + 1442695040888963407ULL) {
    if (i % 2 == 0) {
      check(InsertInUnitA(a, key) == InsertInUnitB(b, key), "insert answers agree");
    }
    check(ContainsInUnitA(a, key) == ContainsInUnitB(a, key), "contains answers agree");
    check(CallContainsHashOfUnitA(b, b.hash(key)) == CallContainsHashOfUnitB(b, b.hash(key)),
          "out-of-line instantiations agree");
  }
  check(std::memcmp(a.data(), b.data(), a.size_bytes()) == 0, "same bits from both units");
  // The other kinds: each unit's instantiation its own function, with the same answers.
  check(ClassifyOfUnitA() != ClassifyOfUnitB(), "the units' classify instantiations differ");
  check(CountOfUnitA() != CountOfUnitB(), "the units' count instantiations differ");
  simdbloom::SpatialFilter sp = simdbloom::SpatialFilter::create(10000, 0.01, 3);
  simdbloom::CountingFilter cf = simdbloom::CountingFilter::create(10000, 0.01);
  key = 7;
  for (int i = 0; i < 20000; ++i, key = key * 6364136223846793005ULL + 1442695040888963407ULL) {
    if (i < 10000) {
      sp.insert(static_cast<uint16_t>(1 + i / 4000), key);
      cf.insert(key);
      if (i % 3 == 0) cf.insert(key);
    }
    check((sp.*ClassifyOfUnitA())(key) == (sp.*ClassifyOfUnitB())(key), "classify answers agree");
    check((cf.*CountOfUnitA())(key) == (cf.*CountOfUnitB())(key), "count answers agree");
  }
  if (failures == 0) std::printf("one_key.odr: 2 units, 2 paths, same bits\n");
  return failures == 0 ? 0 : 1;
}
