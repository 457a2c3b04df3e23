// SPDX-License-Identifier: Apache-2.0
// Section "calibration": does the prefetch distance the library measures at first use
// (lib/core/prefetch.cc) find the best one? For block512 filters of --calib-keys u64 keys (default
// 1e6, 1e7, 1e8), bulk insert and contains are timed at every forced distance of a sweep, and
// with the library's own choice; each row gives the chosen distance, its time against the best of
// the sweep (goal: within 5%), and what the measurement cost on first use.
//
// Reaches past the public API like memory.cc (the distance is not part of it): lib/core/layout.h's
// detail::PrefetchDistance, SetPrefetchOverride and ResetPrefetchCalibration.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lib/core/prefetch.h"

namespace sbbench {

void CalibrationSection(const Options& o) {
  namespace sd = simdbloom::detail;
  if (!o.json) {
    std::printf(
        "\n== Calibration: block512, fpp %g, target %s; ns/key at forced prefetch distances "
        "and at the\n   distance the library measured on first use (auto), against the best of "
        "the sweep\n",
        o.fpp, simdbloom::active_target().c_str());
    std::printf("%12s %-9s %5s %10s %10s %9s %8s %9s %s\n", "keys", "op", "auto", "auto ns",
                "best ns", "best at", "ratio", "calib ms", "sweep (distance:ns)");
  }
  for (size_t n : o.calib_keys) {
    uint64_t s = 4242 + n;
    std::vector<uint64_t> keys(n);
    for (auto& k : keys) k = SplitMix(s);
    std::vector<uint8_t> out(n);
    Filter f = Filter::create(n, o.fpp, Layout::kBlock512);
    // The first use, timed: the measurement itself.
    sd::ResetPrefetchCalibration();
    const double t0 = Now();
    (void)sd::PrefetchDistance(f);
    const double calib_ms = (Now() - t0) * 1e3;
    f.insert(keys);
    const int reps_n = n >= 100000000 ? 3 : 5;
    // One timed call of op at the distance set (override d >= 0, or the library's own: -1).
    auto once = [&](int op, int d) {
      sd::SetPrefetchOverride(d);
      if (op == 0) f.clear();
      const double t = Now();
      if (op == 0) {
        f.insert(keys);
      } else {
        f.contains(keys, out.data());
      }
      const double ns = (Now() - t) * 1e9 / static_cast<double>(n);
      sd::SetPrefetchOverride(-1);
      return ns;
    };
    const int sweep[] = {0, 8, 16, 32, 48, 64, 96, 128, 192, 256};
    constexpr int kSweep = sizeof(sweep) / sizeof(sweep[0]);
    for (int op = 0; op < 2; ++op) {
      const char* name = op == 0 ? "insert" : "contains";
      // The library's first large call on the size class tunes its distance on its own keys
      // (lib/core/layout.h, DistanceTuner): timed apart, then every later call uses the result.
      sd::ResetPrefetchCalibration();
      const uint32_t first_use = sd::PrefetchDistance(f);
      const double first_ns = once(op, -1);
      const uint32_t tuned = sd::PrefetchDistance(f);
      const bool was_tuned = sd::PrefetchTuned(f);
      // Rounds over the sweep and the library's choice, interleaved, so that the machine's drift
      // over minutes weighs on every distance alike; the median per distance.
      std::vector<std::vector<double>> samples(kSweep + 1);
      // Each round starts at another entry: a call's time depends on the one before it (what it
      // left in the caches; 10-15% on the Zen 5 VM), so no entry keeps the same place.
      for (int r = 0; r < reps_n; ++r) {
        for (int j = 0; j <= kSweep; ++j) {
          const int i = (j + r * 5) % (kSweep + 1);
          samples[i].push_back(once(op, i < kSweep ? sweep[i] : -1));
        }
      }
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      std::vector<std::pair<int, double>> times;
      for (int i = 0; i < kSweep; ++i) times.emplace_back(sweep[i], median(samples[i]));
      const double auto_ns = median(samples[kSweep]);
      const auto best =
          *std::min_element(times.begin(), times.end(),
                            [](const std::pair<int, double>& a, const std::pair<int, double>& b) {
                              return a.second < b.second;
                            });
      // The sweep's own figure at the tuned distance, where the sweep has it.
      double at_tuned = 0;
      for (const auto& t : times) {
        if (t.first == static_cast<int>(tuned)) at_tuned = t.second;
      }
      std::string list;
      for (const auto& t : times)
        list += Fmt("%s%d:%.2f", list.empty() ? "" : " ", t.first, t.second);
      if (o.json) {
        std::printf(
            "{\"bench\":\"calibration\",\"layout\":\"block512\",\"op\":\"%s\",\"keys\":%zu,"
            "\"target\":\"%s\",\"bytes\":%zu,\"auto_distance\":%u,\"auto_ns_per_key\":%.4f,"
            "\"best_distance\":%d,\"best_ns_per_key\":%.4f,\"auto_vs_best\":%.4f,"
            "\"calibration_ms\":%.3f,\"first_use_distance\":%u,\"tuned\":%s,"
            "\"tuning_call_ns_per_key\":%.4f,\"sweep_at_auto_vs_best\":%.4f,\"sweep\":{",
            name, n, simdbloom::active_target().c_str(), f.size_bytes(), tuned, auto_ns, best.first,
            best.second, auto_ns / best.second, calib_ms, first_use, was_tuned ? "true" : "false",
            first_ns, at_tuned > 0 ? at_tuned / best.second : 0.0);
        for (size_t i = 0; i < times.size(); ++i) {
          std::printf("%s\"%d\":%.4f", i ? "," : "", times[i].first, times[i].second);
        }
        std::printf("}}\n");
      } else {
        std::printf(
            "%12zu %-9s %5u %10.3f %10.3f %9d %7.3fx %9.3f %s (first use %u%s; tuning "
            "call %.3f ns; sweep at auto %.3fx)\n",
            n, name, tuned, auto_ns, best.second, best.first, auto_ns / best.second, calib_ms,
            list.c_str(), first_use, was_tuned ? ", tuned in a call" : "", first_ns,
            at_tuned > 0 ? at_tuned / best.second : 0.0);
      }
      std::fflush(stdout);
      if (n == o.calib_keys.back()) {
        AddSummary(Fmt(
            "Prefetch calibration, %zu keys (%.0f MB): the library's distance (%u keys ahead; "
            "first use measured %u in %.2f ms%s) makes %s %.3fx the time of the best distance "
            "of a sweep (%d).",
            n, f.size_bytes() / 1e6, tuned, first_use, calib_ms,
            was_tuned ? ", then a call tuned it" : "", name, auto_ns / best.second, best.first));
      }
    }
  }
}

}  // namespace sbbench
