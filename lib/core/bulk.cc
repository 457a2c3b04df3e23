// SPDX-License-Identifier: Apache-2.0
// Filter's bulk calls: the kernels' driver over a key source (lib/core/key_source.cc), in pieces
// for the prefetch tuner (lib/core/prefetch.cc); result forms; the parallel forms.
#include "lib/core/bulk.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

const uint64_t* WordsOf(const Filter& f) { return reinterpret_cast<const uint64_t*>(f.data()); }

// Filter for the bulk driver (lib/core/driver.h): its layout's kernels, hash family and tuner row.
struct FilterBulk : KindBulk<simdbloom::Filter, false, LayoutKernels, Params, KeyKind::kU64> {
  static void CheckKeys(const char* who, const Filter& f, const Keys& keys) {
    CheckPrehashed(who, f.layout(), keys);
  }
  static TuneTarget Tune(const Filter& f) { return TuneTarget::Of(f); }
  static const Table& Kernels(const Filter& f) { return Active().For(IdOf(f.layout())); }
  static P ParamsOf(const Filter& f) {
    P p{f.num_blocks(), f.num_hashes(), f.seed()};
    p.query_prefetch_probes = QueryPrefetchProbes(f.layout(), f.size_bytes());
    return p;
  }
  static KeySource Source(const Filter& f, const Keys& keys, const KeyPlan& plan,
                          StringHasher* hasher) {
    return SourceFor(IdOf(f.layout()), keys, plan, f.seed(), hasher);
  }
  static uint64_t Run(const Table& k, const Filter& f, const BulkCall& c, const P& p,
                      const KeySource& s, size_t m, void* out) {
    return k.contains(WordsOf(f), p, s, m, ResultOf(c.form), out);
  }
};

// A short call (1 to kShortKeys keys: a packet burst) of u64/i64 keys on a filter of int64 keys
// (or legacy ones, or none yet for a query), u32/i32 keys on one of int32 (or legacy) keys, or
// pre-hashed values, on block512, register64 or split_block256, goes straight to its layout's
// kernel: such keys need no plan and no conversion, and a call that short no tuner and no
// prefetch distance (its few loads overlap in the core anyway); RunBulk's general checks and
// steps cost an 8-key call about a quarter of its instructions (perf/README.md, design note
// M30). ShortCallOf says whether the keys and filter qualify and sets their source; the caller
// checks its output. Anything else, and every refusal, goes through RunBulk (queries) or the rest
// of InsertBulk, with the same results.
constexpr size_t kShortKeys = 32;
bool ShortCallOf(const Filter& f, const Keys& keys, bool insert, KeySource* src) {
  const size_t n = keys.size();
  const Layout layout = f.layout();
  if (n - 1 >= kShortKeys || f.data() == nullptr ||
      (layout != Layout::kBlock512 && layout != Layout::kRegister64 &&
       layout != Layout::kSplitBlock256)) {
    return false;
  }
  if (!InPlaceKind(keys.kind(), &src->kind)) return false;
  // The key type each kind must meet (an insert into a filter of no key type yet makes it int64:
  // InsertBulk's; pre-hashed values meet any).
  const KeyType type = f.key_type();
  const bool legacy = type == KeyType::kLegacy;  // takes either width
  if (src->kind == KeyKind::kU64 && !legacy && type != KeyType::kInt64 &&
      (insert || type != KeyType::kNone)) {
    return false;
  }
  if (src->kind == KeyKind::kU32 && !legacy && type != KeyType::kInt32) return false;
  const size_t width = src->kind == KeyKind::kU32 ? 4 : 8;
  src->keys = keys.keys();
  return keys.keys() != nullptr && FitsAddressSpace(keys.keys(), uint64_t{n} * width);
}
const LayoutKernels& ShortKernels(const Filter& f) { return Active().For(IdOf(f.layout())); }
// (Built in two vector registers on x86-64: stored field by field, the 16-byte loads that copy
// the by-value Params into the kernel's arguments wait for the stores to complete, a
// store-forwarding stall on the path to every key's hash and block.)
Params ShortParams(const Filter& f) {
  Params p;
#if defined(__SSE2__)
  static_assert(sizeof(Params) == 32 && offsetof(Params, k) == 8 && offsetof(Params, seed) == 16 &&
                    offsetof(Params, prefetch_distance) == 24 &&
                    offsetof(Params, query_prefetch_probes) == 28,
                "Params' layout");
  const uint64_t tail = uint64_t{p.prefetch_distance} | uint64_t{p.query_prefetch_probes} << 32;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&p),
                   _mm_set_epi64x(static_cast<long long>(f.num_hashes()),
                                  static_cast<long long>(f.num_blocks())));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&p) + 1,
                   _mm_set_epi64x(static_cast<long long>(tail), static_cast<long long>(f.seed())));
#else
  p.num_blocks = f.num_blocks();
  p.k = f.num_hashes();
  p.seed = f.seed();
