// SPDX-License-Identifier: Apache-2.0
// One copy of the single-key loops (single_isa.h); SINGLE_LOOPS_NAME names it. CMake compiles this
// file once per caller level with that level's -march.
#include "single_isa.h"

namespace sbbench {

const char* SINGLE_LOOPS_NAME(simdbloom::Filter& f, const uint64_t* keys, const uint64_t* absent,
                              size_t n, int reps, double (*now)(), SingleLoopTimes* out,
                              uint64_t* sink) {
  uint64_t hits = 0;
  double best[4] = {1e300, 1e300, 1e300, 1e300};
  for (int r = 0; r < reps; ++r) {
    f.clear();
    double t0 = now();
    for (size_t i = 0; i < n; ++i) hits += f.insert(keys[i]);
    double t1 = now();
    best[0] = best[0] < t1 - t0 ? best[0] : t1 - t0;
    t0 = now();
    for (size_t i = 0; i < n; ++i) hits += f.contains(keys[i]);
    t1 = now();
    best[1] = best[1] < t1 - t0 ? best[1] : t1 - t0;
    t0 = now();
    for (size_t i = 0; i < n; ++i) hits += f.contains(absent[i]);
    t1 = now();
    best[2] = best[2] < t1 - t0 ? best[2] : t1 - t0;
    t0 = now();
    for (size_t i = 0; i < n; ++i) {
      if (i + 8 < n) f.prefetch(keys[i + 8]);
      hits += f.contains(keys[i]);
    }
    t1 = now();
    best[3] = best[3] < t1 - t0 ? best[3] : t1 - t0;
  }
  const double per = 1e9 / static_cast<double>(n);
  *out = {best[0] * per, best[1] * per, best[2] * per, best[3] * per};
  *sink += hits;
  return simdbloom::detail::OneKey::kName;
}

}  // namespace sbbench
