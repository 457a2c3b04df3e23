// SPDX-License-Identifier: Apache-2.0
// Section 6, single: one key per call, as a service checks a request or a packet filter a packet.
// For block512, register64 and split_block256 at --fpp and each size of --single-keys (default 1e5
// keys, in cache, and 1e7, out of it): insert(uint64_t) and contains(uint64_t) in a loop over
// independent keys (present, then absent), and contains with prefetch(key) 8 keys ahead (and
// the same with each key hashed once: hash, prefetch_hash, contains_hash), as a caller compiled
// with default flags ("baseline"), -march=x86-64-v3 and -march=x86-64-v4 would run them
// (single_isa.h; the levels this CPU has). Beside them: the bulk calls on the same keys, and the
// physical references of the same run: random 64-byte reads and read-modify-writes over an array of
// the filter's size, without and with a prefetch 8 ahead. Then bursts: bulk contains in calls of 8,
// 32, 64 and 256 keys (a packet filter's rx burst) against one call over all keys. Best of 5 passes
// each.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench_util.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/spatial.hpp"
#include "single_isa.h"

namespace sbbench {

std::vector<CallerLevel> CallerLevels() {
  std::vector<CallerLevel> levels = {{"baseline", &SingleLoopsBaseline, &KindLoopsBaseline}};
#if defined(SIMDBLOOM_PERF_X86_LEVELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2")) {
    levels.push_back({"x86-64-v3", &SingleLoopsV3, &KindLoopsV3});
  }
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    levels.push_back({"x86-64-v4", &SingleLoopsV4, &KindLoopsV4});
  }
#endif
  return levels;
}

namespace {

// Best ns/key of 5 passes of run().
template <class Run>
double Best5(size_t n, Run&& run) {
  double b = 1e300;
  for (int r = 0; r < 5; ++r) {
    const double t0 = Now();
    run();
    b = std::min(b, (Now() - t0) * 1e9 / static_cast<double>(n));
  }
  return b;
}

}  // namespace