#endif
  return p;
}
// A short query (ShortCallOf) writing `result` to `out` (out_bytes of it, checked) and its count
// to *r; false, with nothing done, for any call that must go through RunBulk.
bool ShortQuery(const Filter& f, const Keys& keys, ResultKind result, void* out, uint64_t out_bytes,
                uint64_t* r) {
  KeySource src;
  if (!ShortCallOf(f, keys, false, &src) || out == nullptr || !FitsAddressSpace(out, out_bytes)) {
    return false;
  }
  *r = ShortKernels(f).contains(WordsOf(f), ShortParams(f), src, keys.size(), result, out);
  return true;
}

Params BulkParams(const Filter& f) {
  Params p = FilterBulk::ParamsOf(f);
  p.prefetch_distance = PrefetchDistance(f);
  return p;
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
  BulkCall c{"FilterSet"};
  c.form = result == ResultKind::kBitmap      ? Form::kBitmap
           : result == ResultKind::kSelection ? Form::kSelection
                                              : Form::kBytes;
  c.out = out;
  return RunBulk<FilterBulk>(f, keys, c, nullptr, &plan);
}

uint32_t PrefetchDistance(const Filter& f) {
  return DistanceOf<FilterBulk>(f, FilterBulk::ParamsOf(f));
}

}  // namespace detail

using detail::Invalid;
using detail::ResultKind;

