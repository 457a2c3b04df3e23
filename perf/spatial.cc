// SPDX-License-Identifier: Apache-2.0
// Section spatial (--only spatial; not in the default run): SpatialFilter, the spatial Bloom
// filter. At each --keys count and --fpp, for 4 areas (1-byte cells) and 1000 areas (2-byte
// cells), keys split evenly among the areas: median ns/key of building the filter (every area
// inserted in label order; a fresh filter per repetition, untimed) and of classifying (half keys
// of the areas, half keys in none), on the dispatched target and on the scalar reference, against
// plain block512 insert/contains of the same keys at the same fpp, and against block512 with as
// many bytes as the spatial filter and its k ("same B": the same memory traffic). Then accuracy:
// the rate at which as many keys in no area get a label, and keys of an area a higher label,
// measured against the paper's a-priori formulas (blocked form) and the a-posteriori one from the
// cells.
#include "simdbloom/spatial.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {
namespace {

using simdbloom::SpatialFilter;

struct Areas {
  std::vector<uint64_t> keys;
  std::vector<size_t> begin;  // area i = keys [begin[i], begin[i + 1])
};

void Build(SpatialFilter& f, const Areas& a) {
  for (size_t i = 0; i + 1 < a.begin.size(); ++i) {
    f.insert(
        static_cast<uint16_t>(i + 1),
        simdbloom::Span<const uint64_t>(a.keys.data() + a.begin[i], a.begin[i + 1] - a.begin[i]));
  }
}

}  // namespace

