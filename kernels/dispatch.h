// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): target selection, over the kernel tables of kernels/table.h.
#ifndef SIMDBLOOM_KERNELS_DISPATCH_H_
#define SIMDBLOOM_KERNELS_DISPATCH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/table.h"

namespace simdbloom {
namespace detail {

// The kernels bulk calls use now (see simdbloom::set_target). Throws simdbloom::Error if
// SIMDBLOOM_TARGET names an unknown target.
const Kernels& Active();
// The one-key table (detail/one_key/table.hpp): the active target's one-key kernels, the scalar
// loops where it has none; never a null entry. The scalar loops' until the library selects a
// target (constant-initialized), then the target's (set by target selection only; not in a
// ThreadSanitizer build, kernels/dispatch.cc). Read once per call, relaxed: only which code
// computes the same bits depends on it.
struct OneKeyTable {
  bool (*block512_insert)(uint64_t* block, uint64_t h, uint32_t k);
  bool (*block512_contains)(const uint64_t* block, uint64_t h, uint32_t k);
  bool (*split_block256_insert)(uint64_t* block, uint64_t h, uint32_t k);  // k = 8
  bool (*split_block256_contains)(const uint64_t* block, uint64_t h, uint32_t k);
  // The blocked counting filter's count of one key: the smallest of its k counters in its 4 words.
  uint32_t (*counting_count)(const uint64_t* words, uint64_t h, uint32_t k);
  // The spatial filter with 1-byte cells: the smallest of a key's k cells in its 64-byte block.
  uint32_t (*spatial_classify)(const uint8_t* block, uint64_t h, uint32_t k);
};
extern std::atomic<const OneKeyTable*> g_one_key;
inline const OneKeyTable& ActiveOneKey() noexcept {
  return *g_one_key.load(std::memory_order_relaxed);
}

// The compiled Highway target `hwy_target`, or nullptr if it was not compiled or this CPU lacks it.
const Kernels* ForHwyTarget(int64_t hwy_target);
// Every usable target, best first, the reference last.
std::vector<const Kernels*> Available();

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_DISPATCH_H_
