// SPDX-License-Identifier: Apache-2.0
// Filter's bulk calls: the kernels' driver over a key source (lib/core/key_source.cc), in pieces
// for the prefetch tuner (lib/core/prefetch.cc); result forms; the parallel forms.
#include "lib/core/bulk.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/dispatch.h"
#include "lib/core/driver.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/core/prefetch.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Pre-hashed keys on a guava (MITZ_64) filter: its probes need both halves of the key's 128-bit
// hash, which a 64-bit hash cannot carry (guava32 takes h1, all MITZ_32 reads).
void CheckPrehashed(const char* who, Layout layout, const Keys& keys) {
  if (layout == Layout::kGuava && keys.kind() == Keys::Kind::kPrehashed && keys.size() != 0) {
    Invalid(std::string(who) +
            ": pre-hashed keys on a guava filter: its probes need both 64-bit halves of the "
            "key's Murmur3 x64 128 hash; pass the keys (guava32 takes Filter::hash values)");
  }
}

Params BulkParams(const Filter& f) {
  Params p{f.num_blocks(), f.num_hashes(), f.seed()};
  p.prefetch_distance = PrefetchDistance(f);
  p.query_prefetch_probes = QueryPrefetchProbes(f.layout(), f.size_bytes());
  return p;
}

const uint64_t* WordsOf(const Filter& f) { return reinterpret_cast<const uint64_t*>(f.data()); }

// Throws unless the output of n keys in form `result` at `out` fits the address space.
void CheckResult(const char* who, ResultKind result, const void* out, size_t n) {
  switch (result) {
    case ResultKind::kBytes:
      CheckExtent(who, "result bytes", out, n, 1);
      break;
    case ResultKind::kBitmap:
      CheckExtent(who, "bitmap bytes", out, n / 8 + (n % 8 != 0), 1);
      break;
    case ResultKind::kSelection:
      CheckExtent(who, "selection entries", out, n, 4);
      break;
  }
}

// Tests n keys (key i = keys[sel[i]] when sel is set) and writes `result` to `out`, keys reaching
// the kernels as `plan` says (results of keys out of a kInt32 filter's range not yet cleared).
// `plan` null: validates the keys and the output, plans them and clears those results.
uint64_t Query(const char* who, const Filter& f, const Keys& keys, const uint32_t* sel, size_t n,
               ResultKind result, void* out, const KeyPlan* plan = nullptr) {
  if (f.data() == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (n == 0) return 0;
  if (out == nullptr) Invalid(std::string(who) + ": null output with non-zero size");
  if (plan == nullptr) {
    ValidateKeys(who, keys);
    CheckResult(who, result, out, n);
    CheckPrehashed(who, f.layout(), keys);
    const KeyPlan own = PlanKeys(who, f.key_type(), keys, false);
    const uint64_t hits = Query(who, f, keys, sel, n, result, out, &own);
    return own.out_of_range ? ClearOutOfRange(keys, sel, n, result, out, hits) : hits;
  }
  const LayoutId id = IdOf(f.layout());
  StringHasher hasher;
  KeySource src = SourceFor(id, keys, *plan, f.seed(), &hasher);
  src.sel = sel;
  const LayoutKernels& kernels = Active().For(id);
  Params p = BulkParams(f);
  DistanceTuner tuner(f, n, sel != nullptr, &p);
  uint64_t selected = 0;
  // Keys [begin, begin + m), read from h (begin is 0 when sel is set: such calls run whole).
  return OverPieces(src, n, tuner, [&](const KeySource& h, size_t begin, size_t m) {
    return ResultsOfPiece(result, out, begin, &selected, [&](void* piece_out) {
      return kernels.contains(WordsOf(f), p, h, m, result, piece_out);
    });
  });
}

// Parallel inserts without atomics use private copies of the filter only while they take at most
// this much memory together; beyond it, atomic ORs.
constexpr uint64_t kMaxPrivateCopyBytes = uint64_t{1} << 30;
// ... and only for batches of at least one key per 8 bytes of filter (see InsertBulk).
constexpr uint64_t kMinKeysPerCopyByte = 8;

// Runs fn(begin, end) over n_words 64-byte-aligned words split into `parts` ranges (multiples of 8
// words), on parts - 1 new threads and this one.
template <class Fn>
void RunParallelWords(size_t parts, size_t n_words, const Fn& fn) {
  const size_t per = ((n_words + parts - 1) / parts + 7) / 8 * 8;
  std::vector<std::thread> pool;
  for (size_t t = 1; t < parts; ++t) {
    const size_t begin = std::min(n_words, t * per), end = std::min(n_words, begin + per);
    if (begin >= end) continue;
    try {
      pool.emplace_back(fn, begin, end);
    } catch (const std::system_error&) {
      fn(begin, end);
    }
  }
  fn(size_t{0}, std::min(n_words, per));
  for (std::thread& th : pool) th.join();
}

}  // namespace

