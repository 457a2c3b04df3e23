// SPDX-License-Identifier: Apache-2.0
// Section 7, threads: scaling of bulk insert and contains over --mem-keys keys (default 1e8,
// block512 at --fpp, a DRAM-sized filter) with simdbloom::Threads{T} for T = 1, 2, 4, ... up to
// the hardware threads, and of insert_concurrent from T threads (single keys and 4096-key bulk
// calls), against a parallel streaming read of the same number of bytes as the filter (the memory
// bandwidth ceiling) and T threads of independent random 64-byte reads (the latency-bound
// ceiling), all measured in this run. Each figure is the best of 3 passes. Bulk insert is also
// timed with the insert path it takes by default (block512 filters of 64 MiB or more: keys
// partitioned by block range, lib/core/bulk.cc) against private copies ORed in, rounds alternated.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "bench_util.h"

// The library's internal knob of the partitioned insert (lib/core/bulk.h; this file does not see
// the project root): filters of at least PartitionMinBytes() take it.
namespace simdbloom {
namespace detail {
uint64_t PartitionMinBytes();
void SetPartitionMinBytes(uint64_t bytes);
}  // namespace detail
}  // namespace simdbloom

namespace sbbench {
namespace {

// Runs fn(t) on T threads at once; returns seconds of the slowest.
template <class Fn>
double OnThreads(unsigned T, const Fn& fn) {
  const double t0 = Now();
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < T; ++t) pool.emplace_back(fn, t);
  fn(0u);
  for (std::thread& th : pool) th.join();
  return Now() - t0;
}

template <class Fn>
double Best3(const Fn& fn) {
  double best = 1e30;
  for (int r = 0; r < 3; ++r) best = std::min(best, fn());
  return best;
}

}  // namespace

void ThreadsSection(const Options& o) {
  const size_t n = o.mem_keys;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> counts;
  for (unsigned t = 1; t <= hw; t *= 2) counts.push_back(t);
  if (counts.back() != hw) counts.push_back(hw);
  uint64_t s = 4242;
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = SplitMix(s);
  std::vector<uint8_t> out(n);
  Filter f = Filter::create(n, o.fpp, Layout::kBlock512);
  PhysicalArray array(f.size_bytes(), true);
  const size_t words = f.size_bytes() / 8;
  if (!o.json) {
    std::printf("\n== Threads: %zu keys, block512 %.0f MB, %u hardware threads\n", n,
                f.size_bytes() / 1e6, hw);
    std::printf("%-34s %7s %10s %9s\n", "what", "threads", "ns/key", "speed-up");
  }
  auto row = [&](const char* what, unsigned t, double ns, double base) {
    if (o.json) {
      std::printf(
          "{\"bench\":\"threads\",\"what\":\"%s\",\"threads\":%u,\"keys\":%zu,\"ns_per_key\":%.4f,"
          "\"speedup_vs_1\":%.3f}\n",
          what, t, n, ns, base / ns);
    } else {
      std::printf("%-34s %7u %10.3f %8.2fx\n", what, t, ns, base / ns);
    }
    std::fflush(stdout);
  };
  double ins_copies1 = 0, ins_default1 = 0;
  double ins1 = 0, con1 = 0, conc1 = 0, read1 = 0, stream1 = 0;
  double ins2 = 0, con2 = 0, read2 = 0, stream2 = 0;
  std::atomic<uint64_t> sink{0};
  for (unsigned t : counts) {
    const simdbloom::Threads threads{t};
    const double ins = Best3([&] {
                         f.clear();
                         const double t0 = Now();
                         f.insert(keys, threads);
                         return Now() - t0;
                       }) *
                       1e9 / n;
    // The same with private copies ORed in, the path of smaller filters (lib/core/bulk.cc), its
    // rounds alternated with the default path's.
    double ins_copies = 1e30, ins_default = 1e30;
    const uint64_t partition_min = simdbloom::detail::PartitionMinBytes();
    for (int r = 0; r < 3; ++r) {
      for (int copies = 0; copies < 2; ++copies) {
        simdbloom::detail::SetPartitionMinBytes(copies ? UINT64_MAX : partition_min);
        f.clear();
        const double t0 = Now();
        f.insert(keys, threads);
        (copies ? ins_copies : ins_default) =
            std::min(copies ? ins_copies : ins_default, Now() - t0);
      }
    }
    simdbloom::detail::SetPartitionMinBytes(partition_min);
    ins_copies *= 1e9 / n;
    ins_default *= 1e9 / n;
    const double con = Best3([&] {
                         const double t0 = Now();
                         f.contains(keys, out.data(), threads);
                         return Now() - t0;
                       }) *
                       1e9 / n;
    // insert_concurrent from t threads of the caller, each on its share, 4096 keys a call.
    const double conc = Best3([&] {
                          f.clear();
                          return OnThreads(t, [&](unsigned i) {
                            const size_t per = (n + t - 1) / t, b = std::min(n, i * per),
                                         e = std::min(n, b + per);
                            for (size_t j = b; j < e; j += 4096) {
                              f.insert_concurrent({keys.data() + j, std::min<size_t>(4096, e - j)});
                            }
                          });
                        }) *
                        1e9 / n;
    // References: t threads of random line reads (one per key, prefetched 64 ahead) and a
    // streaming read of the filter's bytes split among t threads.
    const double read = Best3([&] {
                          return OnThreads(t, [&](unsigned i) {
                            sink += RandomReads(array.words, f.size_bytes() / 64, n / t, 64, 1 + i);
                          });
                        }) *
                        1e9 / n;
    const double stream = Best3([&] {
                            return OnThreads(t, [&](unsigned i) {
                              const size_t per = words / t;
                              uint64_t sum = 0;
                              const uint64_t* p = array.words + i * per;
                              for (size_t w = 0; w < per; ++w) sum += p[w];
                              sink += sum;
                            });
                          }) *
                          1e9 / (f.size_bytes() / 64.0);
    if (t == 1) {
      ins1 = ins, con1 = con, conc1 = conc, read1 = read, stream1 = stream;
    }
    if (t == 2) ins2 = ins, con2 = con, read2 = read, stream2 = stream;
    if (t == 1) ins_copies1 = ins_copies, ins_default1 = ins_default;
    row("bulk insert (Threads)", t, ins, ins1);
    row("bulk insert, alternated: default", t, ins_default, ins_default1);
    row("bulk insert, alternated: copies", t, ins_copies, ins_copies1);
    row("bulk contains (Threads)", t, con, con1);
    row("insert_concurrent, 4096-key calls", t, conc, conc1);
    row("reference: random line reads", t, read, read1);
    row("reference: streaming read (per line)", t, stream, stream1);
  }
  g_sink = sink.load();
  if (ins2 > 0) {
    AddSummary(
        Fmt("Threads, %zu keys: with 2 threads (simdbloom::Threads{2}) bulk insert runs "
            "%.2fx and contains %.2fx as fast as with one; plain random reads of the same "
            "memory speed up %.2fx and a streaming read %.2fx on 2 threads here.",
            n, ins1 / ins2, con1 / con2, read1 / read2, stream1 / stream2));
  }
}

}  // namespace sbbench
