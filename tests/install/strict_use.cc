// SPDX-License-Identifier: Apache-2.0
// Compiled (not run) by tests/install/headers.cmake under a strict user's flags, at -O2 and at
// each x86 level: the inline single-key paths of every layout and kind, instantiated, so that the
// warnings that need the optimizer (after inlining) show too.
#include <simdbloom/simdbloom.h>

#include <cstdint>
#include <simdbloom/counting.hpp>
#include <simdbloom/scalable.hpp>
#include <simdbloom/shifting.hpp>
#include <simdbloom/simdbloom.hpp>
#include <simdbloom/spatial.hpp>
#include <string_view>

int main() {
  using simdbloom::Layout;
  int misses = 0;
  for (Layout layout : {Layout::kBlock512, Layout::kRegister64, Layout::kSplitBlock256,
                        Layout::kClassic, Layout::kShifting}) {
    simdbloom::Filter f = simdbloom::Filter::create(1000, 0.01, layout);
    f.insert(uint64_t{42});
    f.insert(int32_t{7});
    misses += f.contains(uint64_t{42}) ? 0 : 1;
    misses += f.contains(int32_t{7}) ? 0 : 1;
    simdbloom::Filter s = simdbloom::Filter::create(1000, 0.01, layout);
    s.insert(std::string_view("key"));
    misses += s.contains(std::string_view("key")) ? 0 : 1;
  }
  simdbloom::CountingFilter c = simdbloom::CountingFilter::create(1000, 0.01);
  c.insert(uint64_t{3});
  misses += c.count(uint64_t{3}) == 1 ? 0 : 1;
  simdbloom::SpatialFilter a = simdbloom::SpatialFilter::create(1000, 0.01, 2);
  misses += a.classify(uint64_t{9}) == 0 ? 0 : 1;
  simdbloom::ScalableFilter g = simdbloom::ScalableFilter::create(1000, 0.01);
  g.insert(uint64_t{5});
  misses += g.contains(uint64_t{5}) ? 0 : 1;
  return misses;
}
