// SPDX-License-Identifier: Apache-2.0
// Section 6, single: one key per call, as a service checks a request or a packet. For block512,
// register64 and split_block256 at --fpp, with 1e5 keys (in cache) and 1e7 keys (out of cache):
// insert(uint64_t) and contains(uint64_t) in a loop over independent keys (present, then absent),
// contains with prefetch(key) 8 keys ahead, and the bulk call on the same keys for comparison.
// Then the same loops on the inline scalar path (the reference target selected), so the ratio to
// the one-key kernels (x86 AVX2 and up: block512, split_block256) is measured in one run. Best of 5
// passes each.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench_util.h"

namespace sbbench {

void SingleSection(const Options& o) {
  if (!o.json) {
    std::printf("\n== Single keys: one key per call, u64 keys, fpp %g (target %s for bulk)\n",
                o.fpp, simdbloom::active_target().c_str());
    std::printf("%10s  %-15s %-32s %9s %9s\n", "keys", "layout", "op", "ns/key", "vs bulk");
  }
  for (size_t n : {size_t{100000}, size_t{10000000}}) {
    uint64_t s = 99 + n;
    std::vector<uint64_t> keys(n), absent(n);
    for (auto& k : keys) k = SplitMix(s);
    for (auto& k : absent) k = SplitMix(s);
    std::vector<uint8_t> out(n);
    for (Layout layout : {Layout::kBlock512, Layout::kRegister64, Layout::kSplitBlock256}) {
      Filter f = Filter::create(n, o.fpp, layout);
      auto best = [&](auto&& setup, auto&& run) {
        double b = 1e30;
        for (int r = 0; r < 5; ++r) {
          setup();
          const double t0 = Now();
          run();
          b = std::min(b, (Now() - t0) * 1e9 / static_cast<double>(n));
        }
        return b;
      };
      size_t hits = 0;
      const double ins = best([&] { f.clear(); },
                              [&] {
                                for (uint64_t k : keys) hits += f.insert(k);
                              });
      const double bulk_ins = best([&] { f.clear(); }, [&] { f.insert(keys); });
      const double con = best([] {},
                              [&] {
                                for (uint64_t k : keys) hits += f.contains(k);
                              });
      const double con_absent = best([] {},
                                     [&] {
                                       for (uint64_t k : absent) hits += f.contains(k);
                                     });
      const double con_prefetch = best([] {},
                                       [&] {
                                         for (size_t i = 0; i < n; ++i) {
                                           if (i + 8 < n) f.prefetch(keys[i + 8]);
                                           hits += f.contains(keys[i]);
                                         }
                                       });
      const double bulk_con = best([] {}, [&] { f.contains(keys, out.data()); });
      // The inline scalar path: with the reference target selected, single-key calls use no one-key
      // kernels (for register64, which has none, this measures the same path twice).
      double ins_scalar = 0, con_scalar = 0, con_absent_scalar = 0;
      {
        const std::string target = simdbloom::active_target();
        simdbloom::set_target("reference");
        ins_scalar = best([&] { f.clear(); },
                          [&] {
                            for (uint64_t k : keys) hits += f.insert(k);
                          });
        con_scalar = best([] {},
                          [&] {
                            for (uint64_t k : keys) hits += f.contains(k);
                          });
        con_absent_scalar = best([] {},
                                 [&] {
                                   for (uint64_t k : absent) hits += f.contains(k);
                                 });
        simdbloom::set_target(target);
      }
      g_sink = hits;
      const struct {
        const char* op;
        double ns, bulk, scalar;  // scalar: the inline scalar path's figure, 0 if not measured
      } rows[] = {{"insert(key)", ins, bulk_ins, ins_scalar},
                  {"contains(key), present", con, bulk_con, con_scalar},
                  {"contains(key), absent", con_absent, bulk_con, con_absent_scalar},
                  {"contains(key), prefetch 8 ahead", con_prefetch, bulk_con, 0}};
      for (const auto& r : rows) {
        if (o.json) {
          std::printf(
              "{\"bench\":\"single\",\"layout\":\"%s\",\"op\":\"%s\",\"keys\":%zu,"
              "\"ns_per_key\":%.4f,\"bulk_ns_per_key\":%.4f,\"ratio_vs_bulk\":%.3f",
              simdbloom::layout_name(layout), r.op, n, r.ns, r.bulk, r.ns / r.bulk);
          if (r.scalar > 0) {
            std::printf(",\"inline_scalar_ns_per_key\":%.4f,\"ratio_vs_inline_scalar\":%.3f",
                        r.scalar, r.ns / r.scalar);
          }
          std::printf("}\n");
        } else if (r.scalar > 0) {
          std::printf("%10zu  %-15s %-32s %9.3f %8.2fx   inline scalar %.3f ns (%.2fx)\n", n,
                      simdbloom::layout_name(layout), r.op, r.ns, r.ns / r.bulk, r.scalar,
                      r.ns / r.scalar);
        } else {
          std::printf("%10zu  %-15s %-32s %9.3f %8.2fx\n", n, simdbloom::layout_name(layout), r.op,
                      r.ns, r.ns / r.bulk);
        }
      }
      std::fflush(stdout);
      if (layout == Layout::kBlock512) {
        AddSummary(
            Fmt("One key per call, %zu keys, block512: insert %.1f ns, contains %.1f ns "
                "(present) / %.1f ns (absent), %.1f ns with prefetch(key) 8 keys ahead; "
                "the bulk call costs %.1f ns a key.",
                n, ins, con, con_absent, con_prefetch, bulk_con) +
            Fmt(" The inline scalar path (reference target): insert %.1f, contains %.1f / %.1f ns.",
                ins_scalar, con_scalar, con_absent_scalar));
      }
    }
  }
}

}  // namespace sbbench
