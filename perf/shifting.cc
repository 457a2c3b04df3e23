// SPDX-License-Identifier: Apache-2.0
// Section 8, shifting (only with --only shifting: it keeps the default demo's time): the shifting
// Bloom filter family (Yang et al., VLDB 2016). At each --keys count, on the dispatched target:
// - ShBF_M (Layout::kShifting) against block512, both created for --fpp, on the dispatched target
//   and the SCALAR target: bulk insert and bulk contains ns/key (median of repetitions, as the
//   speed section; queries half present, half absent), bits/key, k, and the false-positive rate
//   measured over n absent keys against each layout's model;
// - ShBF_A (ShiftingAssociation) built from two sets of n/2 + n/10 keys overlapping in n/5
//   (n distinct): build ns/key (sort + insert), query ns/key, clear answers measured against the
//   blocked model and the paper's (1 - f)^2, false positives over n absent keys against the model;
// - ShBF_x (ShiftingMultiplicity, max count 8) built from a multiset of n distinct keys with
//   counts 1..8: build ns/key per distinct key, count ns/key, correct counts measured against the
//   model (all counts pooled), false positives.
#include "simdbloom/shifting.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {

namespace {

void Line(const Options& o, const std::string& json, const std::string& text) {
  if (o.json) {
    std::printf("{\"bench\":\"shifting\",%s}\n", json.c_str());
  } else {
    std::printf("%s\n", text.c_str());
  }
  std::fflush(stdout);
}

}  // namespace

