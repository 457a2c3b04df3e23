// SPDX-License-Identifier: Apache-2.0
// Internal: a counting layout's limits, which the sizing and single-key code
// (lib/kinds/counting.cc) and the file format (lib/formats/counting.cc: a header is checked against
// them) share.
#ifndef SIMDBLOOM_LIB_KINDS_COUNTING_LIMITS_H_
#define SIMDBLOOM_LIB_KINDS_COUNTING_LIMITS_H_

#include <cstdint>

#include "kernels/counting/spec.h"
#include "simdbloom/counting.hpp"

namespace simdbloom {
namespace detail {
namespace counting {

constexpr uint64_t kClassicMaxUnits = (uint64_t{1} << 30) - 1;  // store_: 4 units per 64 bytes

inline bool Known(CountingLayout layout) {
  return layout == CountingLayout::kBlocked || layout == CountingLayout::kClassic;
}
inline CountingId IdOf(CountingLayout layout) { return static_cast<CountingId>(layout); }
inline uint32_t MaxK(CountingLayout layout) {
  return layout == CountingLayout::kBlocked ? CountingSpec::kBlockedMaxK
                                            : CountingSpec::kClassicMaxK;
}
inline uint64_t MaxBlocks(CountingLayout layout) {
  return layout == CountingLayout::kBlocked ? CountingSpec::kBlockedMaxBlocks : kClassicMaxUnits;
}
inline uint64_t CountersPerBlock(CountingLayout layout) {
  return layout == CountingLayout::kBlocked ? CountingSpec::kBlockedCounters
                                            : CountingSpec::kClassicCounters;
}
inline uint64_t BytesOf(CountingLayout layout, uint64_t num_blocks) {
  return CountingBytes(IdOf(layout), num_blocks);
}

}  // namespace counting
}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KINDS_COUNTING_LIMITS_H_
