// SPDX-License-Identifier: Apache-2.0
// Section scalable (opt-in: --only scalable, ~10 s): ScalableFilter against a plain block512
// filter sized for the final key count, at each --keys count (1e5 and 1e7 by default) and --fpp,
// on the dispatched target, u64 keys. Two chains: one grown from 1/1000 of the keys (about ten
// stages, the case a scalable filter is for) and one whose first stage already holds them all
// (the price of its tighter first-stage rate alone). Per row: median ns/key of bulk insert into
// a new chain (created untimed before each repetition, so adding stages - size_for, allocating
// and zeroing each - is timed with the inserts; the one-stage chain is cleared instead, as the
// plain filter is) and bulk contains (half present, half absent keys:
// absent keys visit every stage), the ratio to the plain filter, bits per key, stages, and the
// false-positive rate measured over n absent keys against the requested one and the chain's
// expected_fpp().
#include "simdbloom/scalable.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {

namespace {

struct Result {
  double insert_ns, contains_ns, bits_per_key, fpr, expected;
  size_t stages;
};

void PrintRow(const Options& o, size_t n, const char* kind, uint64_t initial, const Result& r,
              const Result& plain) {
  for (int op = 0; op < 2; ++op) {
    const double ns = op == 0 ? r.insert_ns : r.contains_ns;
    const double ratio = ns / (op == 0 ? plain.insert_ns : plain.contains_ns);
    const char* op_name = op == 0 ? "insert" : "contains";
    if (o.json) {
      std::printf(
          "{\"bench\":\"scalable\",\"kind\":\"%s\",\"op\":\"%s\",\"keys\":%zu,"
          "\"initial_capacity\":%llu,\"stages\":%zu,\"target\":\"%s\",\"ns_per_key\":%.4f,"
          "\"ratio_vs_plain\":%.3f,\"bits_per_key\":%.3f,\"fpp_requested\":%g,"
          "\"fpr_measured\":%.6f,\"expected_fpp\":%.6f}\n",
          kind, op_name, n, static_cast<unsigned long long>(initial), r.stages,
          simdbloom::active_target().c_str(), ns, ratio, r.bits_per_key, o.fpp, r.fpr, r.expected);
    } else {
      std::printf("%10zu  %-22s %9llu %6zu %-9s %9.3f %8.2fx %9.2f %9.5f %9.5f\n", n, kind,
                  static_cast<unsigned long long>(initial), r.stages, op_name, ns, ratio,
                  r.bits_per_key, r.fpr, r.expected);
    }
  }
}

}  // namespace

void ScalableSection(const Options& o) {
  if (!o.json) {
    std::printf(
        "\n== Scalable: ScalableFilter (block512 stages, s 2, r 0.85) vs a plain block512 filter "
        "sized for all keys, u64 keys, fpp %g, target %s\n",
        o.fpp, simdbloom::active_target().c_str());
    std::printf("%10s  %-22s %9s %6s %-9s %9s %9s %9s %9s %9s\n", "keys", "filter", "initial",
                "stages", "op", "ns/key", "vs plain", "bits/key", "FPR", "expected");
  }
  for (size_t n : o.keys) {
    Workload w(n, 4242 + n);
    const std::vector<uint64_t>& keys = w.keys;

    Result plain;
    {
      Filter f = Filter::create(n, o.fpp);
      plain.insert_ns = InsertNs(o, f, w);
      plain.contains_ns = ContainsNs(o, f, w);
      plain.bits_per_key = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      plain.fpr = MeasuredFpr(f, w);
      plain.expected = f.expected_fpp();
      plain.stages = 1;
    }
    PrintRow(o, n, "plain block512", n, plain, plain);

    for (const uint64_t initial : {std::max<uint64_t>(1, n / 1000), uint64_t{n}}) {
      simdbloom::ScalableFilter s = simdbloom::ScalableFilter::create(initial, o.fpp);
      Result r;
      // A new chain each time: growth (sizing, allocating and zeroing each stage) is timed.
      r.insert_ns = MedianNsPerKey(
          o, n,
          [&] {
            if (initial == n) {
              s.clear();  // one stage, never grows: its pages stay touched, as the plain filter's
            } else {
              s = simdbloom::ScalableFilter::create(initial, o.fpp);
            }
          },
          [&] { s.insert(keys); });
      r.contains_ns = ContainsNs(o, s, w);
      r.bits_per_key = s.bits_per_key();
      r.fpr = MeasuredFpr(s, w);
      r.expected = s.expected_fpp();
      r.stages = s.stages();
      const char* kind = initial == n ? "scalable, 1 stage" : "scalable, grown 1000x";
      PrintRow(o, n, kind, initial, r, plain);
      if (initial != n && !o.json) {
        AddSummary(
            Fmt("Scalable, %zu keys grown from %llu (%zu stages): insert %.2f ns/key "
                "(%.1fx the plain filter), contains %.2f ns/key (%.1fx), %.1f bits/key "
                "(plain %.1f), FPR %.4f%% for %g%% asked.",
                n, static_cast<unsigned long long>(initial), r.stages, r.insert_ns,
                r.insert_ns / plain.insert_ns, r.contains_ns, r.contains_ns / plain.contains_ns,
                r.bits_per_key, plain.bits_per_key, 100 * r.fpr, 100 * o.fpp));
      }
    }
    std::fflush(stdout);
  }
}

}  // namespace sbbench
