// SPDX-License-Identifier: Apache-2.0
// Filter's bulk calls: the kernels' driver over a key source (lib/core/key_source.cc), in pieces
// for the prefetch tuner (lib/core/prefetch.cc); result forms; the parallel forms.
#include "lib/core/bulk.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
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

// ---- Parallel insert by block ranges (blocked layouts) ----
// Keys are taken kPartitionChunk at a time. Each of the T threads hashes a 1/T share of the chunk
// and sorts the hashes (stably) by the thread that owns the key's block: thread t owns a
// contiguous range of blocks, ceil(num_blocks / T) rounded up to whole cache lines. Then each
// thread inserts, with the ordinary single-threaded kernel, the hashes of its own blocks, the
// shares in key order. No word is written by two threads, so no atomics, copies or merge; a
// block's keys reach it in their order, so each key's "was new" and the returned count are the
// single-threaded call's. Two buffers: a thread hashes chunk c + 1 while others still insert chunk
// c, one barrier per chunk. Scratch, whatever the batch or filter size, per key of a chunk (64K):
// on 2 threads 2 x 2 x 8 bytes of sorted hashes (each owner a chunk-sized region: one pass, keys
// hashed 512 at a time on the stack), 2 MiB; on more, 8 bytes of hashes (none for pre-hashed
// keys), 2 x 8 of sorted hashes and an owner byte, 1.6 MiB; plus T x T ranges. The threads meet
// once per chunk, so on cores shared with other busy processes a thread that is descheduled stalls
// the others (private copies only meet at the end): on this 2-vCPU VM at load 2, 1e8 keys on 2
// threads took 0.61x one thread's time (copies 0.82x), at load 5 1.5-1.7x (copies 1.1-1.35x).
constexpr size_t kPartitionChunk = size_t{1} << 16;
// On 2 threads keys are hashed this many at a time and sorted from L1.
constexpr size_t kPartitionStep = 512;

// Filters of at least this many bytes take the partitioned path (SetPartitionMinBytes; see
// InsertBulk).
std::atomic<uint64_t> g_partition_min_bytes{kDefaultPartitionMinBytes};

// Whether every probe of a key lies in its block, BlockOf(hash, num_blocks), and how many blocks
// make a 64-byte line (thread ranges start on a line: no line is written by two threads).
uint32_t BlocksPerLine(LayoutId id) {
  switch (id) {
    case LayoutId::kBlock512:
    case LayoutId::kShifting:
      return 1;
    case LayoutId::kSplitBlock256:
      return 2;
    case LayoutId::kRegister64:
      return 8;
    default:
      return 0;  // classic, guava, guava32: probes anywhere in the array
  }
}

// A reusable barrier for `n` threads: spins (with the CPU's pause hint) for up to kSpin, as a
// chunk's work on the other threads takes tens of microseconds and waking a thread blocked on a
// condition variable about as long; then waits on a condition variable, so that more threads than
// cores (Threads{8} on 2 vCPUs) do not spin against the threads they wait for.
class Barrier {
 public:
  explicit Barrier(size_t n) : n_(n) {}
  void Wait() {
    // gen_ cannot move on before this thread arrives: read it first.
    const uint64_t gen = gen_.load(std::memory_order_acquire);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (++waiting_ == n_) {
        waiting_ = 0;
        gen_.store(gen + 1, std::memory_order_release);
        if (sleepers_ != 0) cv_.notify_all();
        return;
      }
    }
    const auto start = std::chrono::steady_clock::now();
    for (uint32_t i = 1;; ++i) {
      if (gen_.load(std::memory_order_acquire) != gen) return;
      Pause();
      if (i % 256 == 0 && std::chrono::steady_clock::now() - start > kSpin) break;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    ++sleepers_;
    cv_.wait(lock, [&] { return gen_.load(std::memory_order_acquire) != gen; });
    --sleepers_;
  }

 private:
  static constexpr std::chrono::microseconds kSpin{200};
  static void Pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  const size_t n_;
  size_t waiting_ = 0;
  size_t sleepers_ = 0;  // threads waiting on cv_ (under mutex_)
  std::atomic<uint64_t> gen_{0};
};