uint64_t QueryHashes(const Filter& f, const uint64_t* hashes, size_t n, ResultKind result,
                     void* out) {
  const Keys keys(Prehashed{hashes, n});
  const KeyPlan plan;  // pre-hashed keys bypass key types
  return Query("FilterSet", f, keys, nullptr, n, result, out, &plan);
}

}  // namespace detail

using detail::Invalid;
using detail::ResultKind;

uint64_t Filter::InsertBulk(const Keys& keys, uint8_t* fresh, bool atomic, unsigned threads) {
  CheckWritable(atomic && threads <= 1 ? "insert_concurrent" : "insert");
  if (keys.size() == 0) return 0;
  const detail::LayoutId id = detail::IdOf(layout_);
  // every argument error before anything is written or any thread starts
  const char* who = atomic && threads <= 1 ? "insert_concurrent" : "insert";
  detail::ValidateKeys(who, keys);
  detail::CheckPrehashed(who, layout_, keys);
  if (fresh != nullptr) detail::CheckExtent(who, "fresh bytes", fresh, keys.size(), 1);
  const detail::KeyPlan plan = detail::PlanKeys(who, key_type(), keys, true);
  if (plan.type != key_type()) {
    // Other insert_concurrent calls may race for a kNone filter's type: claimed atomically.
    if (atomic) {
      ClaimKeyType(who, plan.type);
    } else {
      FilterAccess::SetKeyType(*this, plan.type);
    }
  }
  const detail::LayoutKernels& kernels = detail::Active().For(id);
  const detail::Params p = detail::BulkParams(*this);
  std::atomic<uint64_t> changed{0};
  bool tune = false;  // set below: true when the call runs as one part
  auto insert_part = [&](uint64_t* words, bool use_atomic, size_t begin, size_t end) {
    // The whole call's keys are used as they are: a copy of Keys stalls on the caller's stores
    // (perf/README.md, design note M15).
    const bool whole = begin == 0 && end == keys.size();
    const Keys slice = whole ? Keys(static_cast<const uint64_t*>(nullptr), 0)
                             : detail::SliceKeys(keys, begin, end - begin);
    const Keys& part = whole ? keys : slice;
    detail::StringHasher hasher;
    const detail::KeySource src = detail::SourceFor(id, part, plan, seed_, &hasher);
    uint8_t* out = fresh != nullptr ? fresh + begin : nullptr;
    // A sequential, non-atomic call may tune the prefetch distance on its keys.
    detail::Params lp = p;
    detail::DistanceTuner tuner(*this, tune && !use_atomic ? end - begin : 0, false, &lp);
    auto run = [&](const detail::KeySource& s, size_t at, size_t m) {
      uint8_t* o = out != nullptr ? out + at : nullptr;
      return use_atomic ? kernels.insert_atomic(words, lp, s, m, o)
                        : kernels.insert(words, lp, s, m, o);
    };
    changed.fetch_add(detail::OverPieces(src, end - begin, tuner, run), std::memory_order_relaxed);
  };
  size_t parts = detail::PartsFor(threads, keys.size());
  // A batch small against the filter: zeroing and ORing a copy costs more than the share of keys
  // it takes off this thread (and atomic ORs cost ~6 ns a word), so it runs on this thread.
  // A copy costs ~3 streaming passes of size_bytes(); a key ~2-10 ns: below one key per 8 bytes
  // of filter the copy loses (an 8 MiB batch of 100k lines into a 1 GB filter on 2 threads took
  // 2.5x one thread's time before this rule).
  if (parts > 1 && !atomic && fresh == nullptr &&
      keys.size() * detail::kMinKeysPerCopyByte < size_bytes()) {
    parts = 1;
  }
  if (parts > 1 && !atomic && fresh == nullptr &&
      (parts - 1) * size_bytes() <= detail::kMaxPrivateCopyBytes) {
    // Parallel insert without atomics: part 0 into this filter, part t into a private zeroed copy
    // (allocated by its own thread), then the copies ORed in, split by word ranges. Same bytes as
    // a sequential insert (OR is commutative); a locked RMW per word costs ~k x 6 ns a key.
    // Each thread allocates (and so faults in) its own copy; a share whose copy cannot be
    // allocated is inserted into this filter afterwards, by this thread.
    std::vector<std::unique_ptr<Filter>> copies(parts);
    std::vector<std::pair<size_t, size_t>> deferred(parts, {0, 0});
    detail::RunParallel(static_cast<unsigned>(parts), keys.size(), 1,
                        [&](size_t part, size_t begin, size_t end) {
                          if (part == 0) {
                            insert_part(words_, false, begin, end);
                            return;
                          }
                          try {
                            copies[part] = std::make_unique<Filter>(
                                FilterAccess::Make(layout_, num_blocks_, k_, seed_, key_type()));
                          } catch (const std::exception&) {
                            deferred[part] = {begin, end};
                            return;
                          }
                          insert_part(FilterAccess::Words(*copies[part]), false, begin, end);
                        });
    for (const auto& d : deferred) {
      if (d.first < d.second) insert_part(words_, false, d.first, d.second);
    }
    const size_t n_words = size_bytes() / 8;
    const detail::Kernels& k = detail::Active();
    detail::RunParallelWords(parts, n_words, [&](size_t begin, size_t end) {
      for (const auto& c : copies) {
        if (c) k.or_words(words_ + begin, FilterAccess::Words(*c) + begin, end - begin);
      }
    });
    __atomic_fetch_add(&inserted_, keys.size(), __ATOMIC_RELAXED);
    return changed.load(std::memory_order_relaxed);
  }
  // Several threads with per-key results, or other writers (insert_concurrent): atomic ORs.
  const bool use_atomic = atomic || parts > 1;
  tune = parts == 1;
  detail::RunParallel(
      static_cast<unsigned>(parts), keys.size(), 1,
      [&](size_t, size_t begin, size_t end) { insert_part(words_, use_atomic, begin, end); });
  __atomic_fetch_add(&inserted_, keys.size(), __ATOMIC_RELAXED);
  return changed.load(std::memory_order_relaxed);
}

