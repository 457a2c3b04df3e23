// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because the single-key calls are inline: what the inline code
// reaches in the library: the entries of its one-key table (the active target's one-key kernels)
// and the out-of-line paths of the layouts without an inline one. Not an API of its own.
#ifndef SIMDBLOOM_DETAIL_ONE_KEY_TABLE_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_TABLE_HPP_

#include <cstdint>

#include "simdbloom/detail/compiler.hpp"

namespace simdbloom {
namespace detail {

// The library's one-key table (kernels/dispatch.h): for each path one key takes out of line, the
// active SIMD target's kernel where it has one (on x86 AVX2 and up, block512's 8 probe masks,
// split_block256's, the counting and the spatial cells are a vector or two where the scalar loops
// need a multiply, a shift and a load per probe: one call still wins, perf/README.md, section
// single and design note M17), else the scalar loop. The library selects it with the target (when
// it starts, set_target, reset_target), and every kind reaches it the same way: one call to a
// function of the library below (or CountingCountOutOfLine, SpatialClassifyOutOfLine), which reads
// the table once and jumps to its entry. Only which code computes the same bits depends on it,
// never a result. (pure: they read memory and write none, so a caller's loop keeps its values in
// registers. Not noexcept, as the kernels they jump to: a noexcept frame could not end in a jump.)
bool Block512InsertOne(uint64_t* block, uint64_t h, uint32_t k);
SIMDBLOOM_PURE bool Block512ContainsOne(const uint64_t* block, uint64_t h, uint32_t k);
bool SplitBlock256InsertOne(uint8_t* block, uint64_t h);
SIMDBLOOM_PURE bool SplitBlock256ContainsOne(const uint8_t* block, uint64_t h);

// Layouts without an inline path (classic: k lines anywhere, whose misses dwarf a call; and any
// layout added later): out of line in the library, by layout id (simdbloom::Layout's value).
bool InsertHashOutOfLine(uint8_t layout, uint64_t* words, uint64_t num_blocks, uint32_t k,
                         uint64_t h) noexcept;
// (pure: it reads the words and writes nothing, so a caller's loop keeps its values in registers)
SIMDBLOOM_PURE bool ContainsHashOutOfLine(uint8_t layout, const uint64_t* words,
                                          uint64_t num_blocks, uint32_t k, uint64_t h) noexcept;
void PrefetchHashOutOfLine(uint8_t layout, const uint64_t* words, uint64_t num_blocks, uint32_t k,
                           uint64_t h) noexcept;

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_TABLE_HPP_