uint64_t Filter::InsertBulk(const Keys& keys, uint8_t* fresh, bool atomic, unsigned threads) {
  const char* who = atomic && threads <= 1 ? "insert_concurrent" : "insert";
  if (words_ == nullptr || !owned_) CheckWritable(who);  // throws
  if (keys.size() == 0) return 0;
  detail::KeySource short_src;
  if (!atomic && detail::ShortCallOf(*this, keys, true, &short_src) &&
      (fresh == nullptr || detail::FitsAddressSpace(fresh, keys.size()))) {
    const uint64_t changed = detail::ShortKernels(*this).insert(words_, detail::ShortParams(*this),
                                                                short_src, keys.size(), fresh);
    inserted_ += keys.size();  // a plain insert has the filter to itself (as below)
    return changed;
  }
  const detail::LayoutId id = detail::IdOf(layout_);
  // every argument error before anything is written or any thread starts
  if (!detail::InPlaceKeysValid(keys)) detail::ValidateKeys(who, keys);
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
  // Inserts keys [begin, end) into `words`; returns how many changed it. Only a sequential,
  // non-atomic call (`tune`) may tune the prefetch distance on its keys.
  auto insert_part = [&](uint64_t* words, bool use_atomic, size_t begin, size_t end,
                         bool tune) -> uint64_t {
    // The whole call's keys are used as they are: a copy of Keys stalls on the caller's stores
    // (perf/README.md, design note M15).
    const bool whole = begin == 0 && end == keys.size();
    const Keys slice = whole ? Keys(static_cast<const uint64_t*>(nullptr), 0)
                             : detail::SliceKeys(keys, begin, end - begin);
    const Keys& part = whole ? keys : slice;
    detail::StringHasher hasher;
    const detail::KeySource src = detail::SourceFor(id, part, plan, seed_, &hasher);
    uint8_t* out = fresh != nullptr ? fresh + begin : nullptr;
    detail::Params lp = p;
    detail::DistanceTuner tuner(*this, tune && !use_atomic ? end - begin : 0, false, &lp);
    auto run = [&](const detail::KeySource& s, size_t at, size_t m) {
      uint8_t* o = out != nullptr ? out + at : nullptr;
      return use_atomic ? kernels.insert_atomic(words, lp, s, m, o)
                        : kernels.insert(words, lp, s, m, o);
    };
    return detail::OverPieces(src, end - begin, tuner, run);
  };
  size_t parts = detail::PartsFor(threads, keys.size());
  // Blocked layouts: each thread inserts the keys of its own blocks (PartitionedInsert) where the
  // private copies below would not be used (a batch small against the filter, or copies over
  // kMaxPrivateCopyBytes: else one thread or atomic ORs), and for filters of PartitionMinBytes()
  // or more, where the copies' streaming passes and twice the memory cost more than the
  // partitioning's sorting of the hashes; below it copies cost less CPU (perf/threads.cc).
  const bool copies = keys.size() * detail::kMinKeysPerCopyByte >= size_bytes() &&
                      (parts - 1) * size_bytes() <= detail::kMaxPrivateCopyBytes;
  if (parts > 1 && !atomic && fresh == nullptr && detail::BlocksPerLine(id) != 0 &&
      (!copies || size_bytes() >= detail::PartitionMinBytes())) {
    uint64_t count = 0;
    if (detail::PartitionedInsert(words_, id, p, keys, plan, seed_, parts, &count)) {
      __atomic_fetch_add(&inserted_, keys.size(), __ATOMIC_RELAXED);
      return count;
    }
    parts = 1;  // a thread could not be started: this thread alone
  }
  // A batch small against the filter: zeroing and ORing a copy costs more than the share of keys
  // it takes off this thread (and atomic ORs cost more per word than a plain insert per key), so
  // it runs on this thread. A copy costs about 3 streaming passes of size_bytes(): below one key
  // per 8 bytes of filter the copy loses (perf/README.md, section threads, has the figures).
  if (parts > 1 && !atomic && fresh == nullptr &&
      keys.size() * detail::kMinKeysPerCopyByte < size_bytes()) {
    parts = 1;
  }
  if (parts == 1) {  // every short call (a packet burst): no thread pool, no shared counter
    const uint64_t changed = insert_part(words_, atomic, 0, keys.size(), true);
    // A plain insert has the filter to itself (as the single-key insert's ++inserted_): no locked
    // add; insert_concurrent's count is shared with other writers.
    if (atomic) {
      __atomic_fetch_add(&inserted_, keys.size(), __ATOMIC_RELAXED);
    } else {
      inserted_ += keys.size();
    }
    return changed;
  }
  std::atomic<uint64_t> changed{0};
  auto insert_shared = [&](uint64_t* words, bool use_atomic, size_t begin, size_t end) {
    changed.fetch_add(insert_part(words, use_atomic, begin, end, false), std::memory_order_relaxed);
  };
  if (parts > 1 && !atomic && fresh == nullptr &&
      (parts - 1) * size_bytes() <= detail::kMaxPrivateCopyBytes) {
    // Parallel insert without atomics: part 0 into this filter, part t into a private zeroed copy
    // (allocated by its own thread), then the copies ORed in, split by word ranges. Same bytes as
    // a sequential insert (OR is commutative), where atomic ORs cost k locked writes a key.
    // Each thread allocates (and so faults in) its own copy; a share whose copy cannot be
    // allocated is inserted into this filter afterwards, by this thread.
    std::vector<std::unique_ptr<Filter>> copies(parts);
    std::vector<std::pair<size_t, size_t>> deferred(parts, {0, 0});
    detail::RunParallel(static_cast<unsigned>(parts), keys.size(), 1,
                        [&](size_t part, size_t begin, size_t end) {
                          if (part == 0) {
                            insert_shared(words_, false, begin, end);
                            return;
                          }
                          try {
                            copies[part] = std::make_unique<Filter>(
                                FilterAccess::Make(layout_, num_blocks_, k_, seed_, key_type()));
                          } catch (const std::exception&) {
                            deferred[part] = {begin, end};
                            return;
                          }
                          insert_shared(FilterAccess::Words(*copies[part]), false, begin, end);
                        });
    for (const auto& d : deferred) {
      if (d.first < d.second) insert_shared(words_, false, d.first, d.second);
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
  detail::RunParallel(
      static_cast<unsigned>(parts), keys.size(), 1,
      [&](size_t, size_t begin, size_t end) { insert_shared(words_, true, begin, end); });
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

using detail::BulkOp;
using Bulk = detail::FilterBulk;
using detail::Form;

uint64_t Filter::contains(const Keys& keys, uint8_t* out) const {
  uint64_t r;
  if (detail::ShortQuery(*this, keys, ResultKind::kBytes, out, keys.size(), &r)) return r;
  return detail::RunBulk<Bulk>(*this, keys, {"contains", BulkOp::kQuery, Form::kBytes, out});
}

uint64_t Filter::contains_bitmap(const Keys& keys, uint8_t* bitmap) const {
  uint64_t r;
  if (detail::ShortQuery(*this, keys, ResultKind::kBitmap, bitmap, (keys.size() + 7) / 8, &r)) {
    return r;
  }
  return detail::RunBulk<Bulk>(*this, keys,
                               {"contains_bitmap", BulkOp::kQuery, Form::kBitmap, bitmap});
}

uint64_t Filter::select(const Keys& keys, uint32_t* selection) const {
  uint64_t r;
  const uint64_t selection_bytes = uint64_t{keys.size()} * 4;
  if (detail::ShortQuery(*this, keys, ResultKind::kSelection, selection, selection_bytes, &r)) {
    return r;
  }
  return detail::RunBulk<Bulk>(*this, keys,
                               {"select", BulkOp::kQuery, Form::kSelection, selection});
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
  detail::BulkCall c{"refine"};
  c.form = Form::kSelection;
  c.out = selection;
  c.sel = selection;
  c.n = count;
  return detail::RunBulk<Bulk>(*this, keys, c);
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

uint64_t Filter::contains(const Keys& keys, uint8_t* out, Threads threads) const {
  return detail::RunBulk<Bulk>(*this, keys,
                               {"contains", BulkOp::kQuery, Form::kBytes, out, threads.count});
}

uint64_t Filter::contains_bitmap(const Keys& keys, uint8_t* bitmap, Threads threads) const {
  return detail::RunBulk<Bulk>(
      *this, keys, {"contains_bitmap", BulkOp::kQuery, Form::kBitmap, bitmap, threads.count});
}

uint64_t Filter::select(const Keys& keys, uint32_t* selection, Threads threads) const {
  return detail::RunBulk<Bulk>(
      *this, keys, {"select", BulkOp::kQuery, Form::kSelection, selection, threads.count});
}

}  // namespace simdbloom
