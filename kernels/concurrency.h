// SPDX-License-Identifier: Apache-2.0
// Words that several threads touch at once: the atomic OR of concurrent inserts, the relaxed load
// of single-key queries, and the ThreadSanitizer scope of the bulk queries' documented read race.
// No SIMD, no target flags.
#ifndef SIMDBLOOM_KERNELS_CONCURRENCY_H_
#define SIMDBLOOM_KERNELS_CONCURRENCY_H_

#include <cstdint>

#include "simdbloom/detail/compiler.hpp"  // SIMDBLOOM_TSAN, defined once

#if SIMDBLOOM_TSAN
// ThreadSanitizer's dynamic annotations (its runtime defines them).
extern "C" void AnnotateIgnoreReadsBegin(const char* file, int line);
extern "C" void AnnotateIgnoreReadsEnd(const char* file, int line);
#endif

namespace simdbloom {
namespace detail {

// ORs `mask` into *word atomically (relaxed order: membership needs no ordering) and returns the
// bits of mask that were clear before. A zero mask touches nothing.
// A relaxed load first: bits already set need no locked instruction (a locked RMW is slow and
// stalls later loads on x86: perf/README.md, design note M9), and bits only ever go from 0 to 1, so
// "already set" stays true.
inline uint64_t AtomicOr(uint64_t* word, uint64_t mask) {
  return mask & ~__atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
}

// The bulk query kernels read a filter's words with plain vector loads while insert_concurrent may
// OR into them (AtomicOr). That race is the documented contract: bits only go from 0 to 1 and an
// aligned 8-byte word is never torn on the supported CPUs, so a query sees every key inserted
// before it began and, of a key being inserted, some of its bits. Under ThreadSanitizer the bulk
// query pipeline holds a ReadRaceScope around each step's apply (the filter's loads and the tile's
// own result bytes) and nothing else: the runtime then ignores that thread's accesses (reads and
// writes alike: AnnotateIgnoreReads* is ThreadIgnoreBegin/End), while hashing the caller's keys,
// writing the caller's results and every other thread's accesses stay checked. A no-op in every
// other build. (Single-key queries need none: they read with relaxed atomic loads, and the one-key
// kernels are not published in a ThreadSanitizer build, kernels/dispatch.cc.)
struct ReadRaceScope {
#if SIMDBLOOM_TSAN
  ReadRaceScope() { AnnotateIgnoreReadsBegin(__FILE__, __LINE__); }
  ~ReadRaceScope() { AnnotateIgnoreReadsEnd(__FILE__, __LINE__); }
#else
  ReadRaceScope() {}  // user-provided: a scope object, not an unused variable
#endif
  ReadRaceScope(const ReadRaceScope&) = delete;
  ReadRaceScope& operator=(const ReadRaceScope&) = delete;
};
// A ReadRaceScope for a query (kActive), nothing for the other operations.
template <bool kActive>
struct ReadRaceScopeIf : ReadRaceScope {
  ReadRaceScopeIf() {}
};
template <>
struct ReadRaceScopeIf<false> {
  ReadRaceScopeIf() {}
};

// Reads a word that a concurrent AtomicOr may be writing (relaxed: a plain load on every supported
// CPU, but defined behaviour and visible to ThreadSanitizer as such). Every ScalarContains
// reads through it, because scalar_contains is also the single-key query path of layouts without an
// inline one.
template <typename T>
inline T LoadRelaxed(const T* word) {
  return __atomic_load_n(word, __ATOMIC_RELAXED);
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_CONCURRENCY_H_
