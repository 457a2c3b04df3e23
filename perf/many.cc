// SPDX-License-Identifier: Apache-2.0
// Section many (opt-in, --only many): one batch of keys against M filters with FilterSet
// (simdbloom/filter_set.hpp) against M separate bulk contains calls over the same keys, for M = 1,
// 8, 64 and 1000 block512 filters (fpp --fpp, seed 0: one hash for the whole set) of 1e4 keys
// each (and 1e6 for M <= 64), batches of 32 and 1024 keys and a large one (1e6 keys, fewer where
// M x batch would pass 1e7 probes), and each (key, filter) pair present with probability 1% or 30%.
// Per row, ns per (key, filter) probe: FilterSet::contains (the sparse matches), the M separate
// calls (bytes out, no match list), their ratio, FilterSet::count, and FilterSet::first per probe
// it makes (a key stops at its first hit: probes = sum over keys of the index of its first hit
// + 1, or M); beside them the random-line-read reference over an array of all the filters' bytes,
// M x batch reads. Medians of at least 3 repetitions of at least --min-seconds.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench_util.h"
#include "simdbloom/filter_set.hpp"

namespace sbbench {

void ManySection(const Options& o) {
  if (!o.json) {
    std::printf(
        "\n== Many filters, one batch: block512, fpp %g, target %s; ns per (key, filter) probe\n",
        o.fpp, simdbloom::active_target().c_str());
    std::printf("%6s %9s %8s %5s %9s %9s %7s %9s %10s %9s %10s\n", "M", "keys/flt", "batch", "hit",
                "set", "M calls", "x", "count", "first/prb", "rand read", "MB");
  }
  struct Shape {
    size_t m, filter_keys;
  };
  const Shape shapes[] = {{1, 10000},   {8, 10000},   {64, 10000},  {1000, 10000},
                          {1, 1000000}, {8, 1000000}, {64, 1000000}};
  for (const Shape& shape : shapes) {
    const size_t m = shape.m;
    uint64_t s = 777 + m + shape.filter_keys;
    std::vector<Filter> filters;
    filters.reserve(m);
    std::vector<uint64_t> fill(shape.filter_keys);
    for (size_t i = 0; i < m; ++i) {
      filters.push_back(Filter::create(shape.filter_keys, o.fpp, Layout::kBlock512));
      for (auto& k : fill) k = SplitMix(s);
      filters.back().insert(fill);
    }
    std::vector<const Filter*> ptrs;
    size_t total_bytes = 0;
    for (const Filter& f : filters) {
      ptrs.push_back(&f);
      total_bytes += f.size_bytes();
    }
    const simdbloom::FilterSet set(ptrs);
    const size_t large = std::max<size_t>(1024, std::min<size_t>(1000000, 10000000 / m));
    for (size_t batch : {size_t{32}, size_t{1024}, large}) {
      for (double hit : {0.01, 0.30}) {
        // Batch keys, each inserted into every filter with probability `hit` (into copies: the
        // filters are restored afterwards by the next shape's fresh build).
        std::vector<uint64_t> keys(batch);
        for (auto& k : keys) k = SplitMix(s);
        std::vector<Filter> work(filters);
        std::vector<const Filter*> wptrs;
        for (size_t i = 0; i < m; ++i) {
          for (size_t j = 0; j < batch; ++j) {
            uint64_t h = (i * 0x9E3779B97F4A7C15ull) ^ (j * 0xC2B2AE3D27D4EB4Full) ^ s;
            if (Uniform01(h) < hit) work[i].insert(keys[j]);
          }
          wptrs.push_back(&work[i]);
        }
        const simdbloom::FilterSet wset(wptrs);
        const size_t probes = m * batch;
        std::vector<simdbloom::FilterSet::Match> matches;
        std::vector<uint8_t> bytes(batch);
        std::vector<uint32_t> counts(batch);
        std::vector<int32_t> first(batch);
        const double set_ns = MedianNsPerKey(
            o, probes, [] {}, [&] { wset.contains(keys, matches); });
        const double calls_ns = MedianNsPerKey(
            o, probes, [] {},
            [&] {
              for (const Filter* f : wptrs) f->contains(keys, bytes.data());
            });
        const double count_ns = MedianNsPerKey(
            o, probes, [] {}, [&] { wset.count(keys, counts.data()); });
        wset.first(keys, first.data());
        size_t made = 0;
        for (int32_t f : first) made += f < 0 ? m : static_cast<size_t>(f) + 1;
        const double first_ns = MedianNsPerKey(
            o, made, [] {}, [&] { wset.first(keys, first.data()); });
        PhysicalArray ref(total_bytes, true);
        double read_ns = 1e300;
        for (size_t d : {size_t{0}, size_t{16}, size_t{64}}) {
          read_ns = std::min(
              read_ns, MedianNsPerKey(
                           o, probes, [] {},
                           [&] { g_sink = RandomReads(ref.words, ref.bytes / 64, probes, d, s); }));
        }
        if (o.json) {
          std::printf(
              "{\"bench\":\"many\",\"filters\":%zu,\"filter_keys\":%zu,\"batch\":%zu,"
              "\"hit\":%g,\"set_contains_ns\":%.4f,\"separate_calls_ns\":%.4f,"
              "\"set_count_ns\":%.4f,\"set_first_ns_per_probe_made\":%.4f,"
              "\"random_read_ns\":%.4f,\"bytes\":%zu}\n",
              m, shape.filter_keys, batch, hit, set_ns, calls_ns, count_ns, first_ns, read_ns,
              total_bytes);
        } else {
          std::printf("%6zu %9zu %8zu %4.0f%% %9.3f %9.3f %6.2fx %9.3f %10.3f %9.3f %10.1f\n", m,
                      shape.filter_keys, batch, 100 * hit, set_ns, calls_ns, calls_ns / set_ns,
                      count_ns, first_ns, read_ns, total_bytes / 1e6);
        }
        std::fflush(stdout);
      }
    }
  }
}

}  // namespace sbbench
