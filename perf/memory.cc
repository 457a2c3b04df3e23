// SPDX-License-Identifier: Apache-2.0
// Section 3, memory: filters of --mem-keys u64 keys (default 1e8: ~120 MB), far larger than the
// caches, against physical references measured in the same run over an array of the filter's
// size: independent random 64-byte reads with software prefetch (for contains) and random
// read-modify-writes (for insert), each at its best prefetch distance of 16, 32, 64, 128 and 256
// (reported). Every
// measurement is one pass over all keys. With 2 MiB (transparent huge) pages every layout, with
// 4 KiB pages block512 only. The headline ratios are the median of 5 rounds, each timing the
// references and the filter back to back, with the range (classic, k lines per key, against k
// references, in one round); block512 on huge pages also against the 4 KiB-page references in the
// same rounds (a line of the summary). Then block512 with the tile pipeline's prefetching off,
// and on huge pages across prefetch distances 8..256.
//
// This is the one file of the benchmark that reaches past the public API: the page size of a
// filter and its prefetch distance are not part of it, so it includes the library's internal
// lib/core/layout.h for simdbloom::detail::SetHugePages and simdbloom::detail::SetPrefetchOverride
// (benchmark-only, process-wide knobs). perf/CMakeLists.txt gives only this file the project root
// on its include path.
#include "lib/core/memory.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lib/core/prefetch.h"

