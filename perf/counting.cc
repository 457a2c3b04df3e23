// SPDX-License-Identifier: Apache-2.0
// Section counting (opt-in: --only counting): the counting filter against plain filters on the
// dispatched target. For each --keys count and --fpp: bulk insert (cleared before each
// repetition, untimed), remove (the keys inserted again before each repetition, untimed), contains
// (half present, half absent keys) and count, in ns/key; memory in bits per key; the measured
// false-positive rate over n absent keys against the asked rate. Plain block512 (the default
// filter, the yardstick of the "at most 2x"), register64 and classic (the plain layouts
// the counting geometries' to_filter() give), and block512 given the blocked counting filter's
// bytes ("plain block512 4x": same memory, so out of cache the same number of DRAM lines) are
// measured in the same run.
#include "simdbloom/counting.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"

namespace sbbench {

namespace {

// Median and best ns/key of repetitions (as MedianNsPerKey). On a machine shared with other jobs
// the median can land on a repetition that lost the CPU; the best is printed beside it.
struct Time {
  double median = -1, best = -1;
};
template <class Setup, class Run>
Time Measure(const Options& o, size_t n, Setup&& setup, Run&& run) {
  const std::vector<double> samples = NsPerKeySamples(o, n, setup, run, 5);
  return {samples[samples.size() / 2], samples[0]};
}

// The insert and remove times of f over `keys` (each on a filter holding just what it needs);
// leaves f holding the keys.
template <class F, class K>
void TimeInsertRemove(const Options& o, size_t n, F& f, const K& keys, Time* insert, Time* remove) {
  *insert = Measure(
      o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
  *remove = Measure(
      o, n,
      [&] {
        f.clear();
        f.insert(keys);
      },
      [&] { f.remove(keys); });
  f.clear();
  f.insert(keys);
}

struct Result {
  std::string kind;
  Time insert, remove, contains, count;
  double bits_per_key = 0, fpr = 0;
  uint32_t k = 0;
};

void Print(const Options& o, size_t n, const Result& r, const Result& base) {
  const double x_ins = r.insert.median / base.insert.median;
  const double x_con = r.contains.median / base.contains.median;
  if (o.json) {
    std::printf(
        "{\"bench\":\"counting\",\"filter\":\"%s\",\"keys\":%zu,\"target\":\"%s\","
        "\"insert_ns_per_key\":%.4f,\"remove_ns_per_key\":%.4f,\"contains_ns_per_key\":%.4f,"
        "\"count_ns_per_key\":%.4f,\"insert_best_ns\":%.4f,\"remove_best_ns\":%.4f,"
        "\"contains_best_ns\":%.4f,\"insert_vs_block512\":%.3f,"
        "\"remove_vs_block512_insert\":%.3f,\"contains_vs_block512\":%.3f,"
        "\"best_insert_vs_block512\":%.3f,\"best_contains_vs_block512\":%.3f,"
        "\"bits_per_key\":%.3f,\"bytes_per_key\":%.3f,\"k\":%u,\"fpp_requested\":%g,"
        "\"fpr_measured\":%.6f}\n",
        r.kind.c_str(), n, simdbloom::active_target().c_str(), r.insert.median, r.remove.median,
        r.contains.median, r.count.median, r.insert.best, r.remove.best, r.contains.best, x_ins,
        r.remove.median / base.insert.median, x_con, r.insert.best / base.insert.best,
        r.contains.best / base.contains.best, r.bits_per_key, r.bits_per_key / 8, r.k, o.fpp,
        r.fpr);
  } else {
    auto cell = [](const Time& t) {
      return t.median < 0 ? std::string("-") : Fmt("%.2f/%.2f", t.median, t.best);
    };
    std::printf("%10zu  %-18s %12s %12s %12s %12s %6.2fx %6.2fx %9.2f %3u %9.5f\n", n,
                r.kind.c_str(), cell(r.insert).c_str(), cell(r.remove).c_str(),
                cell(r.contains).c_str(), cell(r.count).c_str(), x_ins, x_con, r.bits_per_key, r.k,
                r.fpr);
  }
  std::fflush(stdout);
}

// The plain block512 and the blocked counting filter over the same keys as byte strings
// ("key-" and the decimal u64, 5-24 bytes): the string path (hashed in chunks, then the kernel).
void StringRows(const Options& o, size_t n, const std::vector<uint64_t>& keys,
                const std::vector<uint64_t>& absent_keys, const Result& base) {
  auto as_strings = [](const std::vector<uint64_t>& from) {
    std::vector<std::string> s;
    s.reserve(from.size());
    for (uint64_t k : from) s.push_back("key-" + std::to_string(k));
    return s;
  };
  const std::vector<std::string> owned = as_strings(keys), owned_absent = as_strings(absent_keys);
  const std::vector<std::string_view> strings(owned.begin(), owned.end());
  const std::vector<std::string_view> absent(owned_absent.begin(), owned_absent.end());
  std::vector<uint8_t> out(n);
  Filter plain = Filter::create(n, o.fpp, Layout::kBlock512);
  simdbloom::CountingFilter counting =
      simdbloom::CountingFilter::create(n, o.fpp, simdbloom::CountingLayout::kBlocked);
  Result p, c;
  p.kind = "plain block512 str";
  p.insert = Measure(
      o, n, [&] { plain.clear(); }, [&] { plain.insert(strings); });
  p.contains = Measure(
      o, n, [] {}, [&] { plain.contains(strings, out.data()); });
  c.kind = "counting blk str";
  TimeInsertRemove(o, n, counting, strings, &c.insert, &c.remove);
  c.contains = Measure(
      o, n, [] {}, [&] { counting.contains(strings, out.data()); });
  c.count = Measure(
      o, n, [] {}, [&] { counting.count(strings, out.data()); });
  p.k = plain.num_hashes();
  c.k = counting.num_hashes();
  p.bits_per_key = static_cast<double>(plain.bit_count()) / static_cast<double>(n);
  c.bits_per_key = 8.0 * static_cast<double>(counting.size_bytes()) / static_cast<double>(n);
  p.fpr = FractionFound(plain, absent, out);
  c.fpr = FractionFound(counting, absent, out);
  Print(o, n, p, base);
  Print(o, n, c, base);
}

}  // namespace

void CountingSection(const Options& o) {
  if (!o.json) {
    std::printf(
        "== Counting filter (target %s, fpp %g): ns/key median/best; x = median / plain "
        "block512's (insert, contains)\n",
        simdbloom::active_target().c_str(), o.fpp);
    std::printf("%10s  %-18s %12s %12s %12s %12s %7s %7s %9s %3s %9s\n", "keys", "filter", "insert",
                "remove", "contains", "count", "x ins", "x con", "bits/key", "k", "FPR");
  }
  for (size_t n : o.keys) {
    Workload w(n, 777 + n);
    const std::vector<uint64_t>& keys = w.keys;
    // Queries: half present, half absent (two calls of n/2 keys count as n keys).
    const auto half_query = [&](const auto& op) {
      return Measure(
          o, n, [] {},
          [&] {
            op(w.present_half(), w.out.data());
            op(w.absent_half(), w.out.data() + n / 2);
          });
    };
    Result base;
    // The plain filters at their own size, then block512 with as many bytes as the blocked
    // counting filter (same k as the sized one): out of cache, the counting filter's extra time
    // is mostly its 4x memory, which this row separates.
    const size_t same_bytes =
        simdbloom::CountingFilter::create(n, o.fpp, simdbloom::CountingLayout::kBlocked)
            .size_bytes();
    for (int row = 0; row < 4; ++row) {
      const Layout layout = row == 1   ? Layout::kRegister64
                            : row == 2 ? Layout::kClassic
                                       : Layout::kBlock512;
      Filter f = row < 3 ? Filter::create(n, o.fpp, layout)
                         : Filter::with_bits(8 * uint64_t{same_bytes}, base.k != 0 ? base.k : 6,
                                             Layout::kBlock512);
      Result r;
      r.kind = std::string("plain ") + simdbloom::layout_name(layout) + (row == 3 ? " 4x" : "");
      r.insert = Measure(
          o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
      r.contains = half_query([&](auto keys_, uint8_t* out) { f.contains(keys_, out); });
      r.fpr = MeasuredFpr(f, w);
      r.bits_per_key = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      r.k = f.num_hashes();
      if (row == 0) base = r;
      Print(o, n, r, base);
    }
    for (simdbloom::CountingLayout layout :
         {simdbloom::CountingLayout::kBlocked, simdbloom::CountingLayout::kClassic}) {
      simdbloom::CountingFilter f = simdbloom::CountingFilter::create(n, o.fpp, layout);
      Result r;
      r.kind = std::string("counting ") + simdbloom::counting_layout_name(layout);
      TimeInsertRemove(o, n, f, keys, &r.insert, &r.remove);
      r.contains = half_query([&](auto keys_, uint8_t* out) { f.contains(keys_, out); });
      r.count = half_query([&](auto keys_, uint8_t* out) { f.count(keys_, out); });
      r.fpr = MeasuredFpr(f, w);
      r.bits_per_key = 8.0 * static_cast<double>(f.size_bytes()) / static_cast<double>(n);
      r.k = f.num_hashes();
      Print(o, n, r, base);
      if (layout == simdbloom::CountingLayout::kBlocked) StringRows(o, n, keys, w.absent, base);
      if (!o.json && layout == simdbloom::CountingLayout::kBlocked) {
        AddSummary(Fmt(
            "Counting filter, %zu keys: insert %.2f, remove %.2f, contains %.2f ns/key "
            "(%.1fx, %.1fx, %.1fx the plain block512 filter's insert/insert/contains); "
            "%.1f bits per key, FPR %.3f%% measured for %.2f%% asked.",
            n, r.insert.median, r.remove.median, r.contains.median,
            r.insert.median / base.insert.median, r.remove.median / base.insert.median,
            r.contains.median / base.contains.median, r.bits_per_key, 100 * r.fpr, 100 * o.fpp));
      }
    }
  }
}

}  // namespace sbbench
