// Section counting (opt-in: --only counting): the counting filter against plain filters on the
// dispatched target. For each --keys count and --fpp: bulk insert (cleared before each
// repetition, untimed), remove (the keys inserted again before each repetition, untimed), contains
// (half present, half absent keys) and count, in ns/key; memory in bits per key; the measured
// false-positive rate over n absent keys against the asked rate. Plain block512 (the default
// filter, the yardstick of the "at most 2x") and register64 (the plain layout a blocked
// counting filter's to_filter() gives) are measured in the same run.
#include "simdbloom/counting.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {

namespace {

struct Result {
  std::string kind;
  double insert = 0, remove = -1, contains = 0, count = -1;
  double bits_per_key = 0, fpr = 0;
  uint32_t k = 0;
};

void Print(const Options& o, size_t n, const Result& r, const Result& base) {
  if (o.json) {
    std::printf(
        "{\"bench\":\"counting\",\"filter\":\"%s\",\"keys\":%zu,\"target\":\"%s\","
        "\"insert_ns_per_key\":%.4f,\"remove_ns_per_key\":%.4f,\"contains_ns_per_key\":%.4f,"
        "\"count_ns_per_key\":%.4f,\"insert_vs_block512\":%.3f,\"remove_vs_block512_insert\":%.3f,"
        "\"contains_vs_block512\":%.3f,\"bits_per_key\":%.3f,\"bytes_per_key\":%.3f,\"k\":%u,"
        "\"fpp_requested\":%g,\"fpr_measured\":%.6f}\n",
        r.kind.c_str(), n, simdbloom::active_target().c_str(), r.insert, r.remove, r.contains,
        r.count, r.insert / base.insert, r.remove / base.insert, r.contains / base.contains,
        r.bits_per_key, r.bits_per_key / 8, r.k, o.fpp, r.fpr);
  } else {
    auto cell = [](double v) { return v < 0 ? std::string("-") : Fmt("%.3f", v); };
    std::printf("%10zu  %-18s %9.3f %9s %9.3f %9s %7.2fx %7.2fx %9.2f %3u %9.5f\n", n,
                r.kind.c_str(), r.insert, cell(r.remove).c_str(), r.contains, cell(r.count).c_str(),
                r.insert / base.insert, r.contains / base.contains, r.bits_per_key, r.k, r.fpr);
  }
  std::fflush(stdout);
}

}  // namespace

void CountingSection(const Options& o) {
  if (!o.json) {
    std::printf(
        "== Counting filter (target %s, fpp %g): ns/key; x = counting / plain block512 (insert, "
        "contains)\n",
        simdbloom::active_target().c_str(), o.fpp);
    std::printf("%10s  %-18s %9s %9s %9s %9s %8s %8s %9s %3s %9s\n", "keys", "filter", "insert",
                "remove", "contains", "count", "x ins", "x con", "bits/key", "k", "FPR");
  }
  for (size_t n : o.keys) {
    uint64_t s = 777 + n;
    std::vector<uint64_t> keys(n), absent(n);
    for (auto& k : keys) k = SplitMix(s);
    for (auto& k : absent) k = SplitMix(s);
    std::vector<uint8_t> out(n);
    const simdbloom::Span<const uint64_t> present_half(keys.data(), n / 2);
    const simdbloom::Span<const uint64_t> absent_half(absent.data(), n - n / 2);
    Result base;
    for (Layout layout : {Layout::kBlock512, Layout::kRegister64}) {
      Filter f = Filter::create(n, o.fpp, layout);
      Result r;
      r.kind = std::string("plain ") + simdbloom::layout_name(layout);
      r.insert = MedianNsPerKey(
          o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
      r.contains = MedianNsPerKey(
          o, n, [] {},
          [&] {
            f.contains(present_half, out.data());
            f.contains(absent_half, out.data() + n / 2);
          });
      f.contains(absent, out.data());
      r.fpr = static_cast<double>(CountOnes(out)) / static_cast<double>(n);
      r.bits_per_key = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      r.k = f.num_hashes();
      if (layout == Layout::kBlock512) base = r;
      Print(o, n, r, base);
    }
    for (simdbloom::CountingLayout layout :
         {simdbloom::CountingLayout::kBlocked, simdbloom::CountingLayout::kClassic}) {
      simdbloom::CountingFilter f = simdbloom::CountingFilter::create(n, o.fpp, layout);
      Result r;
      r.kind = std::string("counting ") + simdbloom::counting_layout_name(layout);
      r.insert = MedianNsPerKey(
          o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
      r.remove = MedianNsPerKey(
          o, n,
          [&] {
            f.clear();
            f.insert(keys);
          },
          [&] { f.remove(keys); });
      f.clear();
      f.insert(keys);
      r.contains = MedianNsPerKey(
          o, n, [] {},
          [&] {
            f.contains(present_half, out.data());
            f.contains(absent_half, out.data() + n / 2);
          });
      r.count = MedianNsPerKey(
          o, n, [] {},
          [&] {
            f.count(present_half, out.data());
            f.count(absent_half, out.data() + n / 2);
          });
      f.contains(absent, out.data());
      r.fpr = static_cast<double>(CountOnes(out)) / static_cast<double>(n);
      r.bits_per_key = 8.0 * static_cast<double>(f.size_bytes()) / static_cast<double>(n);
      r.k = f.num_hashes();
      Print(o, n, r, base);
      if (!o.json && layout == simdbloom::CountingLayout::kBlocked) {
        AddSummary(
            Fmt("Counting filter, %zu keys: insert %.2f, remove %.2f, contains %.2f ns/key "
                "(%.1fx, %.1fx, %.1fx the plain block512 filter's insert/insert/contains); "
                "%.1f bits per key, FPR %.3f%% measured for %.2f%% asked.",
                n, r.insert, r.remove, r.contains, r.insert / base.insert, r.remove / base.insert,
                r.contains / base.contains, r.bits_per_key, 100 * r.fpr, 100 * o.fpp));
      }
    }
  }
}

}  // namespace sbbench