void SpatialSection(const Options& o) {
  const std::string dispatched = simdbloom::active_target();
  if (!o.json) {
    std::printf(
        "== Spatial Bloom filter: bulk u64 keys, hashing included, fpp %g "
        "(block512 = plain Filter, same keys)\n",
        o.fpp);
    std::printf("%10s %6s %5s %-10s %-9s %9s %9s %9s %9s %9s %8s %3s\n", "keys", "areas", "cell",
                "target", "op", "ns/key", "block512", "ratio", "same B", "ratio", "B/key", "k");
  }
  for (size_t n : o.keys) {
    Workload w(n, 777 + n);
    Areas a;
    a.keys = w.keys;
    const std::vector<uint64_t>& absent = w.absent;
    // The plain filter on the same keys: block512 insert and contains (half present).
    Filter plain = Filter::create(n, o.fpp, Layout::kBlock512);
    const double plain_insert = InsertNs(o, plain, w);
    const double plain_contains = ContainsNs(o, plain, w);
    for (uint32_t num_areas : {4u, 1000u}) {
      a.begin.clear();
      for (uint32_t i = 0; i <= num_areas; ++i) a.begin.push_back(n * i / num_areas);
      std::vector<uint16_t> labels(n);
      SpatialFilter f = SpatialFilter::create(n, o.fpp, num_areas);
      const double bytes_per_key = static_cast<double>(f.size_bytes()) / static_cast<double>(n);
      // block512 with as many bytes as the spatial filter (same memory traffic, k as the spatial
      // filter's): what a key costs when the cells' extra work is taken away.
      Filter same =
          Filter::with_bits(uint64_t{8} * f.size_bytes(), f.num_hashes(), Layout::kBlock512);
      const double same_insert = InsertNs(o, same, w);
      const double same_contains = ContainsNs(o, same, w);
      for (const std::string& t : {dispatched, std::string("reference")}) {
        simdbloom::set_target(t);
        const double build = MedianNsPerKey(
            o, n, [&] { f = SpatialFilter::create(n, o.fpp, num_areas); }, [&] { Build(f, a); });
        const double classify = MedianNsPerKey(
            o, n, [] {},
            [&] {
              f.classify(w.present_half(), labels.data());
              f.classify(w.absent_half(), labels.data() + n / 2);
            });
        for (int op = 0; op < 2; ++op) {
          const double ns = op == 0 ? build : classify;
          const double ref = op == 0 ? plain_insert : plain_contains;
          const double ref_same = op == 0 ? same_insert : same_contains;
          if (o.json) {
            std::printf(
                "{\"bench\":\"spatial\",\"op\":\"%s\",\"keys\":%zu,\"areas\":%u,"
                "\"cell_bytes\":%u,\"target\":\"%s\",\"dispatched\":%s,\"ns_per_key\":%.4f,"
                "\"block512_op\":\"%s\",\"block512_ns_per_key\":%.4f,\"ratio_vs_block512\":%.3f,"
                "\"block512_same_bytes_ns_per_key\":%.4f,\"ratio_vs_block512_same_bytes\":%.3f,"
                "\"bytes_per_key\":%.3f,\"block512_bytes_per_key\":%.3f,\"k\":%u}\n",
                op == 0 ? "build" : "classify", n, num_areas, f.cell_bytes(), t.c_str(),
                t == dispatched ? "true" : "false", ns, op == 0 ? "insert" : "contains", ref,
                ns / ref, ref_same, ns / ref_same, bytes_per_key,
                static_cast<double>(plain.size_bytes()) / static_cast<double>(n), f.num_hashes());
          } else {
            std::printf("%10zu %6u %4uB %-10s %-9s %9.3f %9.3f %8.2fx %9.3f %8.2fx %8.2f %3u\n", n,
                        num_areas, f.cell_bytes(), (t == dispatched ? t + "*" : t).c_str(),
                        op == 0 ? "build" : "classify", ns, ref, ns / ref, ref_same, ns / ref_same,
                        bytes_per_key, f.num_hashes());
          }
        }
      }
      simdbloom::set_target(dispatched);
      // Accuracy: keys in no area, keys of each area.
      f = SpatialFilter::create(n, o.fpp, num_areas);
      Build(f, a);
      const simdbloom::SpatialStats st = f.stats(true);
      const double positives = static_cast<double>(f.classify(absent, labels.data()));
      f.classify(a.keys, labels.data());
      double higher = 0, isep_expected = 0, worst_sigma = 0;
      for (uint32_t i = 0; i < num_areas; ++i) {
        for (size_t j = a.begin[i]; j < a.begin[i + 1]; ++j) higher += labels[j] > i + 1;
        isep_expected += st.areas[i].apriori_isep * static_cast<double>(st.areas[i].members);
      }
      // Per area (those expecting 50 or more), measured labels of absent keys against the
      // a-priori rate, in standard deviations.
      f.classify(absent, labels.data());
      std::vector<double> got(num_areas + 1, 0);
      for (uint16_t l : labels) got[l] += 1;
      for (uint32_t i = 0; i < num_areas; ++i) {
        const double p = st.areas[i].apriori_fpp, e = p * static_cast<double>(n);
        const double sd = std::sqrt(static_cast<double>(n) * p * (1 - p));
        if (e >= 50) worst_sigma = std::max(worst_sigma, std::fabs(got[i + 1] - e) / sd);
      }
      const double fpp_measured = positives / static_cast<double>(n);
      const double isep_measured = higher / static_cast<double>(n);
      if (o.json) {
        std::printf(
            "{\"bench\":\"spatial\",\"op\":\"accuracy\",\"keys\":%zu,\"areas\":%u,"
            "\"fpp_requested\":%g,\"fpp_apriori\":%.6g,\"fpp_aposteriori\":%.6g,"
            "\"fpp_measured\":%.6g,\"isep_apriori\":%.6g,\"isep_measured\":%.6g,"
            "\"worst_area_fpp_sigmas\":%.2f,\"emersion_area1_expected\":%.6f,"
            "\"emersion_area1_measured\":%.6f}\n",
            n, num_areas, o.fpp, st.apriori_fpp, st.fpp, fpp_measured,
            isep_expected / static_cast<double>(n), isep_measured, worst_sigma,
            st.areas[0].expected_emersion, st.areas[0].emersion);
      } else {
        std::printf(
            "%10zu %6u  keys in no area labelled: %.5f measured, %.5f a priori, %.5f a posteriori;"
            " keys labelled too high: %.5f measured, %.5f a priori; worst area %.1f sd; "
            "emersion of area 1: %.4f measured, %.4f expected\n",
            n, num_areas, fpp_measured, st.apriori_fpp, st.fpp, isep_measured,
            isep_expected / static_cast<double>(n), worst_sigma, st.areas[0].emersion,
            st.areas[0].expected_emersion);
      }
      std::fflush(stdout);
    }
  }
  simdbloom::reset_target();
}

}  // namespace sbbench
