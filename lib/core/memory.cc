// SPDX-License-Identifier: Apache-2.0
// Filter storage: zeroed, aligned, huge pages for large filters (lib/core/memory.h), and the
// process-wide huge-page switch (detail::SetHugePages, lib/core/layout.h).
#include "lib/core/memory.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Filters of this size and more are allocated 2 MiB-aligned in whole 2 MiB pages and advised
// MADV_HUGEPAGE, so Linux can back them with transparent huge pages: one TLB entry per 2 MiB
// instead of per 4 KiB, which removes most page walks of random access to a DRAM-sized filter.
constexpr uint64_t kHugePage = uint64_t{2} << 20;
constexpr uint64_t kHugePageMinBytes = kHugePage;
std::atomic<bool> g_huge_pages{true};

}  // namespace

void SetHugePages(bool enabled) { g_huge_pages.store(enabled, std::memory_order_relaxed); }

void* AllocateZeroed(uint64_t bytes, const char* what, const char* prefix) {
  if (bytes > SIZE_MAX - kHugePage) {
    throw Error(ErrorCode::kOutOfMemory, std::string(what) + " too large");
  }
  const bool huge = bytes >= kHugePageMinBytes && g_huge_pages.load(std::memory_order_relaxed);
  const uint64_t align = huge ? kHugePage : 64;
  const size_t rounded = static_cast<size_t>((bytes + align - 1) / align * align);
  void* p = nullptr;
  if (posix_memalign(&p, static_cast<size_t>(align), rounded) != 0 || p == nullptr) {
    throw Error(ErrorCode::kOutOfMemory,
                std::string(prefix) + "cannot allocate " + std::to_string(rounded) + " bytes");
  }
#ifdef MADV_HUGEPAGE
  // Advice only: without THP support the call fails harmlessly and 4 KiB pages are used.
  if (huge) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, rounded);  // faults the pages in (as huge pages where granted)
  return p;
}

}  // namespace detail
}  // namespace simdbloom