// Inserts `keys` (validated and planned, n > 0) into `words` (layout `id`, BlocksPerLine(id) > 0)
// on up to `parts` threads (this one among them), as described above; returns the count of keys
// that set a clear bit, exactly the single-threaded insert's, to *count. Returns false, having
// written nothing, if a thread could not be started.
bool PartitionedInsert(uint64_t* words, LayoutId id, const Params& p, const Keys& keys,
                       const KeyPlan& plan, uint64_t seed, size_t parts, uint64_t* count) {
  const LayoutKernels& kernels = Active().For(id);
  const bool xxh64 = InfoOf(id).xxh64;
  const size_t n = keys.size();
  const size_t T = parts;
  const size_t chunk = std::min(n, kPartitionChunk);
  const size_t chunks = (n + chunk - 1) / chunk;
  const uint64_t line = BlocksPerLine(id);
  // Blocks per thread: whole lines, so the owner of block b is b / per.
  const uint64_t per = ((p.num_blocks + T - 1) / T + line - 1) / line * line;
  const bool prehashed = keys.kind() == Keys::Kind::kPrehashed;
  const uint64_t* key_hashes = prehashed ? static_cast<const uint64_t*>(keys.keys()) : nullptr;

  // Scratch (above): the producers' hashes and each key's owner (more than 2 threads), and two
  // chunks of hashes sorted by owner, which the owners read in place.
  const size_t regions = T == 2 ? 2 : 1;
  std::vector<uint64_t> hash_buf(prehashed || T == 2 ? 0 : chunk);
  std::vector<uint8_t> owner_buf(T == 2 ? 0 : chunk);  // T <= kMaxThreads = 256
  std::vector<uint64_t> sorted_buf(2 * regions * chunk);
  // ranges[(c & 1)][s][t]: [begin, end) of producer s's hashes for owner t in chunk c's half of
  // sorted_buf.
  std::vector<std::pair<size_t, size_t>> ranges(2 * T * T);
  struct alignas(64) Count {
    uint64_t changed = 0;
  };
  std::vector<Count> changed(T);
  Barrier barrier(T);

  // Producer s: hashes its share of chunk c and sorts the hashes by owner (stably).
  auto produce = [&](size_t c, size_t s) {
    const size_t cb = c * chunk, m = std::min(chunk, n - cb);
    const size_t share = (m + T - 1) / T;
    const size_t b = std::min(m, s * share), e = std::min(m, b + share);
    std::pair<size_t, size_t>* r = ranges.data() + (c & 1) * T * T + s * T;
    uint64_t* sorted = sorted_buf.data() + (c & 1) * regions * chunk;
    // Locals, not the captures: the owner bytes' stores may alias anything reached by reference.
    const uint64_t num_blocks = p.num_blocks, per_thread = per;
    const size_t threads = T;
    if (threads == 2) {            // one pass, hashing a step at a time into L1
      uint64_t* at0 = sorted + b;  // owner 0's next slot; owner 1's in its own region
      uint64_t* at1 = sorted + chunk + b;
      auto scatter = [&](const uint64_t* h, size_t count) {
        uint64_t *p0 = at0, *p1 = at1;  // in registers: no store-to-load chain
        for (size_t i = 0; i < count; ++i) {
          const uint64_t hi = h[i];
          const size_t o = BlockOf(hi, num_blocks) >= per_thread;
          // The slot chosen by a mask, not a branch (the owners of random keys mispredict).
          const uintptr_t mask = uintptr_t{0} - o;
          *reinterpret_cast<uint64_t*>((reinterpret_cast<uintptr_t>(p1) & mask) |
                                       (reinterpret_cast<uintptr_t>(p0) & ~mask)) = hi;
          p1 += o;
          p0 += 1 - o;
        }
        at0 = p0;
        at1 = p1;
      };
      if (prehashed) {
        scatter(key_hashes + cb + b, e - b);
      } else {
        alignas(64) uint64_t step[kPartitionStep];
        for (size_t i = b; i < e; i += kPartitionStep) {
          const size_t count = std::min(kPartitionStep, e - i);
          HashKeysAs(SliceKeys(keys, cb + i, count), plan, xxh64, seed, step);
          scatter(step, count);
        }
      }
      r[0] = {b, static_cast<size_t>(at0 - sorted)};
      r[1] = {chunk + b, static_cast<size_t>(at1 - sorted)};
      return;
    }
    const uint64_t* h = prehashed ? key_hashes + cb : hash_buf.data();
    if (!prehashed && b < e) {
      const Keys part = SliceKeys(keys, cb + b, e - b);
      HashKeysAs(part, plan, xxh64, seed, hash_buf.data() + b);
    }
    // Owner of block blk: the largest t with blk >= t * per_thread. (hi32(h) * T) >> 32 is never
    // below it (per_thread >= num_blocks / T), so it is found counting down from there.
    uint8_t* owner = owner_buf.data();
    size_t count[kMaxThreads] = {};
    for (size_t i = b; i < e; ++i) {
      const uint64_t blk = BlockOf(h[i], num_blocks);
      uint64_t o = ((h[i] >> 32) * threads) >> 32;
      while (blk < o * per_thread) --o;
      owner[i] = static_cast<uint8_t>(o);
      ++count[o];
    }
    size_t at = b;
    for (size_t t = 0; t < threads; ++t) {
      r[t] = {at, at + count[t]};
      at += count[t];
      count[t] = r[t].first;  // now the next free slot of owner t
    }
    for (size_t i = b; i < e; ++i) sorted[count[owner[i]]++] = h[i];
  };
  // Owner t: inserts chunk c's hashes of its blocks, producer by producer (key order).
  auto consume = [&](size_t c, size_t t) {
    const std::pair<size_t, size_t>* r = ranges.data() + (c & 1) * T * T;
    const uint64_t* sorted = sorted_buf.data() + (c & 1) * regions * chunk;
    KeySource src;
    src.kind = KeyKind::kHashes;
    for (size_t s = 0; s < T; ++s) {
      const size_t b = r[s * T + t].first, e = r[s * T + t].second;
      if (b == e) continue;
      src.keys = sorted + b;
      changed[t].changed += kernels.insert(words, p, src, e - b, nullptr);
    }
  };
  auto work = [&](size_t t) {
    produce(0, t);
    barrier.Wait();
    for (size_t c = 0; c < chunks; ++c) {
      consume(c, t);
      if (c + 1 == chunks) break;
      produce(c + 1, t);
      barrier.Wait();
    }
  };

  // Threads wait at a gate until all are started: one that cannot be started sends them home,
  // and this thread inserts the batch alone.
  std::mutex gate_mutex;
  std::condition_variable gate_cv;
  int gate = 0;  // 0 waiting, 1 go, -1 abort
  auto worker = [&](size_t t) {
    {
      std::unique_lock<std::mutex> lock(gate_mutex);
      gate_cv.wait(lock, [&] { return gate != 0; });
      if (gate < 0) return;
    }
    work(t);
  };
  std::vector<std::thread> pool;
  pool.reserve(T - 1);
  bool started = true;
  for (size_t t = 1; t < T && started; ++t) {
    try {
      pool.emplace_back(worker, t);
    } catch (const std::system_error&) {
      started = false;
    }
  }
  {
    std::lock_guard<std::mutex> lock(gate_mutex);
    gate = started ? 1 : -1;
  }
  gate_cv.notify_all();
  if (started) work(0);
  for (std::thread& th : pool) th.join();
  if (!started) return false;
  uint64_t total = 0;
  for (const Count& c : changed) total += c.changed;
  *count = total;
  return true;
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

uint64_t PartitionMinBytes() { return g_partition_min_bytes.load(std::memory_order_relaxed); }
void SetPartitionMinBytes(uint64_t bytes) {
  g_partition_min_bytes.store(bytes, std::memory_order_relaxed);
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
  return detail::RunBulk<Bulk>(*this, keys, {"contains", BulkOp::kQuery, Form::kBytes, out});
}

uint64_t Filter::contains_bitmap(const Keys& keys, uint8_t* bitmap) const {
  return detail::RunBulk<Bulk>(*this, keys,
                               {"contains_bitmap", BulkOp::kQuery, Form::kBitmap, bitmap});
}

uint64_t Filter::select(const Keys& keys, uint32_t* selection) const {
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
