// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): what Filter's bulk calls (lib/core/bulk.cc) share with the library's
// other multi-key calls (lib/core/filter_set.cc): the parallel runner, and queries of pre-hashed
// keys without the public calls' checks.
#ifndef SIMDBLOOM_LIB_CORE_BULK_H_
#define SIMDBLOOM_LIB_CORE_BULK_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "kernels/interface.h"
#include "kernels/registry.h"
#include "lib/core/key_types.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

// Below this many keys per thread, starting a thread costs more than it saves.
constexpr size_t kMinKeysPerThread = 32768;

// At most this many threads for one call (the command's --threads limit): more never helps, and
// a call's memory (a count and a start per part) stays bounded whatever Threads{T} asks.
constexpr size_t kMaxThreads = 256;

// How many parts RunParallel splits n keys into for `threads`: at most one per `min_keys` keys
// (kMinKeysPerThread, or fewer for calls that do more work per key) and kMaxThreads. Callers size
// per-part state by it, never by `threads`.
inline size_t PartsFor(unsigned threads, size_t n, size_t min_keys = kMinKeysPerThread) {
  const size_t t = std::min<size_t>(kMaxThreads, std::max<size_t>(1, threads));
  return std::min(t, std::max<size_t>(1, n / std::max<size_t>(1, min_keys)));
}

// Runs fn(part, begin, end) over [0, n) split into PartsFor(threads, n, min_keys) contiguous parts
// (each but the last a multiple of `align` keys), on threads - 1 new threads and the calling one;
// joins them and rethrows the first exception. A thread that cannot be started runs its part here.
template <class Fn>
void RunParallel(unsigned threads, size_t n, size_t align, const Fn& fn,
                 size_t min_keys = kMinKeysPerThread) {
  const size_t t = PartsFor(threads, n, min_keys);
  if (t <= 1) {
    fn(size_t{0}, size_t{0}, n);
    return;
  }
  size_t per = (n + t - 1) / t;
  per = (per + align - 1) / align * align;
  std::vector<std::exception_ptr> errors(t);
  std::vector<std::thread> pool;
  pool.reserve(t);
  auto run = [&](size_t part) {
    const size_t begin = std::min(n, part * per), end = std::min(n, begin + per);
    try {
      if (begin < end) fn(part, begin, end);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  for (size_t part = 1; part < t; ++part) {
    try {
      pool.emplace_back(run, part);
    } catch (const std::system_error&) {
      run(part);
    }
  }
  run(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// Filter::insert(keys, Threads{T}) on a blocked layout (block512, register64, split_block256,
// shifting) partitions the keys by block range among the threads when the filter has at least
// PartitionMinBytes() bytes, or when private copies would not be used (lib/core/bulk.cc);
// otherwise it ORs private copies. Tests lower it with SetPartitionMinBytes (a relaxed atomic: set
// it between calls). The partitioned insert: lib/core/partitioned_insert.cc.
constexpr uint64_t kDefaultPartitionMinBytes = uint64_t{64} << 20;
uint64_t PartitionMinBytes();
void SetPartitionMinBytes(uint64_t bytes);
// Whether every probe of a key lies in its block, BlockOf(hash, num_blocks) (else 0), and how many
// blocks make a 64-byte line (thread ranges start on a line: no line is written by two threads).
uint32_t BlocksPerLine(LayoutId id);
// Inserts `keys` (validated and planned, n > 0) into `words` (layout `id`, BlocksPerLine(id) > 0)
// on up to `parts` threads (this one among them), each owning a range of blocks; the count of
// keys that set a clear bit, exactly the single-threaded insert's, goes to *count. Returns false,
// having written nothing, if a thread could not be started.
bool PartitionedInsert(uint64_t* words, LayoutId id, const Params& p, const Keys& keys,
                       const KeyPlan& plan, uint64_t seed, size_t parts, uint64_t* count);

// Tests n pre-hashed keys (values of f.hash()) against f, which must not be moved from, and
// writes `result` to `out` (n > 0, out valid: the caller checked both). The bulk calls' kernels,
// prefetch and tuner, without their argument checks.
uint64_t QueryHashes(const Filter& f, const uint64_t* hashes, size_t n, ResultKind result,
                     void* out);

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_BULK_H_
