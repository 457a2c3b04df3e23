// SPDX-License-Identifier: Apache-2.0
// Section 2, false-positive rates: the classic tutorial experiment. --fpr-keys u64 keys (default
// 1e7) drawn uniform, Gaussian and exponential; filters created for fpp 0.03, 0.01 and 0.001 in
// every layout on the dispatched target. The measured rate is over as many absent keys drawn from
// the same distribution (the draws equal to an inserted key removed), shown against the requested
// rate and the layout's own prediction for the number of distinct keys; every inserted key must
// be found. One line of the summary: whether every rate was at or below the rate asked for.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {

namespace {

// n keys of a distribution, as u64 (Gaussian values are rounded and stored as two's complement).
std::vector<uint64_t> Draw(const std::string& dist, size_t n, uint64_t seed) {
  std::vector<uint64_t> v(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    if (dist == "uniform") {
      v[i] = SplitMix(s);
    } else if (dist == "gaussian") {  // N(0, 1) * 1e9, Box-Muller
      const double u1 = Uniform01(s), u2 = Uniform01(s);
      const double g = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      v[i] = static_cast<uint64_t>(static_cast<int64_t>(std::llround(g * 1e9)));
    } else {  // exponential: Exp(1) * 1e9
      v[i] = static_cast<uint64_t>(std::llround(-std::log(Uniform01(s)) * 1e9));
    }
  }
  return v;
}

}  // namespace

void FprSection(const Options& o) {
  const size_t n = o.fpr_keys;
  if (!o.json) {
    std::printf(
        "\n== False-positive rates: %zu u64 keys per distribution, filters created for %zu keys;"
        "\n   measured over %zu absent keys from the same distribution (dispatched target %s)\n",
        n, n, n, simdbloom::active_target().c_str());
    std::printf("%-12s %9s %-15s %6s %3s %10s %10s %10s %9s %s\n", "distribution", "distinct",
                "layout", "fpp", "k", "bits/key", "predicted", "measured", "meas/fpp", "");
  }
  bool all_ok = true;
  double worst = 0;
  bool any_false_negative = false;
  for (const std::string dist : {"uniform", "gaussian", "exponential"}) {
    std::vector<uint64_t> keys = Draw(dist, n, 1);
    std::vector<uint64_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    const size_t distinct = sorted.size();
    // Absent keys: draws from the same distribution that are not among the keys.
    std::vector<uint64_t> candidates = Draw(dist, n, 2);
    std::sort(candidates.begin(), candidates.end());
    std::vector<uint64_t> absent;
    absent.reserve(n);
    std::set_difference(candidates.begin(), candidates.end(), sorted.begin(), sorted.end(),
                        std::back_inserter(absent));
    std::vector<uint8_t> out(std::max(keys.size(), absent.size()));
    for (double fpp : {0.03, 0.01, 0.001}) {
      for (Layout layout : kLayouts) {
        Filter f = Filter::create(n, fpp, layout);
        f.insert(keys);
        f.contains(keys, out.data());
        const bool no_false_negative =
            CountOnes(out) >= keys.size() &&
            std::all_of(out.begin(), out.begin() + keys.size(), [](uint8_t x) { return x == 1; });
        f.contains(absent, out.data());
        size_t fp = 0;
        for (size_t i = 0; i < absent.size(); ++i) fp += out[i];
        const double measured = static_cast<double>(fp) / static_cast<double>(absent.size());
        const double predicted = f.predicted_fpp(distinct);
        const bool ok = measured <= fpp && no_false_negative;
        all_ok = all_ok && ok;
        worst = std::max(worst, measured / fpp);
        any_false_negative = any_false_negative || !no_false_negative;
        const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
        if (o.json) {
          std::printf(
              "{\"bench\":\"fpr\",\"distribution\":\"%s\",\"keys\":%zu,\"distinct\":%zu,"
              "\"layout\":\"%s\",\"fpp_requested\":%g,\"k\":%u,\"bits_per_key\":%.3f,"
              "\"fpr_predicted\":%.6g,\"fpr_measured\":%.6g,\"absent_probes\":%zu,"
              "\"false_negatives\":%s,\"measured_le_requested\":%s}\n",
              dist.c_str(), n, distinct, simdbloom::layout_name(layout), fpp, f.num_hashes(), bpk,
              predicted, measured, absent.size(), no_false_negative ? "false" : "true",
              ok ? "true" : "false");
        } else {
          std::printf("%-12s %9zu %-15s %6g %3u %10.3f %10.6f %10.6f %9.3f %s\n", dist.c_str(),
                      distinct, simdbloom::layout_name(layout), fpp, f.num_hashes(), bpk, predicted,
                      measured, measured / fpp,
                      ok ? "ok" : (no_false_negative ? "ABOVE REQUESTED" : "FALSE NEGATIVE"));
        }
        std::fflush(stdout);
      }
    }
  }
  if (!o.json) {
    std::printf("%s\n", all_ok ? "every measured rate is at or below the requested one"
                               : "SOME MEASURED RATE EXCEEDS THE REQUESTED ONE");
  }
  AddSummary(
      Fmt("False positives (a key never inserted that the filter says may be "
          "present): %s, over 36 filters of %zu keys (3 key distributions, rates "
          "3%%, 1%% and 0.1%%, 4 layouts); worst measured/asked %.2f. %s",
          all_ok ? "every measured rate was at or below the rate asked for"
                 : "SOME MEASURED RATE WAS ABOVE THE RATE ASKED FOR",
          n, worst,
          any_false_negative ? "AN INSERTED KEY WAS MISSED (false negative)."
                             : "No inserted key was ever missed."));
}

}  // namespace sbbench
