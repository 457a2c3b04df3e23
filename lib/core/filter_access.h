// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the library's own access to a Filter's internals.
#ifndef SIMDBLOOM_LIB_CORE_FILTER_ACCESS_H_
#define SIMDBLOOM_LIB_CORE_FILTER_ACCESS_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "simdbloom/simdbloom.hpp"

namespace simdbloom {

// The library's own access to a filter's internals (declared a friend by Filter).
struct FilterAccess {
  // An owning, zeroed filter; parameters must already be valid.
  static Filter Make(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                     KeyType key_type);
  // A read-only view over `words` (64-byte aligned, valid parameters).
  static Filter MakeView(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                         KeyType key_type, const uint64_t* words);
  // Sets the key type as a file or the library decides it (no Declare rules).
  static void SetKeyType(Filter& f, KeyType type) {
    f.keys_.Set(type);
    f.UpdateFast();
  }
  // The key typing of a bulk insert, which may fix kNone (lib/core/key_source.h, PlanKeys).
  static detail::KeyTyping& Typing(Filter& f) { return f.keys_; }
  static void Refresh(Filter& f) { f.UpdateFast(); }
  static uint64_t* Words(Filter& f) { return f.words_; }
  static void SetInserted(Filter& f, uint64_t n) { f.inserted_ = n; }
  // Makes a view own what keeps its bytes alive (a file mapping).
  static void Keep(Filter& f, std::shared_ptr<const void> keeper) { f.keeper_ = std::move(keeper); }
  // Whether f is a view over a mapping map_file made (Keep holds it), for the read-only errors.
  static bool Mapped(const Filter& f) noexcept { return f.keeper_ != nullptr; }
};

}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_FILTER_ACCESS_H_