uint64_t Filter::insert(const Keys& keys) { return InsertBulk(keys, nullptr, false, 1); }

uint64_t Filter::insert(const Keys& keys, uint8_t* fresh) {
  if (fresh == nullptr && keys.size() != 0) Invalid("insert: null fresh output with non-zero size");
  return InsertBulk(keys, fresh, false, 1);
}

uint64_t Filter::insert(const Keys& keys, Threads threads) {
  return InsertBulk(keys, nullptr, false, threads.count);
}

uint64_t Filter::insert(const Keys& keys, uint8_t* fresh, Threads threads) {
  if (fresh == nullptr && keys.size() != 0) Invalid("insert: null fresh output with non-zero size");
  return InsertBulk(keys, fresh, false, threads.count);
}

uint64_t Filter::insert_concurrent(const Keys& keys) { return InsertBulk(keys, nullptr, true, 1); }

uint64_t Filter::insert_concurrent(const Keys& keys, uint8_t* fresh) {
  if (fresh == nullptr && keys.size() != 0) {
    Invalid("insert_concurrent: null fresh output with non-zero size");
  }
  return InsertBulk(keys, fresh, true, 1);
}

uint64_t Filter::contains(const Keys& keys, uint8_t* out) const {
  return detail::Query("contains", *this, keys, nullptr, keys.size(), ResultKind::kBytes, out);
}

uint64_t Filter::contains_bitmap(const Keys& keys, uint8_t* bitmap) const {
  return detail::Query("contains_bitmap", *this, keys, nullptr, keys.size(), ResultKind::kBitmap,
                       bitmap);
}

uint64_t Filter::select(const Keys& keys, uint32_t* selection) const {
  if (keys.size() > (uint64_t{1} << 32)) {
    Invalid("select: more than 2^32 keys do not fit 32-bit selection indices");
  }
  return detail::Query("select", *this, keys, nullptr, keys.size(), ResultKind::kSelection,
                       selection);
}

uint64_t Filter::refine(const Keys& keys, uint32_t* selection, size_t count) const {
  if (count == 0) return 0;
  if (selection == nullptr) Invalid("refine: null selection with non-zero count");
  detail::CheckExtent("refine", "selection entries", selection, count, 4);
  for (size_t i = 0; i < count; ++i) {
    if (selection[i] >= keys.size()) {
      Invalid("refine: selection[" + std::to_string(i) + "] = " + std::to_string(selection[i]) +
              " is not below the number of keys, " + std::to_string(keys.size()));
    }
  }
  return detail::Query("refine", *this, keys, selection, count, ResultKind::kSelection, selection);
}

