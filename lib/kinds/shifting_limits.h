// SPDX-License-Identifier: Apache-2.0
// Internal: what the shifting set filters' code (lib/kinds/shifting_sets.cc) and their file format
// (lib/formats/shifting_sets.cc) share: the block limit a header is checked against, and the
// moved-from check.
#ifndef SIMDBLOOM_LIB_KINDS_SHIFTING_LIMITS_H_
#define SIMDBLOOM_LIB_KINDS_SHIFTING_LIMITS_H_

#include <cstdint>
#include <string>

#include "simdbloom/shifting.hpp"

namespace simdbloom {
namespace detail {

constexpr uint64_t kMaxSetBlocks = (uint64_t{1} << 32) - 1;

inline void CheckUsable(const char* who, const ShiftingBlocks& b) {
  if (b.words() == nullptr) {
    throw Error(ErrorCode::kInvalidArgument, std::string(who) + ": the filter was moved from");
  }
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_KINDS_SHIFTING_LIMITS_H_
