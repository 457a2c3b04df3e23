// SPDX-License-Identifier: Apache-2.0
// The single-key loops of section single, compiled three times (single_isa.cc): with the
// toolchain's default flags, with -march=x86-64-v3 and with -march=x86-64-v4, as three callers of
// the installed header would be. Each copy has its own function name, uses raw pointers and the
// header's inline calls only (no std templates that a differently flagged copy could replace at
// link time), and reports which inline path it runs (detail::OneKey::kName).
#ifndef SIMDBLOOM_PERF_SINGLE_ISA_H_
#define SIMDBLOOM_PERF_SINGLE_ISA_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

namespace sbbench {

struct SingleLoopTimes {
  double insert, contains, contains_absent, contains_prefetch;  // best ns/key of `reps` passes
  double contains_prefetch_hashed;  // prefetch_hash / contains_hash of hash(key): hashed once
};

// Runs the loops on `f` (cleared before each insert pass; the last pass leaves `keys` inserted):
// insert(key); contains(key) of present and absent keys; contains with prefetch(key) 8 keys ahead;
// the same with each key hashed once (h = hash(key) 8 keys ahead, prefetch_hash(h), later
// contains_hash(h)), as a caller that prefetches can write it.
using SingleLoopsFn = const char* (*)(simdbloom::Filter& f, const uint64_t* keys,
                                      const uint64_t* absent, size_t n, int reps, double (*now)(),
                                      SingleLoopTimes* out, uint64_t* sink);

const char* SingleLoopsBaseline(simdbloom::Filter& f, const uint64_t* keys, const uint64_t* absent,
                                size_t n, int reps, double (*now)(), SingleLoopTimes* out,
                                uint64_t* sink);
#if defined(SIMDBLOOM_PERF_X86_LEVELS)
const char* SingleLoopsV3(simdbloom::Filter& f, const uint64_t* keys, const uint64_t* absent,
                          size_t n, int reps, double (*now)(), SingleLoopTimes* out,
                          uint64_t* sink);
const char* SingleLoopsV4(simdbloom::Filter& f, const uint64_t* keys, const uint64_t* absent,
                          size_t n, int reps, double (*now)(), SingleLoopTimes* out,
                          uint64_t* sink);
#endif

// The other kinds one key per call (section single, "other kinds"), each beside block512 of the
// same bytes holding the same keys: CountingFilter contains / count, SpatialFilter classify,
// ScalableFilter contains, over all n keys (present).
struct KindFilters {
  const simdbloom::CountingFilter* counting;
  const simdbloom::SpatialFilter* spatial;
  const simdbloom::ScalableFilter* scalable;
  const simdbloom::Filter* same_bytes[3];  // of counting's, spatial's and scalable's bytes
};
struct KindTimes {
  double counting_contains, counting_count, spatial_classify, scalable_contains;
  double same_bytes[3];  // block512 contains
};
using KindLoopsFn = void (*)(const KindFilters& f, const uint64_t* keys, size_t n, int reps,
                             double (*now)(), KindTimes* out, uint64_t* sink);
void KindLoopsBaseline(const KindFilters& f, const uint64_t* keys, size_t n, int reps,
                       double (*now)(), KindTimes* out, uint64_t* sink);
#if defined(SIMDBLOOM_PERF_X86_LEVELS)
void KindLoopsV3(const KindFilters& f, const uint64_t* keys, size_t n, int reps, double (*now)(),
                 KindTimes* out, uint64_t* sink);
void KindLoopsV4(const KindFilters& f, const uint64_t* keys, size_t n, int reps, double (*now)(),
                 KindTimes* out, uint64_t* sink);
#endif

// A caller level: the flags a copy of the loops was compiled with, and that copy.
struct CallerLevel {
  const char* name;  // "baseline", "x86-64-v3", "x86-64-v4"
  SingleLoopsFn fn;
  KindLoopsFn kinds;
};
// The levels this CPU runs, baseline first (single.cc).
std::vector<CallerLevel> CallerLevels();

}  // namespace sbbench

#endif  // SIMDBLOOM_PERF_SINGLE_ISA_H_
