// simdbloom-bench: bulk insert and bulk contains of u64 keys (hashing included), for the scalar
// reference and every SIMD target this CPU runs, in one process and one run, on built-in data.
// Prints a table; with --json, one JSON object per measurement (one per line).
//
//   simdbloom-bench [--json] [--keys N[,N...]] [--fpp P] [--min-seconds S]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "simdbloom/simdbloom.hpp"

namespace {

struct Options {
  bool json = false;
  std::vector<size_t> keys = {100000, 10000000};
  double fpp = 0.01;
  double min_seconds = 0.25;  // per measurement; at least 3 repetitions
};

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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

struct Row {
  size_t keys;
  std::string target;
  std::string op;
  double ns_per_key;
  double speedup;  // vs the reference, same run
  double bits_per_key;
  uint32_t k;
  double fpr;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
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
      std::string list = value("--keys");
      for (size_t pos = 0; pos <= list.size();) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        const double v = std::atof(list.substr(pos, comma - pos).c_str());
        if (v < 1) return false;
        o->keys.push_back(static_cast<size_t>(v));
        pos = comma + 1;
      }
    } else if (a == "--fpp") {
      o->fpp = std::atof(value("--fpp"));
    } else if (a == "--min-seconds") {
      o->min_seconds = std::atof(value("--min-seconds"));
    } else {
      return false;
    }
  }
  return !o->keys.empty() && o->fpp > 0 && o->fpp < 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: simdbloom-bench [--json] [--keys N[,N...]] [--fpp P] "
                 "[--min-seconds S]\n");
    return 2;
  }
  try {
    std::vector<std::string> targets = simdbloom::available_targets();
    // The reference first: every other row is compared with it.
    std::rotate(targets.begin(), targets.end() - 1, targets.end());
    const std::string dispatched = simdbloom::active_target();
    std::vector<Row> rows;
    for (size_t n : o.keys) {
      uint64_t s = 12345 + n;
      std::vector<uint64_t> keys(n), absent(n);
      for (auto& k : keys) k = SplitMix(s);
      for (auto& k : absent) k = SplitMix(s);
      simdbloom::Filter f = simdbloom::Filter::create(n, o.fpp);
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      std::vector<uint8_t> out(n);
      double ref_insert = 0, ref_contains = 0;
      for (const std::string& t : targets) {
        simdbloom::set_target(t);
        const double ins = MedianNsPerKey(
            o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
        // Queries: half present, half absent (separate calls of n/2 keys each count as n keys).
        const double con = MedianNsPerKey(
            o, n, [] {},
            [&] {
              f.contains(simdbloom::Span<const uint64_t>(keys.data(), n / 2), out.data());
              f.contains(simdbloom::Span<const uint64_t>(absent.data(), n - n / 2),
                         out.data() + n / 2);
            });
        f.contains(absent, out.data());
        size_t fp = 0;
        for (uint8_t v : out) fp += v;
        const double fpr = static_cast<double>(fp) / static_cast<double>(n);
        if (t == "reference") {
          ref_insert = ins;
          ref_contains = con;
        }
        const std::string name = t == dispatched ? t + "*" : t;
        rows.push_back(Row{n, name, "insert", ins, ref_insert / ins, bpk, f.num_hashes(), fpr});
        rows.push_back(Row{n, name, "contains", con, ref_contains / con, bpk, f.num_hashes(), fpr});
      }
    }
    simdbloom::reset_target();
    if (o.json) {
      for (const Row& r : rows) {
        std::string t = r.target;
        const bool is_dispatched = !t.empty() && t.back() == '*';
        if (is_dispatched) t.pop_back();
        std::printf(
            "{\"bench\":\"u64\",\"layout\":\"block512\",\"op\":\"%s\",\"keys\":%zu,"
            "\"target\":\"%s\",\"dispatched\":%s,\"ns_per_key\":%.4f,\"keys_per_s\":%.4g,"
            "\"speedup_vs_reference\":%.3f,\"bits_per_key\":%.3f,\"k\":%u,"
            "\"fpp_requested\":%g,\"fpr_measured\":%.6f}\n",
            r.op.c_str(), r.keys, t.c_str(), is_dispatched ? "true" : "false", r.ns_per_key,
            1e9 / r.ns_per_key, r.speedup, r.bits_per_key, r.k, o.fpp, r.fpr);
      }
    } else {
      std::printf("simdbloom %s  block512, u64 keys, hashing included, fpp %g  (* = dispatched)\n",
                  simdbloom::version(), o.fpp);
      std::printf("%10s  %-11s %-9s %9s %12s %10s %9s %3s %10s\n", "keys", "target", "op", "ns/key",
                  "Mkeys/s", "vs ref", "bits/key", "k", "FPR");
      for (const Row& r : rows) {
        std::printf("%10zu  %-11s %-9s %9.3f %12.1f %9.2fx %9.2f %3u %10.5f\n", r.keys,
                    r.target.c_str(), r.op.c_str(), r.ns_per_key, 1e3 / r.ns_per_key, r.speedup,
                    r.bits_per_key, r.k, r.fpr);
      }
    }
  } catch (const simdbloom::Error& e) {
    std::fprintf(stderr, "simdbloom-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
