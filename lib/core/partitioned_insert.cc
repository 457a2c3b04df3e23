// SPDX-License-Identifier: Apache-2.0
// Filter::insert(keys, Threads) on the blocked layouts of large filters (lib/core/bulk.cc's
// InsertBulk chooses): the keys split by the thread that owns their block, no copies or atomics.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kernels/dispatch.h"
#include "lib/core/bulk.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"

namespace simdbloom {
namespace detail {
namespace {

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

}  // namespace

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

uint64_t PartitionMinBytes() { return g_partition_min_bytes.load(std::memory_order_relaxed); }
void SetPartitionMinBytes(uint64_t bytes) {
  g_partition_min_bytes.store(bytes, std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace simdbloom
