// SPDX-License-Identifier: Apache-2.0
// The counting filters' scalar cell code (spec.h, lib/FORMAT.md "Counting filters"): one key at a
// time, counter by counter, over register64's and classic's probe positions (kernels/scalar/
// probes.h). Production: the library's single-key calls (lib/kinds/counting.cc); the oracle
// (reference.cc) applies it key by key as the "reference" target's counting kernels, which the
// Highway kernels are tested against. Plain C++, no target flags.
#ifndef SIMDBLOOM_KERNELS_COUNTING_SCALAR_H_
#define SIMDBLOOM_KERNELS_COUNTING_SCALAR_H_

#include <cstdint>

#include "kernels/counting/spec.h"
#include "kernels/scalar/probes.h"

namespace simdbloom {
namespace scalar {

// The distinct counter indices of hash h, in probe order; returns how many (<= k <= 32).
inline uint32_t CountingPositions(detail::CountingId id, const detail::Params& p, uint64_t h,
                                  uint64_t* pos) {
  uint32_t n = 0;
  if (id == detail::CountingId::kBlocked) {
    const uint64_t first = 16 * detail::CountingBlockedWords(h, p.num_blocks);
    const uint64_t mask = Register64Mask(h, p.k);
    for (uint32_t c = 0; c < 64; ++c) {
      if ((mask >> c) & 1) pos[n++] = first + c;
    }
  } else {
    const uint64_t step = ClassicStep(h);
    uint64_t g = h;
    for (uint32_t i = 0; i < p.k; ++i, g += step) {
      const uint64_t b = ClassicBit(g, p.num_blocks);
      bool seen = false;
      for (uint32_t j = 0; j < n; ++j) seen |= pos[j] == b;
      if (!seen) pos[n++] = b;
    }
  }
  return n;
}

inline uint32_t GetCounter(const uint64_t* counters, uint64_t i) {
  return static_cast<uint32_t>((counters[detail::CounterWord(i)] >> detail::CounterShift(i)) & 15);
}
inline void SetCounter(uint64_t* counters, uint64_t i, uint32_t v) {
  uint64_t& w = counters[detail::CounterWord(i)];
  w = (w & ~(uint64_t{15} << detail::CounterShift(i))) | (uint64_t{v} << detail::CounterShift(i));
}

// Increments each counter below 15; true if one was 0.
inline bool CountingInsert(detail::CountingId id, uint64_t* counters, const detail::Params& p,
                           uint64_t h) {
  uint64_t pos[32];
  const uint32_t n = CountingPositions(id, p, h, pos);
  bool fresh = false;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t c = GetCounter(counters, pos[i]);
    fresh |= c == 0;
    if (c < detail::CountingSpec::kMaxCount) SetCounter(counters, pos[i], c + 1);
  }
  return fresh;
}

// Decrements each counter below 15 if none is 0: 1, or 2 when every counter was at 15 (saturated:
// none changed); else changes nothing: 0.
inline uint8_t CountingRemove(detail::CountingId id, uint64_t* counters, const detail::Params& p,
                              uint64_t h) {
  uint64_t pos[32];
  const uint32_t n = CountingPositions(id, p, h, pos);
  for (uint32_t i = 0; i < n; ++i) {
    if (GetCounter(counters, pos[i]) == 0) return 0;
  }
  bool saturated = true;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t c = GetCounter(counters, pos[i]);
    if (c < detail::CountingSpec::kMaxCount) {
      SetCounter(counters, pos[i], c - 1);
      saturated = false;
    }
  }
  return saturated ? 2 : 1;
}

// The smallest counter of the key (0 = absent).
inline uint32_t CountingCount(detail::CountingId id, const uint64_t* counters,
                              const detail::Params& p, uint64_t h) {
  uint64_t pos[32];
  const uint32_t n = CountingPositions(id, p, h, pos);
  uint32_t m = detail::CountingSpec::kMaxCount;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t c = GetCounter(counters, pos[i]);
    m = c < m ? c : m;
  }
  return m;
}

// The blocked geometry's count of one key from its 4 `words`: the smallest of its k counters, read
// probe by probe (a counter two probes share is read twice, which leaves the minimum alone). A loop
// of fixed length k: walking the set bits of the key's mask was a loop of key-dependent length, and
// walking all 64 counters slower still (perf/README.md, design notes M1 and M16). The one-key
// table's entry where the target has no vector count (kernels/dispatch.cc).
inline uint32_t CountingBlockedCount(const uint64_t* words, uint64_t h, uint32_t k) {
  uint32_t m = detail::CountingSpec::kMaxCount;
  for (uint32_t i = 0; i < k; ++i) {
    const uint32_t v = GetCounter(words, detail::Register64Bit(h, i));
    m = v < m ? v : m;
  }
  return m;
}

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_COUNTING_SCALAR_H_