void Filter::hash(const Keys& keys, uint64_t* out) const {
  if (keys.size() == 0) return;
  if (out == nullptr) Invalid("hash: null output with non-zero size");
  const detail::LayoutId id = detail::IdOf(layout_);
  detail::ValidateKeys("hash", keys);
  detail::CheckExtent("hash", "hashes", out, keys.size(), 8);
  const detail::KeyPlan plan = detail::PlanKeys("hash", key_type(), keys, false);
  if (plan.out_of_range) {  // such a key has no hash: refused as hash(key) refuses it
    for (size_t i = 0;; ++i) {
      if (detail::OutOfInt32(keys, i)) {
        uint64_t bits;
        std::memcpy(&bits, static_cast<const uint64_t*>(keys.keys()) + i, 8);
        detail::RefuseIntKey("hash", key_type(), bits, keys.kind() == Keys::Kind::kI64);
      }
    }
  }
  if (detail::InfoOf(id).murmur128) {
    detail::HashKeysMurmur(keys, plan, seed_, out);
  } else {
    detail::HashKeysAs(keys, plan, detail::InfoOf(id).xxh64, seed_, out);
  }
}

namespace detail {
namespace {

// A query split across threads: each part writes its own stretch of the output.
uint64_t ParallelQuery(const char* who, const Filter& f, const Keys& keys, ResultKind result,
                       void* out, unsigned threads) {
  if (f.data() == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (keys.size() == 0) return 0;
  if (out == nullptr) Invalid(std::string(who) + ": null output with non-zero size");
  ValidateKeys(who, keys);  // errors before threads start
  CheckPrehashed(who, f.layout(), keys);
  CheckResult(who, result, out, keys.size());
  const KeyPlan plan = PlanKeys(who, f.key_type(), keys, false);
  // Per-part state for the parts RunParallel makes, not for every thread asked for.
  threads = static_cast<unsigned>(PartsFor(threads, keys.size()));
  std::vector<uint64_t> counts(threads, 0);
  std::vector<size_t> begins(counts.size(), 0);
  // Bitmap parts start on whole bytes.
  const size_t align = result == ResultKind::kBitmap ? 8 : 1;
  RunParallel(threads, keys.size(), align, [&](size_t part, size_t begin, size_t end) {
    const Keys slice = SliceKeys(keys, begin, end - begin);
    void* at = result == ResultKind::kBytes ? static_cast<void*>(static_cast<uint8_t*>(out) + begin)
               : result == ResultKind::kBitmap
                   ? static_cast<void*>(static_cast<uint8_t*>(out) + begin / 8)
                   : static_cast<void*>(static_cast<uint32_t*>(out) + begin);
    counts[part] = Query(who, f, slice, nullptr, end - begin, result, at, &plan);
    begins[part] = begin;
    if (result == ResultKind::kSelection) {  // the part's indices are relative to its begin
      uint32_t* sel = static_cast<uint32_t*>(at);
      for (uint64_t i = 0; i < counts[part]; ++i) sel[i] += static_cast<uint32_t>(begin);
    }
  });
  uint64_t total = 0;
  for (size_t part = 0; part < counts.size(); ++part) {
    if (result == ResultKind::kSelection && counts[part] != 0 && begins[part] != total) {
      uint32_t* sel = static_cast<uint32_t*>(out);
      std::memmove(sel + total, sel + begins[part], counts[part] * sizeof(uint32_t));
    }
    total += counts[part];
  }
  return plan.out_of_range ? ClearOutOfRange(keys, nullptr, keys.size(), result, out, total)
                           : total;
}

}  // namespace
}  // namespace detail

uint64_t Filter::contains(const Keys& keys, uint8_t* out, Threads threads) const {
  return detail::ParallelQuery("contains", *this, keys, ResultKind::kBytes, out, threads.count);
}

uint64_t Filter::contains_bitmap(const Keys& keys, uint8_t* bitmap, Threads threads) const {
  return detail::ParallelQuery("contains_bitmap", *this, keys, ResultKind::kBitmap, bitmap,
                               threads.count);
}

uint64_t Filter::select(const Keys& keys, uint32_t* selection, Threads threads) const {
  if (keys.size() > (uint64_t{1} << 32)) {
    Invalid("select: more than 2^32 keys do not fit 32-bit selection indices");
  }
  return detail::ParallelQuery("select", *this, keys, ResultKind::kSelection, selection,
                               threads.count);
}

}  // namespace simdbloom
