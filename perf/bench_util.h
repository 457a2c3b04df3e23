// SPDX-License-Identifier: Apache-2.0
// What the sections of simdbloom-bench share: the options, timing, the row printers (tables and
// JSON lines), the plain-words summary collector, key generators (SplitMix u64s, URLs, UUIDs) and
// the physical references (random 64-byte reads and read-modify-writes over an array the size of
// a filter, on 2 MiB or 4 KiB pages). Only the public API (simdbloom/simdbloom.hpp) is used here.
#ifndef SIMDBLOOM_PERF_BENCH_UTIL_H_
#define SIMDBLOOM_PERF_BENCH_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "simdbloom/simdbloom.hpp"

namespace sbbench {

using simdbloom::Filter;
using simdbloom::KeyType;
using simdbloom::Layout;

// The layouts the default sections print, in id order: the library's (its registry) but
// shifting, which has its own section (shifting.cc, --only shifting), so that the default demo
// keeps its length; nor the Guava layouts (guava, guava32), measured against Guava's own JVM loop
// and classic in guava.cc (--only guava, perf/guava_bench.sh).
inline const std::vector<Layout> kLayouts = [] {
  std::vector<Layout> v;
  for (Layout l : simdbloom::layouts()) {
    if (l != Layout::kShifting && l != Layout::kGuava && l != Layout::kGuava32) v.push_back(l);
  }
  return v;
}();

struct Options {
  // The default run (demo.cc): a two-minute tour of the headline figures, and the plot. --full (or
  // --json, --only, or an option that sizes a section of the full run) turns it off.
  bool demo = true;
  bool quick = false;        // --quick: the default run at tiny sizes (tests its structure)
  std::string plot_path;     // --plot FILE: the SVG (the CSV beside it); default next to the binary
  std::string demo_only;     // --only NAME with a demo section's name (kDemoSections): that one
  std::string summary_from;  // --summary-from FILE: the demo's verdicts on figures read from FILE
  bool min_seconds_set = false;
  bool json = false;
  std::vector<size_t> keys = {100000, 10000000};
  double fpp = 0.01;
  double min_seconds = 0.2;  // per measurement; at least 3 repetitions
  size_t fpr_keys = 10000000;
  size_t mem_keys = 100000000;
  size_t shape_keys = 10000000;
  std::vector<size_t> calib_keys = {1000000, 10000000, 100000000};
  std::vector<size_t> single_keys = {100000, 10000000};  // section single (--single-keys)
  bool speed = true, fpr = true, memory = true, calibration = true, shapes = true, uuid = true,
       threads = true, single = true;
  // Opt-in sections (not part of the default demo): run with --only NAME.
  bool scalable = false;
  bool counting = false;  // opt-in: --only counting
  bool shifting = false;
  bool spatial = false;  // only with --only spatial
  bool many = false;     // opt-in: --only many
  bool guava = false;    // opt-in: --only guava
};

// ---- The sections, one per file (speed.cc, fpr.cc, memory.cc, calibration.cc, ...) ----
void SpeedSection(const Options& o);
void FprSection(const Options& o);
void MemorySection(const Options& o);
void CalibrationSection(const Options& o);
void ShapesSection(const Options& o);
void UuidSection(const Options& o);
void ThreadsSection(const Options& o);
void SingleSection(const Options& o);
void ScalableSection(const Options& o);  // scalable.cc, opt-in
void CountingSection(const Options& o);
void ShiftingSection(const Options& o);
void SpatialSection(const Options& o);
void ManySection(const Options& o);   // many.cc, opt-in
void GuavaSection(const Options& o);  // guava.cc, opt-in
void DemoRun(const Options& o);       // demo.cc: the default run, with its own summary

// The demo's sections as its headings name them, for --only NAME (demo.cc): "bulk" (tables 1, 2
// and the plot: one measurement; "layouts" is the same), "false-positives", "one-key", "strings".
extern const char* const kDemoSections[5];
// The full benchmark's sections, for --only NAME (main.cc).
extern const char* const kFullSections[14];

// A SIMD target as users know the instruction set: "AVX-512 (Highway: AVX3)", "AVX2", "SSE4",
// "NEON", "SVE", "no SIMD (Highway: SCALAR)", "no SIMD (the per-key reference)".
std::string IsaName(const std::string& target);

// ---- The plain-words summary: headline figures, printed at the end of a table run ----
void AddSummary(std::string line);
const std::vector<std::string>& SummaryLines();

// printf into a std::string (up to 511 characters).
std::string Fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));

// ---- Random numbers ----
inline uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform double in (0, 1), from 53 random bits; never 0.
inline double Uniform01(uint64_t& s) {
  return (static_cast<double>(SplitMix(s) >> 11) + 0.5) * 0x1p-53;
}

// ---- Timing ----
// Seconds on the steady clock.
double Now();

// The ns/key of repetitions of `run` (after `setup`, untimed) until min_seconds have passed, at
// least min_reps of them, sorted.
template <class Setup, class Run>
std::vector<double> NsPerKeySamples(const Options& o, size_t n, Setup&& setup, Run&& run,
                                    size_t min_reps) {
  std::vector<double> samples;
  const double start = Now();
  while (samples.size() < min_reps || (Now() - start < o.min_seconds && samples.size() < 1000)) {
    setup();
    const double t0 = Now();
    run();
    samples.push_back((Now() - t0) * 1e9 / static_cast<double>(n));
  }
  std::sort(samples.begin(), samples.end());
  return samples;
}

