// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the zeroed, huge-page-aware storage of every filter kind's bits
// (Filter's words, SpatialFilter's cells, the shifting set filters' blocks).
#ifndef SIMDBLOOM_LIB_CORE_MEMORY_H_
#define SIMDBLOOM_LIB_CORE_MEMORY_H_

#include <cstdint>

namespace simdbloom {
namespace detail {

// `bytes` of zeroed storage, 64-byte aligned, rounded up to whole cache lines (the padding stays
// zero); free it with std::free. From 2 MiB on, and while SetHugePages (below) has not
// turned them off, 2 MiB-aligned in whole 2 MiB pages and advised MADV_HUGEPAGE (see memory.cc).
// Errors: kOutOfMemory, "<what> too large" where bytes cannot be rounded up in a size_t, else
// "<prefix>cannot allocate N bytes".
void* AllocateZeroed(uint64_t bytes, const char* what, const char* prefix = "");

// Benchmarks only: whether filters of 2 MiB and more (every kind: detail::AllocateZeroed,
// lib/core/memory.h) ask for transparent huge pages (default true). Filters allocated afterwards
// follow the setting.
void SetHugePages(bool enabled);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_MEMORY_H_
