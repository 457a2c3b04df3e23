// SPDX-License-Identifier: Apache-2.0
// Section 1, speed: bulk insert and bulk contains of u64 keys (hashing included) for every layout,
// on the scalar reference and on every SIMD target this CPU runs, at each --keys count and --fpp.
// Per row: the median ns/key over repetitions of at least --min-seconds (at least 3 of them; the
// filter is cleared, untimed, before each insert), the speed-up over the reference target, bits
// per key, k, and the false-positive rate measured over as many absent keys. Queries are half
// present, half absent keys. Then, on the dispatched target, insert with per-key "was new" flags
// against plain insert (measured alternately, twice each). The block512 row of the dispatched
// target gives a line of the summary.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {

void SpeedSection(const Options& o) {
  std::vector<std::string> targets = simdbloom::available_targets();
  // The reference first: every other row is compared with it.
  std::rotate(targets.begin(), targets.end() - 1, targets.end());
  const std::string dispatched = simdbloom::active_target();
  if (!o.json) {
    std::printf("== Speed: bulk u64 keys, hashing included, fpp %g (* = dispatched target)\n",
                o.fpp);
    std::printf("%10s  %-15s %-10s %-9s %9s %9s %9s %3s %9s\n", "keys", "layout", "target", "op",
                "ns/key", "vs ref", "bits/key", "k", "FPR");
  }
  for (size_t n : o.keys) {
    Workload w(n, 12345 + n);
    for (Layout layout : kLayouts) {
      Filter f = Filter::create(n, o.fpp, layout);
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      double ref_insert = 0, ref_contains = 0;
      for (const std::string& t : targets) {
        simdbloom::set_target(t);
        const double ins = InsertNs(o, f, w);
        // Queries: half present, half absent (two calls of n/2 keys count as n keys).
        const double con = ContainsNs(o, f, w);
        const double fpr = MeasuredFpr(f, w);
        if (t == "reference") {
          ref_insert = ins;
          ref_contains = con;
        }
        if (t == dispatched && layout == Layout::kBlock512) {
          AddSummary(Fmt(
              "Speed, %zu keys (%s): adding a key costs %.2f ns, checking one %.2f ns, %.1fx and "
              "%.1fx faster than the plain scalar code; %.1f bits per key for the 1%% error rate "
              "asked, %.2f%% measured.",
              n,
              f.size_bytes() <= (size_t{4} << 20) ? "the filter fits in the CPU caches"
                                                  : "the filter is larger than the L2 cache",
              ins, con, ref_insert / ins, ref_contains / con, bpk, 100 * fpr));
        }
        for (int op = 0; op < 2; ++op) {
          const double ns = op == 0 ? ins : con;
          const double speedup = (op == 0 ? ref_insert : ref_contains) / ns;
          const char* op_name = op == 0 ? "insert" : "contains";
          if (o.json) {
            std::printf(
                "{\"bench\":\"speed\",\"layout\":\"%s\",\"op\":\"%s\",\"keys\":%zu,"
                "\"target\":\"%s\",\"dispatched\":%s,\"ns_per_key\":%.4f,\"keys_per_s\":%.4g,"
                "\"speedup_vs_reference\":%.3f,\"bits_per_key\":%.3f,\"k\":%u,"
                "\"fpp_requested\":%g,\"fpr_measured\":%.6f}\n",
                simdbloom::layout_name(layout), op_name, n, t.c_str(),
                t == dispatched ? "true" : "false", ns, 1e9 / ns, speedup, bpk, f.num_hashes(),
                o.fpp, fpr);
          } else {
            const std::string name = t == dispatched ? t + "*" : t;
            std::printf("%10zu  %-15s %-10s %-9s %9.3f %8.2fx %9.2f %3u %9.5f\n", n,
                        simdbloom::layout_name(layout), name.c_str(), op_name, ns, speedup, bpk,
                        f.num_hashes(), fpr);
          }
        }
      }
      // Bulk insert that reports per key whether it was new (de-duplication), against plain
      // bulk insert on the dispatched target; the two measured alternately, twice each.
      simdbloom::set_target(dispatched);
      std::vector<uint8_t> fresh(n);
      double plain = 0, with_fresh = 0;
      for (int round = 0; round < 2; ++round) {
        plain += InsertNs(o, f, w);
        with_fresh += MedianNsPerKey(
            o, n, [&] { f.clear(); }, [&] { f.insert(w.keys, fresh.data()); });
      }
      plain /= 2;
      with_fresh /= 2;
      if (o.json) {
        std::printf(
            "{\"bench\":\"speed\",\"layout\":\"%s\",\"op\":\"insert_fresh\",\"keys\":%zu,"
            "\"target\":\"%s\",\"ns_per_key\":%.4f,\"insert_ns_per_key\":%.4f,"
            "\"ratio_vs_insert\":%.3f}\n",
            simdbloom::layout_name(layout), n, dispatched.c_str(), with_fresh, plain,
            with_fresh / plain);
      } else {
        std::printf(
            "%10zu  %-15s %-10s %-9s %9.3f %8.2fx of insert (%.3f ns/key), per-key new flags\n", n,
            simdbloom::layout_name(layout), (dispatched + "*").c_str(), "ins+fresh", with_fresh,
            with_fresh / plain, plain);
      }
      std::fflush(stdout);
    }
  }
  simdbloom::reset_target();
}

}  // namespace sbbench
