// SPDX-License-Identifier: Apache-2.0
// simdbloom internal (detail/one_key.hpp): the single-key path of every other caller (baseline
// x86-64, other targets, ThreadSanitizer builds, SIMDBLOOM_ONE_KEY_PORTABLE): block512 and
// split_block256 by one call to the library's one-key table (one_key/table.hpp),
// register64 by the inline scalar loop; the spatial and counting cells out of line. Not an API of
// its own.
// First the chooser (one_key.hpp), which includes this file where its path needs it: included
// first, this file brings it, and its code then comes after what it needs.
#include "simdbloom/detail/one_key.hpp"

#ifndef SIMDBLOOM_DETAIL_ONE_KEY_PORTABLE_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_PORTABLE_HPP_

#if defined(SIMDBLOOM_ONE_KEY_PORTABLE_PATH)
namespace simdbloom::detail {
inline namespace one_key_portable {

// One call to the active target's one-key kernel in the library: on x86 with AVX2 at run
// time it still beats the inline scalar loops (perf/README.md, section single).
struct OneKey : OneKeyCellsOutOfLine {
  static constexpr const char* kName = "portable";
  SIMDBLOOM_INLINE static bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
    return Block512ContainsOne(block, h, k);
  }
  SIMDBLOOM_INLINE static bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
    return Block512InsertOne(block, h, k);
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Contains(const uint8_t* block, uint64_t h) {
    return SplitBlock256ContainsOne(block, h);
  }
  SIMDBLOOM_INLINE static bool SplitBlock256Insert(uint8_t* block, uint64_t h) {
    return SplitBlock256InsertOne(block, h);
  }
};

}  // namespace one_key_portable
}  // namespace simdbloom::detail
#endif  // SIMDBLOOM_ONE_KEY_PORTABLE_PATH

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_PORTABLE_HPP_
