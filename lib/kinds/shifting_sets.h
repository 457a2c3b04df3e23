// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): what the shifting set filters' single-key code (shifting_sets.cc),
// bulk calls (shifting_sets_bulk.cc) and file format (lib/formats/shifting_sets.cc) share: the
// block limit, the usable check, ShBF_A's offsets and answers, ShBF_x's count of a candidate
// word.
#ifndef SIMDBLOOM_LIB_KINDS_SHIFTING_SETS_H_
#define SIMDBLOOM_LIB_KINDS_SHIFTING_SETS_H_

#include <cstdint>

#include "kernels/shbf_ax/spec.h"
#include "lib/core/driver.h"
#include "simdbloom/shifting.hpp"

namespace simdbloom {
namespace detail {

// The most blocks a shifting set filter (and its file header) may have.
constexpr uint64_t kMaxSetBlocks = (uint64_t{1} << 32) - 1;

// "WHO: the filter was moved from" unless b holds its array (the bulk driver's message).
inline void CheckUsable(const char* who, const ShiftingBlocks& b) {
  if (b.words() == nullptr) RefuseMovedFrom(who);
}

// lo32(a * m) * range >> 32: a value in 0..range-1 from a product no bit position uses.
inline uint32_t Reduce(uint32_t a, uint32_t m, uint32_t range) {
  return static_cast<uint32_t>((uint64_t{a * m} * range) >> 32);
}

// ShBF_A's offsets of a hash: o1 in 1..31 (both sets), o2 in o1 + 1 .. o1 + 31 (S2 only).
struct AssocOffsets {
  uint32_t o1, o2;
};
inline AssocOffsets OffsetsOf(uint64_t h) {
  const uint32_t a = static_cast<uint32_t>(h);
  const uint32_t o1 = 1 + Reduce(a, kMultipliers.m[8], 31);
  return {o1, o1 + 1 + Reduce(a, kMultipliers.m[9], 31)};
}

// ShBF_A's answer for hash h from its candidate word: bit 0 S1 only, bit 1 both, bit 2 S2 only.
inline uint8_t AnswerOf(uint64_t cand, uint64_t h) {
  const AssocOffsets off = OffsetsOf(h);
  return static_cast<uint8_t>((cand & 1) | (((cand >> off.o1) & 1) << 1) |
                              (((cand >> off.o2) & 1) << 2));
}

// ShBF_x: the smallest count whose pattern is complete in `cand` (0: none of 1..max_count).
inline uint32_t SmallestCount(uint64_t cand, uint32_t max_count) {
  const uint64_t mask = max_count == 64 ? ~uint64_t{0} : (uint64_t{1} << max_count) - 1;
  cand &= mask;
  return cand == 0 ? 0 : static_cast<uint32_t>(__builtin_ctzll(cand)) + 1;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KINDS_SHIFTING_SETS_H_
