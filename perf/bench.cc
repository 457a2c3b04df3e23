// simdbloom-bench: the main demo and benchmark, on built-in data, in one process and one run.
//
// 1. Speed: bulk insert and bulk contains of u64 keys (hashing included) for every layout, on the
//    scalar reference and every SIMD target this CPU runs; ns/key, speed-up over the reference,
//    bits/key, k and the measured false-positive rate.
// 2. False-positive rates: the classic tutorial experiment. 10,000,000 u64 keys drawn uniform,
//    Gaussian and exponential; filters created for fpp 0.03, 0.01 and 0.001 in every layout; the
//    measured rate over 10,000,000 absent keys drawn from the same distribution, against the
//    requested rate and the layout's own prediction.
//
//   simdbloom-bench [--json] [--keys N[,N...]] [--fpp P] [--min-seconds S] [--fpr-keys N]
//                   [--only speed|fpr]
// With --json, one JSON object per measurement (one per line) instead of the tables.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "simdbloom/simdbloom.hpp"

namespace {

using simdbloom::Filter;
using simdbloom::Layout;

const Layout kLayouts[] = {Layout::kBlock512, Layout::kRegister64, Layout::kSplitBlock256,
                           Layout::kClassic};

struct Options {
  bool json = false;
  std::vector<size_t> keys = {100000, 10000000};
  double fpp = 0.01;
  double min_seconds = 0.2;  // per measurement; at least 3 repetitions
  size_t fpr_keys = 10000000;
  bool speed = true, fpr = true;
};

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform double in (0, 1), from 53 random bits; never 0.
double Uniform01(uint64_t& s) { return (static_cast<double>(SplitMix(s) >> 11) + 0.5) * 0x1p-53; }

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median ns/key of repetitions of `run` (after `setup`, untimed) until min_seconds have passed.
template <class Setup, class Run>
double MedianNsPerKey(const Options& o, size_t n, Setup&& setup, Run&& run) {
  std::vector<double> samples;
  const double start = Now();
  while (samples.size() < 3 || (Now() - start < o.min_seconds && samples.size() < 1000)) {
    setup();
    const double t0 = Now();
    run();
    samples.push_back((Now() - t0) * 1e9 / static_cast<double>(n));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

size_t CountOnes(const std::vector<uint8_t>& v) {
  size_t c = 0;
  for (uint8_t x : v) c += x;
  return c;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--json") {
      o->json = true;
    } else if (a == "--keys") {
      o->keys.clear();
      const std::string list = value("--keys");
      for (size_t pos = 0; pos <= list.size();) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        const double v = std::atof(list.substr(pos, comma - pos).c_str());
        if (v < 1) return false;
        o->keys.push_back(static_cast<size_t>(v));
        pos = comma + 1;
      }
    } else if (a == "--fpp") {
      o->fpp = std::atof(value("--fpp").c_str());
    } else if (a == "--min-seconds") {
      o->min_seconds = std::atof(value("--min-seconds").c_str());
    } else if (a == "--fpr-keys") {
      o->fpr_keys = static_cast<size_t>(std::atof(value("--fpr-keys").c_str()));
    } else if (a == "--only") {
      const std::string what = value("--only");
      if (what != "speed" && what != "fpr") return false;
      o->speed = what == "speed";
      o->fpr = what == "fpr";
    } else {
      return false;
    }
  }
  return !o->keys.empty() && o->fpp > 0 && o->fpp < 1 && o->fpr_keys >= 1000;
}

// ---- 1. Speed ----

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
    uint64_t s = 12345 + n;
    std::vector<uint64_t> keys(n), absent(n);
    for (auto& k : keys) k = SplitMix(s);
    for (auto& k : absent) k = SplitMix(s);
    std::vector<uint8_t> out(n);
    for (Layout layout : kLayouts) {
      Filter f = Filter::create(n, o.fpp, layout);
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      double ref_insert = 0, ref_contains = 0;
      for (const std::string& t : targets) {
        simdbloom::set_target(t);
        const double ins = MedianNsPerKey(
            o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
        // Queries: half present, half absent (two calls of n/2 keys count as n keys).
        const double con = MedianNsPerKey(
            o, n, [] {},
            [&] {
              f.contains(simdbloom::Span<const uint64_t>(keys.data(), n / 2), out.data());
              f.contains(simdbloom::Span<const uint64_t>(absent.data(), n - n / 2),
                         out.data() + n / 2);
            });
        f.contains(absent, out.data());
        const double fpr = static_cast<double>(CountOnes(out)) / static_cast<double>(n);
        if (t == "reference") {
          ref_insert = ins;
          ref_contains = con;
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
      std::fflush(stdout);
    }
  }
  simdbloom::reset_target();
}

// ---- 2. False-positive rates: the tutorial experiment ----

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
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: simdbloom-bench [--json] [--keys N[,N...]] [--fpp P] [--min-seconds S]"
                 " [--fpr-keys N] [--only speed|fpr]\n");
    return 2;
  }
  try {
    if (!o.json) std::printf("simdbloom %s\n", simdbloom::version());
    if (o.speed) SpeedSection(o);
    if (o.fpr) FprSection(o);
  } catch (const simdbloom::Error& e) {
    std::fprintf(stderr, "simdbloom-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
