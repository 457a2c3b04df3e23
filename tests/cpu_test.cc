// SPDX-License-Identifier: Apache-2.0
// Our CPU detection (kernels/cpu.cc, no libhwy) against Highway's own hwy::SupportedTargets().
#include "kernels/cpu.h"

#include <doctest/doctest.h>

#include <cstdio>

#include "hwy/highway.h"
#include "hwy/targets.h"
#include "kernels/dispatch.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

std::string Names(int64_t targets) {
  std::string s;
  for (int64_t rest = targets; rest != 0; rest &= rest - 1) {
    if (!s.empty()) s += ' ';
    s += hwy::TargetName(rest & -rest);
  }
  return s;
}

TEST_CASE("cpu: detected targets equal Highway's SupportedTargets") {
  hwy::SetSupportedTargetsForTest(0);  // Highway's real answer, not a test mock
  const int64_t hwy_targets = hwy::SupportedTargets() & HWY_TARGETS;
  const int64_t ours = detail::CpuHwyTargets() & HWY_TARGETS;
  std::printf("compiled: %s\nhighway:  %s\nours:     %s\n", Names(HWY_TARGETS).c_str(),
              Names(hwy_targets).c_str(), Names(ours).c_str());
  CHECK(ours == hwy_targets);
  CHECK(detail::DetectCpuHwyTargets() == detail::CpuHwyTargets());
}

TEST_CASE("cpu: every usable target has its kernels, the best first") {
  hwy::SetSupportedTargetsForTest(0);
  const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
  const std::vector<const detail::Kernels*> all = detail::Available();
  size_t i = 0;
  for (int64_t rest = usable; rest != 0; rest &= rest - 1, ++i) {
    const int64_t t = rest & -rest;
    REQUIRE(i < all.size());
    CHECK(all[i]->hwy_target == t);
    CHECK(detail::ForHwyTarget(t) == all[i]);
  }
  CHECK(all.size() == i + 1);  // and the reference
  CHECK(all.back()->hwy_target == 0);
  CHECK(detail::ForHwyTarget(0) == nullptr);
  CHECK(detail::ForHwyTarget(HWY_TARGETS & ~usable & -(HWY_TARGETS & ~usable)) == nullptr);
  // The default is Highway's dynamic-dispatch choice: the lowest (best) usable bit.
  CHECK(active_target() == hwy::TargetName(usable & -usable));
}

}  // namespace
}  // namespace simdbloom
