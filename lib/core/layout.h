// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): per-layout constants shared by construction, sizing and statistics.
#ifndef SIMDBLOOM_LIB_CORE_LAYOUT_H_
#define SIMDBLOOM_LIB_CORE_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "kernels/dispatch.h"
#include "kernels/registry.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

constexpr uint64_t kMaxBlocks = (uint64_t{1} << 32) - 1;
// The Guava layouts' most longs: Guava counts them in a Java int (its writeTo form too).
constexpr uint64_t kMaxGuavaLongs = (uint64_t{1} << 31) - 1;

[[noreturn]] inline void Invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

// The registry's entry of `layout` (kernels/registry.h), or nullptr for an unknown value.
inline const LayoutInfo* InfoOf(Layout layout) { return FindLayout(static_cast<uint8_t>(layout)); }
inline bool KnownLayout(Layout layout) { return InfoOf(layout) != nullptr; }

inline LayoutId IdOf(Layout layout) { return static_cast<LayoutId>(layout); }

// Probes per key a layout allows (the layout must be known).
inline uint32_t MinK(Layout layout) { return InfoOf(layout)->min_k; }
inline uint32_t MaxK(Layout layout) { return InfoOf(layout)->max_k; }
// Whether the layout hashes with XXH64 (else XXH3).
inline bool UsesXxh64(Layout layout) { return InfoOf(layout)->xxh64; }

// Throws Error(kInvalidArgument) unless `layout` is known and k is in its range; `who` names the
// calling function in the message.
inline void CheckLayoutAndK(const char* who, Layout layout, uint32_t k) {
  if (!KnownLayout(layout)) {
    Invalid(std::string(who) + ": unknown layout " +
            std::to_string(static_cast<int>(static_cast<uint8_t>(layout))));
  }
  if (k < MinK(layout) || k > MaxK(layout)) {
    Invalid(std::string(who) + ": k = " + std::to_string(k) + " is outside " +
            std::to_string(MinK(layout)) + ".." + std::to_string(MaxK(layout)) + " for " +
            layout_name(layout));
  }
}

// Whole blocks holding at least `bits` bits.
inline uint64_t BlocksFor(uint64_t bits, uint32_t block_bits) {
  return bits / block_bits + (bits % block_bits != 0);
}

// The false-positive model of `layout` (its folder's model.cc, FORMAT.md) with n distinct keys in
// num_blocks blocks; 0 for n <= 0.
inline double ModelFpr(Layout layout, uint32_t k, double n, uint64_t num_blocks) {
  return n <= 0 ? 0 : InfoOf(layout)->model_fpr(k, n, num_blocks);
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_LAYOUT_H_
