// SPDX-License-Identifier: Apache-2.0
// One copy of the single-key loops (single_isa.h); SINGLE_LOOPS_NAME names it. CMake compiles this
// file once per caller level with that level's -march.
#include "single_isa.h"

namespace sbbench {

const char* SINGLE_LOOPS_NAME(simdbloom::Filter& f, const uint64_t* keys, const uint64_t* absent,
                              size_t n, int reps, double (*now)(), SingleLoopTimes* out,
                              uint64_t* sink) {
  uint64_t hits = 0;
  double best[5] = {1e300, 1e300, 1e300, 1e300, 1e300};
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
    // The same, each key hashed once: its hash waits 8 keys in a ring.
    uint64_t ring[8];
    t0 = now();
    for (size_t i = 0; i < 8 && i < n; ++i) {
      ring[i] = f.hash(keys[i]);
      f.prefetch_hash(ring[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t h = ring[i & 7];
      if (i + 8 < n) {
        ring[i & 7] = f.hash(keys[i + 8]);
        f.prefetch_hash(ring[i & 7]);
      }
      hits += f.contains_hash(h);
    }
    t1 = now();
    best[4] = best[4] < t1 - t0 ? best[4] : t1 - t0;
  }
  const double per = 1e9 / static_cast<double>(n);
  *out = {best[0] * per, best[1] * per, best[2] * per, best[3] * per, best[4] * per};
  *sink += hits;
  return simdbloom::detail::OneKey::kName;
}

// The other kinds' loops (single_isa.h); KIND_LOOPS_NAME names this copy.
void KIND_LOOPS_NAME(const KindFilters& f, const uint64_t* keys, size_t n, int reps,
                     double (*now)(), KindTimes* out, uint64_t* sink) {
  uint64_t hits = 0;
  double best[7] = {1e300, 1e300, 1e300, 1e300, 1e300, 1e300, 1e300};
  // Each loop's passes back to back (one filter's lines, not the previous loop's, in cache).
  auto time = [&](int slot, auto&& body) {
    for (int r = 0; r < reps; ++r) {
      const double t0 = now();
      for (size_t i = 0; i < n; ++i) hits += body(keys[i]);
      const double t = now() - t0;
      best[slot] = best[slot] < t ? best[slot] : t;
    }
  };
  time(0, [&](uint64_t key) { return f.counting->contains(key) ? 1u : 0u; });
  time(1, [&](uint64_t key) { return f.counting->count(key); });
  time(2, [&](uint64_t key) { return static_cast<uint32_t>(f.spatial->classify(key)); });
  time(3, [&](uint64_t key) { return f.scalable->contains(key) ? 1u : 0u; });
  for (int b = 0; b < 3; ++b) {
    time(4 + b, [&](uint64_t key) { return f.same_bytes[b]->contains(key) ? 1u : 0u; });
  }
  const double per = 1e9 / static_cast<double>(n);
  *out = {best[0] * per,
          best[1] * per,
          best[2] * per,
          best[3] * per,
          {best[4] * per, best[5] * per, best[6] * per}};
  *sink += hits;
}

}  // namespace sbbench
