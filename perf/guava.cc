// SPDX-License-Identifier: Apache-2.0
// Section guava (opt-in, --only guava): Guava's layouts (guava = MURMUR128_MITZ_64, guava32 =
// MURMUR128_MITZ_32; bit-exact with com.google.common.hash.BloomFilter) against classic, the
// library's own layout of the same kind (k bits anywhere in the array), at --fpp and each size
// of --keys. The keys are those of perf/guava/GuavaBench.java (SplitMix64 from seed 12345 + n:
// n present keys, then n absent ones), so perf/guava_bench.sh puts Guava's own put/mightContain
// loop, timed in a warmed-up JVM in the same run, beside these rows. Per layout and size:
// bulk insert and contains (half present, half absent keys), one key per call (insert and
// contains in a loop, as Guava's API is used), bits per key, k, and the false-positive rate
// measured over the n absent keys against predicted_fpp. Medians of at least 3 repetitions of
// at least --min-seconds each.
#include <cstdio>
#include <vector>

#include "bench_util.h"

namespace sbbench {

void GuavaSection(const Options& o) {
  if (!o.json) {
    std::printf(
        "\n== Guava's layouts against classic: u64 keys, fpp %g, target %s; ns per key "
        "(median)\n",
        o.fpp, simdbloom::active_target().c_str());
    std::printf("%10s  %-9s %9s %9s %9s %9s %9s %3s %9s %9s\n", "keys", "layout", "bulk ins",
                "bulk con", "one ins", "one con", "bits/key", "k", "FPR", "predicted");
  }
  for (size_t n : o.keys) {
    Workload w(n, 12345 + n);
    const std::vector<uint64_t>& keys = w.keys;
    for (Layout layout : {Layout::kGuava, Layout::kGuava32, Layout::kClassic}) {
      Filter f = Filter::create(n, o.fpp, layout);
      const double bulk_ins = InsertNs(o, f, w);
      const double bulk_con = ContainsNs(o, f, w);
      const double one_ins = MedianNsPerKey(
          o, n, [&] { f.clear(); },
          [&] {
            for (size_t i = 0; i < n; ++i) f.insert(keys[i]);
          });
      uint64_t hits = 0;
      const double one_con = MedianNsPerKey(
          o, n, [] {},
          [&] {
            uint64_t h = 0;
            for (size_t i = 0; i < n / 2; ++i) h += f.contains(keys[i]);
            for (size_t i = n / 2; i < n; ++i) h += f.contains(w.absent[i]);
            hits = h;
          });
      g_sink = hits;
      const double fpr = MeasuredFpr(f, w);
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      const double predicted = f.predicted_fpp(n);
      if (o.json) {
        std::printf(
            "{\"bench\":\"guava\",\"layout\":\"%s\",\"keys\":%zu,\"target\":\"%s\","
            "\"fpp_requested\":%g,\"bits\":%llu,\"k\":%u,\"bulk_insert_ns\":%.4f,"
            "\"bulk_contains_ns\":%.4f,\"one_insert_ns\":%.4f,\"one_contains_ns\":%.4f,"
            "\"fpr_measured\":%.6f,\"fpr_predicted\":%.6f}\n",
            simdbloom::layout_name(layout), n, simdbloom::active_target().c_str(), o.fpp,
            static_cast<unsigned long long>(f.bit_count()), f.num_hashes(), bulk_ins, bulk_con,
            one_ins, one_con, fpr, predicted);
      } else {
        std::printf("%10zu  %-9s %9.2f %9.2f %9.2f %9.2f %9.2f %3u %9.5f %9.5f\n", n,
                    simdbloom::layout_name(layout), bulk_ins, bulk_con, one_ins, one_con, bpk,
                    f.num_hashes(), fpr, predicted);
      }
      std::fflush(stdout);
    }
  }
}

}  // namespace sbbench
