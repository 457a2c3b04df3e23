// Section "calibration": does the prefetch distance the library measures at first use
// (lib/prefetch.cc) find the best one? For block512 filters of --calib-keys u64 keys (default
// 1e6, 1e7, 1e8), bulk insert and contains are timed at every forced distance of a sweep, and
// with the library's own choice; each row gives the chosen distance, its time against the best of
// the sweep (goal: within 5%), and what the measurement cost on first use.
//
// Reaches past the public API like memory.cc (the distance is not part of it): lib/layout.h's
// detail::PrefetchDistance, SetPrefetchOverride and ResetPrefetchCalibration.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"
#include "lib/layout.h"

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
  Options reps = o;
  reps.min_seconds = 0;
  for (size_t n : o.calib_keys) {
    uint64_t s = 4242 + n;
    std::vector<uint64_t> keys(n);
    for (auto& k : keys) k = SplitMix(s);
    std::vector<uint8_t> out(n);
    Filter f = Filter::create(n, o.fpp, Layout::kBlock512);
    // The first use, timed: the measurement itself.
    sd::ResetPrefetchCalibration();
    const double t0 = Now();
    const uint32_t chosen = sd::PrefetchDistance(f);
    const double calib_ms = (Now() - t0) * 1e3;
    f.insert(keys);
    const int reps_n = n >= 100000000 ? 3 : 5;
    auto insert_ns = [&] {
      return MedianNsPerKey(
          reps, n, [&] { f.clear(); }, [&] { f.insert(keys); }, reps_n);
    };
    auto contains_ns = [&] {
      return MedianNsPerKey(
          reps, n, [] {}, [&] { f.contains(keys, out.data()); }, reps_n);
    };
    const int sweep[] = {0, 8, 16, 32, 48, 64, 96, 128, 192, 256};
    for (int op = 0; op < 2; ++op) {
      const char* name = op == 0 ? "insert" : "contains";
      std::vector<std::pair<int, double>> times;
      for (int d : sweep) {
        sd::SetPrefetchOverride(d);
        times.emplace_back(d, op == 0 ? insert_ns() : contains_ns());
      }
      sd::SetPrefetchOverride(-1);
      const double auto_ns = op == 0 ? insert_ns() : contains_ns();
      const auto best =
          *std::min_element(times.begin(), times.end(),
                            [](const std::pair<int, double>& a, const std::pair<int, double>& b) {
                              return a.second < b.second;
                            });
      std::string list;
      for (const auto& t : times)
        list += Fmt("%s%d:%.2f", list.empty() ? "" : " ", t.first, t.second);
      if (o.json) {
        std::printf(
            "{\"bench\":\"calibration\",\"layout\":\"block512\",\"op\":\"%s\",\"keys\":%zu,"
            "\"target\":\"%s\",\"bytes\":%zu,\"auto_distance\":%u,\"auto_ns_per_key\":%.4f,"
            "\"best_distance\":%d,\"best_ns_per_key\":%.4f,\"auto_vs_best\":%.4f,"
            "\"calibration_ms\":%.3f,\"sweep\":{",
            name, n, simdbloom::active_target().c_str(), f.size_bytes(), chosen, auto_ns,
            best.first, best.second, auto_ns / best.second, calib_ms);
        for (size_t i = 0; i < times.size(); ++i) {
          std::printf("%s\"%d\":%.4f", i ? "," : "", times[i].first, times[i].second);
        }
        std::printf("}}\n");
      } else {
        std::printf("%12zu %-9s %5u %10.3f %10.3f %9d %7.3fx %9.3f %s\n", n, name, chosen, auto_ns,
                    best.second, best.first, auto_ns / best.second, calib_ms, list.c_str());
      }
      std::fflush(stdout);
      if (n == o.calib_keys.back()) {
        AddSummary(Fmt(
            "Prefetch calibration, %zu keys (%.0f MB): the distance measured at first "
            "use (%u keys ahead, %.2f ms) makes %s %.3fx the time of the best distance "
            "of a sweep (%d).",
            n, f.size_bytes() / 1e6, chosen, calib_ms, name, auto_ns / best.second, best.first));
      }
    }
  }
}

}  // namespace sbbench