// Their median.
template <class Setup, class Run>
double MedianNsPerKey(const Options& o, size_t n, Setup&& setup, Run&& run, size_t min_reps = 3) {
  const std::vector<double> samples = NsPerKeySamples(o, n, setup, run, min_reps);
  return samples[samples.size() / 2];
}

double Median(std::vector<double> v);

size_t CountOnes(const std::vector<uint8_t>& v);

// The fraction of the answers that are not 0.
template <class T>
double NonZeroFraction(const std::vector<T>& answers) {
  size_t c = 0;
  for (T x : answers) c += x != 0;
  return static_cast<double>(c) / static_cast<double>(answers.size());
}

// ---- Workloads ----
// The keys most sections time: n u64 keys to insert, then n absent ones (both SplitMix from
// `seed`, in that order), a result byte per key, and the query spans (the first half of the
// keys present, the second half absent).
struct Workload {
  Workload(size_t n, uint64_t seed);
  size_t n;
  std::vector<uint64_t> keys, absent;
  std::vector<uint8_t> out;
  simdbloom::Span<const uint64_t> present_half() const { return {keys.data(), n / 2}; }
  simdbloom::Span<const uint64_t> absent_half() const { return {absent.data(), n - n / 2}; }
};

// Median ns/key of f.insert(keys) on a cleared f, and of `op` (contains, count, ...) over the
// half-present query, results to w.out.
template <class F>
double InsertNs(const Options& o, F& f, const Workload& w) {
  return MedianNsPerKey(
      o, w.n, [&] { f.clear(); }, [&] { f.insert(w.keys); });
}
template <class F, class Op>
double QueryNs(const Options& o, F& f, Workload& w, const Op& op) {
  return MedianNsPerKey(
      o, w.n, [] {},
      [&] {
        op(f, w.present_half(), w.out.data());
        op(f, w.absent_half(), w.out.data() + w.n / 2);
      });
}
template <class F>
double ContainsNs(const Options& o, F& f, Workload& w) {
  return QueryNs(o, f, w, [](F& g, auto keys, uint8_t* out) { g.contains(keys, out); });
}
// The fraction of `keys` f reports present (out: a byte per key, as many as keys).
template <class F, class Keys>
double FractionFound(F& f, const Keys& keys, std::vector<uint8_t>& out) {
  f.contains(keys, out.data());
  return static_cast<double>(CountOnes(out)) / static_cast<double>(keys.size());
}
// The measured false-positive rate: the fraction of the absent keys f (holding w.keys) reports.
template <class F>
double MeasuredFpr(F& f, Workload& w) {
  return FractionFound(f, w.absent, w.out);
}

// ---- Rows of the memory and shapes sections: ns/key against a reference ----
void RowHeader();
// One measurement: ns/key, the reference's ns/key and their ratio.
void Row(const Options& o, const char* section, const std::string& what, const char* pages,
         size_t n, double ns, double ref_ns, const char* ref_name);
// A memory row whose ratio is the median of per-round ratios `ratios`, with their range.
void RowPaired(const Options& o, const std::string& what, const char* pages, size_t n, double ns,
               double ref_ns, const char* ref_name, const std::vector<double>& ratios);

// ---- Key generators ----
// URL-like keys of 20..100 bytes.
std::vector<std::string> Urls(size_t n, uint64_t seed);
// Version-4 UUIDs in their 36-character text form.
std::vector<std::string> Uuids(size_t n, uint64_t seed);

// One byte-string column in both forms: string_views and an Arrow int32-offsets array.
struct Column {
  std::vector<uint8_t> data;
  std::vector<int32_t> offsets{0};
  std::vector<std::string_view> views;
  explicit Column(const std::vector<std::string>& strings);
  simdbloom::BinaryArray<int32_t> Arrow() const {
    return {offsets.data(), data.data(), views.size()};
  }
};

// ---- Physical references ----
// Transparent huge pages backing this process's anonymous memory, in KiB (/proc/self/smaps_rollup);
// -1 where unknown.
long AnonHugeKiB();

// An array the filter's size, allocated as the library allocates filters: 2 MiB-aligned and
// advised MADV_HUGEPAGE, or advised MADV_NOHUGEPAGE (4 KiB pages); touched before use.
struct PhysicalArray {
  uint64_t* words = nullptr;
  size_t bytes = 0;
  PhysicalArray(size_t size, bool huge);
  ~PhysicalArray();
  PhysicalArray(const PhysicalArray&) = delete;
  PhysicalArray& operator=(const PhysicalArray&) = delete;
};

// n independent random 64-byte accesses over `lines` lines of `words` (line = multiply-high of a
// mixed counter), each prefetched `distance` accesses ahead: a read of one word (RandomReads,
// returns their sum) or a read-modify-write of one word (RandomRmws, returns 0).
uint64_t RandomReads(uint64_t* words, size_t lines, size_t n, size_t distance, uint64_t seed);
uint64_t RandomRmws(uint64_t* words, size_t lines, size_t n, size_t distance, uint64_t seed);

// The software-prefetch distances every reference is swept over; a reference's figure is the best
// of them (on a Zen 5 VM the best was 128, and 64 took 1.5x as long).
constexpr size_t kReferenceDistances[] = {16, 32, 64, 128, 256};

// Where results of the references go, so that the compiler keeps the reads.
extern volatile uint64_t g_sink;

}  // namespace sbbench

#endif  // SIMDBLOOM_PERF_BENCH_UTIL_H_
