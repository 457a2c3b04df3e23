// Section 5, UUIDs: the tutorial experiment with strings. --fpr-keys version-4 UUIDs in their
// 36-character text form are inserted (as an Arrow array) into a filter of every layout at fpp
// 0.03 and 0.001; as many other UUIDs are probed. Per row: k, bits per key, the layout's
// predicted rate, the measured rate and its ratio to the requested one; every inserted key must
// be found.
#include <cstdio>
#include <string>
#include <vector>

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
  }
}

}  // namespace sbbench