void SingleSection(const Options& o) {
  const std::vector<CallerLevel> levels = CallerLevels();
  if (!o.json) {
    std::printf(
        "\n== Single keys: one key per call, u64 keys, fpp %g; ns per key, best of 5 "
        "(bulk calls on target %s)\n",
        o.fpp, simdbloom::active_target().c_str());
    std::printf(
        "   caller: the flags the calling code is compiled with (the inline path it runs)\n");
    std::printf("%10s  %-15s %-22s %8s %9s %8s %9s %9s %9s %9s\n", "keys", "layout", "caller",
                "insert", "contains", "absent", "prefetch", "pf hash1", "bulk ins", "bulk con");
  }
  for (size_t n : o.single_keys) {
    const uint64_t s = 99 + n;
    Workload w(n, s);
    const std::vector<uint64_t>& keys = w.keys;
    double block512_best = 0, block512_bulk_con = 0;
    size_t block512_bytes = 0;
    for (Layout layout : {Layout::kBlock512, Layout::kRegister64, Layout::kSplitBlock256}) {
      Filter f = Filter::create(n, o.fpp, layout);
      const double bulk_ins = Best5(n, [&] {
        f.clear();
        f.insert(keys);
      });
      const double bulk_con = Best5(n, [&] { f.contains(keys, w.out.data()); });
      for (const CallerLevel& level : levels) {
        SingleLoopTimes t{};
        uint64_t sink = 0;
        const char* path = level.fn(f, keys.data(), w.absent.data(), n, 5, &Now, &t, &sink);
        g_sink = sink;
        const std::string caller = Fmt("%s (%s)", level.name, path);
        if (o.json) {
          std::printf(
              "{\"bench\":\"single\",\"layout\":\"%s\",\"caller\":\"%s\",\"path\":\"%s\","
              "\"keys\":%zu,\"insert_ns\":%.4f,\"contains_ns\":%.4f,\"contains_absent_ns\":%.4f,"
              "\"contains_prefetch8_ns\":%.4f,\"contains_prefetch8_hash_once_ns\":%.4f,"
              "\"bulk_insert_ns\":%.4f,\"bulk_contains_ns\":%.4f}\n",
              simdbloom::layout_name(layout), level.name, path, n, t.insert, t.contains,
              t.contains_absent, t.contains_prefetch, t.contains_prefetch_hashed, bulk_ins,
              bulk_con);
        } else {
          std::printf("%10zu  %-15s %-22s %8.2f %9.2f %8.2f %9.2f %9.2f %9.2f %9.2f\n", n,
                      simdbloom::layout_name(layout), caller.c_str(), t.insert, t.contains,
                      t.contains_absent, t.contains_prefetch, t.contains_prefetch_hashed, bulk_ins,
                      bulk_con);
        }
        if (layout == Layout::kBlock512) {
          AddSummary(
              Fmt("One key per call, %zu keys, block512, caller %s: insert %.1f ns, "
                  "contains %.1f ns (present) / %.1f ns (absent), %.1f ns with prefetch(key) "
                  "8 keys ahead (%.1f ns hashing each key once: hash, prefetch_hash, "
                  "contains_hash); the bulk call costs %.1f ns a key.",
                  n, caller.c_str(), t.insert, t.contains, t.contains_absent, t.contains_prefetch,
                  t.contains_prefetch_hashed, bulk_con));
          block512_best = t.contains;
        }
      }
      if (layout == Layout::kBlock512) {
        block512_bulk_con = bulk_con;
        block512_bytes = f.size_bytes();
      }
      std::fflush(stdout);
    }
    // The physical references over an array of block512's size (2 MiB pages, as the filter).
    PhysicalArray ref(block512_bytes, true);
    const size_t lines = ref.bytes / 64;
    const double read0 = Best5(n, [&] { g_sink = RandomReads(ref.words, lines, n, 0, s); });
    const double read8 = Best5(n, [&] { g_sink = RandomReads(ref.words, lines, n, 8, s); });
    const double rmw0 = Best5(n, [&] { g_sink = RandomRmws(ref.words, lines, n, 0, s); });
    const double rmw8 = Best5(n, [&] { g_sink = RandomRmws(ref.words, lines, n, 8, s); });
    if (o.json) {
      std::printf(
          "{\"bench\":\"single_reference\",\"keys\":%zu,\"bytes\":%zu,\"read_ns\":%.4f,"
          "\"read_prefetch8_ns\":%.4f,\"rmw_ns\":%.4f,\"rmw_prefetch8_ns\":%.4f}\n",
          n, block512_bytes, read0, read8, rmw0, rmw8);
    } else {
      std::printf(
          "%10zu  %-15s %-22s %8.2f %9.2f %8s %9.2f   (random 64-byte rmw / read; "
          "prefetch: 8 ahead)\n",
          n, "reference", "array of block512's", rmw0, read0, "", read8);
    }
    AddSummary(
        Fmt("The physical reference at %zu keys: a random 64-byte read costs %.1f ns "
            "(%.1f ns prefetched 8 ahead), a read-modify-write %.1f ns (%.1f ns).",
            n, read0, read8, rmw0, rmw8));
    (void)block512_best;

    // The other kinds, one key per call, per caller level, against block512 of the same bytes
    // holding the same keys: CountingFilter contains and count, SpatialFilter classify (two
    // areas, 1-byte cells), ScalableFilter contains (from n / 8 keys, so 4 stages).
    {
      simdbloom::CountingFilter c = simdbloom::CountingFilter::create(n, o.fpp);
      c.insert(keys);
      simdbloom::SpatialFilter sp = simdbloom::SpatialFilter::create(n, o.fpp, 2);
      sp.insert(1, {keys.data(), n / 2});
      sp.insert(2, {keys.data() + n / 2, n - n / 2});
      simdbloom::ScalableFilter sc = simdbloom::ScalableFilter::create(n / 8, o.fpp);
      for (uint64_t k : keys) sc.insert(k);
      const size_t bytes[3] = {c.size_bytes(), sp.size_bytes(), sc.size_bytes()};
      std::vector<Filter> same;
      for (size_t b : bytes) {
        same.push_back(Filter::with_bits(b * 8, 6, Layout::kBlock512));
        same.back().insert(keys);
      }
      const KindFilters filters = {&c, &sp, &sc, {&same[0], &same[1], &same[2]}};
      for (const CallerLevel& level : levels) {
        KindTimes t{};
        uint64_t sink = 0;
        level.kinds(filters, keys.data(), n, 5, &Now, &t, &sink);
        g_sink = sink;
        const struct {
          const char* name;
          double ns;
          int same;
        } rows[] = {{"counting contains", t.counting_contains, 0},
                    {"counting count", t.counting_count, 0},
                    {"spatial classify", t.spatial_classify, 1},
                    {"scalable contains", t.scalable_contains, 2}};
        for (const auto& row : rows) {
          const double ref_ns = t.same_bytes[row.same];
          if (o.json) {
            std::printf(
                "{\"bench\":\"single_kind\",\"kind\":\"%s\",\"caller\":\"%s\",\"keys\":%zu,"
                "\"bytes\":%zu,\"ns\":%.4f,\"block512_same_bytes_ns\":%.4f}\n",
                row.name, level.name, n, bytes[row.same], row.ns, ref_ns);
          } else {
            std::printf(
                "%10zu  %-15s %-22s %8s %9.2f   %-10s block512 of the same %zu bytes: "
                "%.2f (%.2fx)\n",
                n, "other kinds", row.name, "", row.ns, level.name, bytes[row.same], ref_ns,
                row.ns / ref_ns);
          }
        }
      }
    }

    // Bursts: bulk contains in calls of B keys over all keys, against one call over all of them.
    {
      Filter f = Filter::create(n, o.fpp, Layout::kBlock512);
      f.insert(keys);
      std::string row = Fmt("%10zu  %-15s %-22s", n, "block512", "bulk, burst of B keys");
      for (size_t b : {size_t{8}, size_t{32}, size_t{64}, size_t{256}}) {
        const double ns = Best5(n, [&] {
          for (size_t i = 0; i + b <= n; i += b) f.contains({keys.data() + i, b}, w.out.data() + i);
        });
        if (o.json) {
          std::printf(
              "{\"bench\":\"burst\",\"layout\":\"block512\",\"keys\":%zu,\"burst\":%zu,"
              "\"contains_ns\":%.4f,\"whole_call_ns\":%.4f,\"ratio\":%.3f}\n",
              n, b, ns, block512_bulk_con, ns / block512_bulk_con);
        }
        row += Fmt(" B=%zu %.2f (%.2fx)", b, ns, ns / block512_bulk_con);
        if (b == 32) {
          AddSummary(
              Fmt("A packet burst of 32 keys per bulk call, %zu keys: %.1f ns a key, %.2fx "
                  "the per-key cost of one call over all keys (%.1f ns).",
                  n, ns, ns / block512_bulk_con, block512_bulk_con));
        }
      }
      if (!o.json) std::printf("%s\n", row.c_str());
    }
  }
}

}  // namespace sbbench