void ShiftingSection(const Options& o) {
  const std::string target = simdbloom::active_target();
  if (!o.json) {
    std::printf("\n== Shifting Bloom filters: u64 keys, fpp %g, target %s\n", o.fpp,
                target.c_str());
  }
  for (size_t n : o.keys) {
    Workload w(n, 2016 + n);
    const std::vector<uint64_t>& keys = w.keys;
    // ShBF_M against block512, on the dispatched target and on Highway's SCALAR target (one key
    // word by word: there a query's ceil(k/2) words instead of k show; the vector kernels test
    // all 8 words of the line at once either way).
    std::vector<std::string> targets = {target};
    for (const std::string& t : simdbloom::available_targets()) {
      if (t == "SCALAR" && t != target) targets.push_back(t);
    }
    for (const std::string& t : targets) {
      simdbloom::set_target(t);
      for (Layout layout : {Layout::kBlock512, Layout::kShifting}) {
        Filter f = Filter::create(n, o.fpp, layout);
        const double ins = InsertNs(o, f, w);
        const double con = ContainsNs(o, f, w);
        const double fpr = MeasuredFpr(f, w);
        const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
        const char* name = simdbloom::layout_name(layout);
        Line(o,
             Fmt("\"kind\":\"membership\",\"layout\":\"%s\",\"target\":\"%s\",\"keys\":%zu,"
                 "\"insert_ns_per_key\":%.4f,\"contains_ns_per_key\":%.4f,\"bits_per_key\":%.3f,"
                 "\"k\":%u,\"fpr_measured\":%.6g,\"fpr_model\":%.6g",
                 name, t.c_str(), n, ins, con, bpk, f.num_hashes(), fpr, f.predicted_fpp(n)),
             Fmt("%10zu  %-15s %-9s insert %7.3f ns/key, contains %7.3f ns/key, %6.3f bits/key, "
                 "k %2u, FPR %.6f (model %.6f)",
                 n, name, t.c_str(), ins, con, bpk, f.num_hashes(), fpr, f.predicted_fpp(n)));
      }
    }
    simdbloom::set_target(target);

    // ShBF_A: S1 = keys[0, n/2 + n/10), S2 = keys[n/2 - n/10, n): overlap n/5.
    {
      const size_t a_end = n / 2 + n / 10, b_begin = n / 2 - n / 10;
      const simdbloom::Span<const uint64_t> s1(keys.data(), a_end);
      const simdbloom::Span<const uint64_t> s2(keys.data() + b_begin, n - b_begin);
      double t0 = Now();
      const simdbloom::ShiftingAssociation a = simdbloom::ShiftingAssociation::build(s1, s2, o.fpp);
      const double build = (Now() - t0) * 1e9 / static_cast<double>(n);
      const double query = MedianNsPerKey(
          o, n, [] {}, [&] { a.query(keys, w.out.data()); });
      size_t clear = 0;
      for (size_t i = 0; i < n; ++i) clear += simdbloom::ShiftingAssociation::is_clear(w.out[i]);
      a.query(w.absent, w.out.data());
      const double clear_rate = static_cast<double>(clear) / static_cast<double>(n);
      const double fp_rate = NonZeroFraction(w.out);
      const double bpk = static_cast<double>(a.bit_count()) / static_cast<double>(n);
      Line(o,
           Fmt("\"kind\":\"association\",\"keys\":%zu,\"build_ns_per_key\":%.4f,"
               "\"query_ns_per_key\":%.4f,\"bits_per_key\":%.3f,\"clear_measured\":%.6g,"
               "\"clear_model\":%.6g,\"clear_paper\":%.6g,\"fp_measured\":%.6g,\"fp_model\":%.6g",
               n, build, query, bpk, clear_rate, a.clear_answer_probability(),
               a.paper_clear_answer_probability(), fp_rate, a.false_positive_probability()),
           Fmt("%10zu  ShBF_A          build %7.3f ns/key, query %7.3f ns/key, %6.3f bits/key, "
               "clear %.5f (model %.5f, paper %.5f), false positives %.5f (model %.5f)",
               n, build, query, bpk, clear_rate, a.clear_answer_probability(),
               a.paper_clear_answer_probability(), fp_rate, a.false_positive_probability()));
    }

    // ShBF_x: key i occurs 1 + i % 8 times.
    {
      const uint32_t c = 8;
      std::vector<uint64_t> multiset;
      multiset.reserve(n * 9 / 2);
      for (size_t i = 0; i < n; ++i) {
        for (uint32_t r = 0; r <= i % c; ++r) multiset.push_back(keys[i]);
      }
      double t0 = Now();
      const simdbloom::ShiftingMultiplicity m =
          simdbloom::ShiftingMultiplicity::build(multiset, o.fpp, c);
      const double build = (Now() - t0) * 1e9 / static_cast<double>(n);
      std::vector<uint32_t> counts(n);
      const double query = MedianNsPerKey(
          o, n, [] {}, [&] { m.count(keys, counts.data()); });
      size_t right = 0;
      double model = 0;
      for (size_t i = 0; i < n; ++i) right += counts[i] == 1 + i % c;
      for (uint32_t x = 1; x <= c; ++x) model += m.correct_probability(x) / c;
      m.count(w.absent, counts.data());
      const double right_rate = static_cast<double>(right) / static_cast<double>(n);
      const double fp_rate = NonZeroFraction(counts);
      const double bpk = static_cast<double>(m.bit_count()) / static_cast<double>(n);
      Line(
          o,
          Fmt("\"kind\":\"multiplicity\",\"keys\":%zu,\"max_count\":%u,\"build_ns_per_key\":%.4f,"
              "\"query_ns_per_key\":%.4f,\"bits_per_key\":%.3f,\"correct_measured\":%.6g,"
              "\"correct_model\":%.6g,\"fp_measured\":%.6g,\"fp_model\":%.6g",
              n, c, build, query, bpk, right_rate, model, fp_rate, m.false_positive_probability()),
          Fmt("%10zu  ShBF_x (c=%u)    build %7.3f ns/key, count %7.3f ns/key, %6.3f bits/key, "
              "correct %.5f (model %.5f), false positives %.5f (model %.5f)",
              n, c, build, query, bpk, right_rate, model, fp_rate, m.false_positive_probability()));
    }
  }
}

}  // namespace sbbench