namespace sbbench {

void MemorySection(const Options& o) {
  const size_t n = o.mem_keys;
  if (!o.json) {
    std::printf(
        "\n== Memory: %zu u64 keys, fpp %g, target %s; ns/key, and the ratio to a physical\n"
        "   reference over an array of the filter's size measured in the same run (read: random\n"
        "   64-byte reads with prefetch; rmw: random read-modify-writes with prefetch; classic\n"
        "   touches k lines per key and is compared with k of them).\n",
        n, o.fpp, simdbloom::active_target().c_str());
    RowHeader();
  }
  uint64_t s = 777;
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = SplitMix(s);
  std::vector<uint8_t> out(n);
  Options reps = o;
  reps.min_seconds = 0;  // one pass over all keys per measurement: each is ~1e8 random accesses
  for (bool huge : {true, false}) {
    const char* pages = huge ? "2MiB" : "4KiB";
    simdbloom::detail::SetHugePages(huge);
    for (Layout layout : kLayouts) {
      // 4 KiB pages for block512 only.
      if (!huge && layout != Layout::kBlock512) continue;
      const long huge_before = AnonHugeKiB();
      Filter f = Filter::create(n, o.fpp, layout);
      const long huge_kib = AnonHugeKiB() - huge_before;
      const size_t lines = f.size_bytes() / 64;
      // The references over an array of the filter's size on the same pages, and for block512 on
      // huge pages also over one on 4 KiB pages (huge pages must beat it outright).
      struct Ref {
        Ref(size_t bytes, bool huge_pages) : array(bytes, huge_pages) {}
        PhysicalArray array;
        size_t read_d = 0, rmw_d = 0;
        std::vector<double> read, rmw;  // per round
      };
      std::vector<std::unique_ptr<Ref>> refs;
      refs.push_back(std::make_unique<Ref>(f.size_bytes(), huge));
      const bool vs_4k = huge && layout == Layout::kBlock512;
      if (vs_4k) refs.push_back(std::make_unique<Ref>(f.size_bytes(), false));
      auto read_ns = [&](Ref& r, size_t d) {
        return MedianNsPerKey(
            reps, n, [] {}, [&] { g_sink = RandomReads(r.array.words, lines, n, d, 1); }, 1);
      };
      auto rmw_ns = [&](Ref& r, size_t d) {
        return MedianNsPerKey(
            reps, n, [] {}, [&] { g_sink = RandomRmws(r.array.words, lines, n, d, 2); }, 1);
      };
      // Each reference at its best prefetch distance.
      for (auto& r : refs) {
        double best_read = 1e300, best_rmw = 1e300;
        for (size_t d : kReferenceDistances) {
          const double rd = read_ns(*r, d), wr = rmw_ns(*r, d);
          if (rd < best_read) best_read = rd, r->read_d = d;
          if (wr < best_rmw) best_rmw = wr, r->rmw_d = d;
        }
      }
      const std::string lname = simdbloom::layout_name(layout);
      if (!o.json) {
        std::printf(
            "-- %s: %.1f MB, k %u, %ld MiB in huge pages; reference prefetch distance "
            "read %zu, rmw %zu\n",
            lname.c_str(), f.size_bytes() / 1e6, f.num_hashes(), huge_kib / 1024, refs[0]->read_d,
            refs[0]->rmw_d);
      }
      auto insert_ns = [&] {
        return MedianNsPerKey(
            reps, n, [&] { f.clear(); }, [&] { f.insert(keys); }, 1);
      };
      // Queries: the inserted keys, so every probe reads its whole block (no early exit).
      auto contains_ns = [&] {
        return MedianNsPerKey(
            reps, n, [] {}, [&] { f.contains(keys, out.data()); }, 1);
      };
      // The headline ratios: the references and the filter back to back in each of kRounds
      // rounds, the ratio taken per round (this machine's speed drifts between rounds by more than
      // the differences measured here); the median round, with the range. A classic key touches
      // k lines: its references are k random reads / read-modify-writes, in one round (each pass
      // is k times longer).
      const bool classic = layout == Layout::kClassic;
      const int rounds = classic ? 1 : 5;
      const double lines_per_key = classic ? f.num_hashes() : 1;
      std::vector<double> ins_v, con_v;
      for (int round = 0; round < rounds; ++round) {
        for (auto& r : refs) r->read.push_back(lines_per_key * read_ns(*r, r->read_d));
        con_v.push_back(contains_ns());
        for (auto& r : refs) r->rmw.push_back(lines_per_key * rmw_ns(*r, r->rmw_d));
        ins_v.push_back(insert_ns());
      }
      auto ratios = [](const std::vector<double>& a, const std::vector<double>& b) {
        std::vector<double> q;
        for (size_t i = 0; i < a.size(); ++i) q.push_back(a[i] / b[i]);
        return q;
      };
      const double ins = Median(ins_v), con = Median(con_v);
      // Reference names carry their best distance: "rmw@128" = read-modify-writes 128 ahead.
      RowPaired(o, lname + " insert", pages, n, ins, Median(refs[0]->rmw),
                Fmt("%s@%zu", classic ? "k rmw" : "rmw", refs[0]->rmw_d).c_str(),
                ratios(ins_v, refs[0]->rmw));
      RowPaired(o, lname + " contains", pages, n, con, Median(refs[0]->read),
                Fmt("%s@%zu", classic ? "k reads" : "read", refs[0]->read_d).c_str(),
                ratios(con_v, refs[0]->read));
      if (vs_4k) {
        RowPaired(o, lname + " insert, 2MiB vs 4KiB reference", pages, n, ins, Median(refs[1]->rmw),
                  Fmt("rmw 4KiB@%zu", refs[1]->rmw_d).c_str(), ratios(ins_v, refs[1]->rmw));
        RowPaired(o, lname + " contains, 2MiB vs 4KiB reference", pages, n, con,
                  Median(refs[1]->read), Fmt("read 4KiB@%zu", refs[1]->read_d).c_str(),
                  ratios(con_v, refs[1]->read));
      }
      if (vs_4k) {
        AddSummary(
            Fmt("Memory, %zu keys (%.0f MB, %s, %s pages%s): adding a key costs "
                "%.2fx and checking one %.2fx the time of one random 64-byte memory access of the "
                "same kind measured in the same run (1.00x would mean the filter's work is hidden "
                "entirely behind memory latency).",
                n, f.size_bytes() / 1e6,
                f.size_bytes() >= (size_t{64} << 20) ? "far larger than the caches" : "cache-sized",
                pages, huge_kib > 0 ? ", granted" : ", NOT granted by the OS",
                Median(ratios(ins_v, refs[0]->rmw)), Median(ratios(con_v, refs[0]->read))));
      }
      const double rmw_ref = Median(refs[0]->rmw), read_ref = Median(refs[0]->read);
      refs.clear();  // free the arrays before the sweeps
      if (layout == Layout::kBlock512) {
        simdbloom::detail::SetPrefetchOverride(0);
        const double ins0 = insert_ns();
        const double con0 = contains_ns();
        simdbloom::detail::SetPrefetchOverride(-1);
        Row(o, "memory", lname + " insert, no prefetch", pages, n, ins0, ins, "pipeline");
        Row(o, "memory", lname + " contains, no prefetch", pages, n, con0, con, "pipeline");
        if (huge) {
          for (int d : {8, 16, 32, 128, 256}) {
            simdbloom::detail::SetPrefetchOverride(d);
            const std::string at = " distance " + std::to_string(d);
            Row(o, "memory", lname + " insert" + at, pages, n, insert_ns(), rmw_ref, "rmw");
            Row(o, "memory", lname + " contains" + at, pages, n, contains_ns(), read_ref, "read");
          }
          simdbloom::detail::SetPrefetchOverride(-1);
        }
      }
    }
  }
  simdbloom::detail::SetHugePages(true);
}

}  // namespace sbbench
