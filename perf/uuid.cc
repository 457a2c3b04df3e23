// SPDX-License-Identifier: Apache-2.0
// Section 5, UUIDs: the tutorial experiment with strings. --fpr-keys version-4 UUIDs in their
// 36-character text form are inserted (as an Arrow array) into a filter of every layout at fpp
// 0.03 and 0.001; as many other UUIDs are probed. Per row: k, bits per key, the layout's
// predicted rate, the measured rate and its ratio to the requested one; every inserted key must
// be found. Then the speed of strings: bulk insert and contains of the UUIDs and of as many
// URL-like strings (20..100 bytes) into block512 at fpp 0.03, against a plain XXH3 pass over the
// same strings (libxxhash, one call per string, in the same run): the goal is the filter within
// 1.25x of hashing alone.
#include <cstdio>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_util.h"

namespace sbbench {

void UuidSection(const Options& o) {
  const size_t n = o.fpr_keys;
  if (!o.json) {
    std::printf("\n== UUIDs: %zu version-4 UUID strings inserted, %zu other UUIDs probed\n", n, n);
    std::printf("%-15s %6s %3s %10s %10s %10s %9s %s\n", "layout", "fpp", "k", "bits/key",
                "predicted", "measured", "meas/fpp", "");
  }
  const Column keys(Uuids(n, 1));
  const Column absent(Uuids(n, 2));  // distinct from the keys with probability 1 - 1e-23
  std::vector<uint8_t> out(n);
  bool all_ok = true;
  for (double fpp : {0.03, 0.001}) {
    for (Layout layout : kLayouts) {
      Filter f = Filter::create(n, fpp, layout);
      f.insert(keys.Arrow());
      const bool no_false_negative = f.contains(keys.Arrow(), out.data()) == n;
      const uint64_t fp = f.contains(absent.Arrow(), out.data());
      const double measured = static_cast<double>(fp) / static_cast<double>(n);
      const double predicted = f.predicted_fpp(n);
      const bool ok = measured <= fpp && no_false_negative;
      all_ok = all_ok && ok;
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      if (o.json) {
        std::printf(
            "{\"bench\":\"uuid\",\"keys\":%zu,\"layout\":\"%s\",\"fpp_requested\":%g,\"k\":%u,"
            "\"bits_per_key\":%.3f,\"fpr_predicted\":%.6g,\"fpr_measured\":%.6g,"
            "\"false_negatives\":%s}\n",
            n, simdbloom::layout_name(layout), fpp, f.num_hashes(), bpk, predicted, measured,
            no_false_negative ? "false" : "true");
      } else {
        std::printf("%-15s %6g %3u %10.3f %10.6f %10.6f %9.3f %s\n", simdbloom::layout_name(layout),
                    fpp, f.num_hashes(), bpk, predicted, measured, measured / fpp,
                    ok ? "ok" : (no_false_negative ? "ABOVE REQUESTED" : "FALSE NEGATIVE"));
      }
      std::fflush(stdout);
    }
  }
  if (!o.json) {
    std::printf("%s\n", all_ok ? "every measured rate is at or below the requested one"
                               : "SOME MEASURED RATE EXCEEDS THE REQUESTED ONE");
    std::printf("\n-- strings, block512 at fpp 0.03, target %s, against a plain XXH3 pass\n",
                simdbloom::active_target().c_str());
    RowHeader();
  }
  const Column urls(Urls(n, 3));
  Options reps = o;
  reps.min_seconds = 0.3;
  for (const Column* c : {&keys, &urls}) {
    const std::string name = c == &keys ? "UUID 36 B" : "URL 20..100 B";
    const auto arrow = c->Arrow();
    const double pass = MedianNsPerKey(
        reps, n, [] {},
        [&] {
          uint64_t sum = 0;
          for (size_t i = 0; i < n; ++i) {
            sum += XXH3_64bits_withSeed(c->data.data() + c->offsets[i],
                                        static_cast<size_t>(c->offsets[i + 1] - c->offsets[i]), 0);
          }
          g_sink = sum;
        });
    Filter f = Filter::create(n, 0.03, Layout::kBlock512);
    const double ins = MedianNsPerKey(
        reps, n, [&] { f.clear(); }, [&] { f.insert(arrow); });
    const double con = MedianNsPerKey(
        reps, n, [] {}, [&] { f.contains(arrow, out.data()); });
    Row(o, "uuid", name + " insert", "2MiB", n, ins, pass, "xxh3 pass");
    Row(o, "uuid", name + " contains", "2MiB", n, con, pass, "xxh3 pass");
    if (c == &keys) {
      AddSummary(
          Fmt("Strings: %zu UUIDs (36 bytes) go into a filter at %.2fx and are checked at "
              "%.2fx the time of hashing them alone (XXH3, one call per string).",
              n, ins / pass, con / pass));
    }
  }
}

}  // namespace sbbench
