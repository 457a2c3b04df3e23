// SPDX-License-Identifier: Apache-2.0
// The default run of simdbloom-bench: the headline figures in well under two minutes on 2 cores,
// in five short tables whose columns are explained under each heading, a plot, and a plain-words
// summary. --full runs the complete benchmark (the other sections); --quick runs this one at tiny
// sizes (a test of its structure: perf/demo_test.py).
//
// 1. Bulk calls against filter size. One measurement, shared by table 1, table 2 and the plot: for
//    filter sizes from 16 KiB to 256 MiB (x2 steps) and every layout, a filter of that many bytes
//    (Filter::with_bits, k as create() picks it for --fpp) gets one bulk insert of the same
//    2^19 u64 keys, then one bulk contains of them (all present: every lookup reads all it must);
//    the median ns/key of 3 repetitions, then the median of 5 rounds over all sizes (a burst of
//    the machine's other work spoils a round of a point, not the point). What a key costs depends
//    on the filter's size (which cache or DRAM holds its lines), not on how full it is, so the
//    keys need not fill it. Beside each size, the physical reference: one random 64-byte read (for
//    contains) or read-modify-write (for insert) per key over an array of the same size on 2 MiB
//    pages, prefetched ahead (the best of the distances of kReferenceDistances): what memory alone
//    costs a filter that touches one cache line per key. Table 1 shows block512 at three sizes (in
//    L2, in L3, in DRAM) and, for those, the same algorithm without SIMD: the library's pipeline
//    (the same tiles, batched hashing and prefetch) on Highway's SCALAR target, compiled without
//    target flags (the median of 5 rounds too); the per-key oracle (target "reference": no
//    batches, no prefetch) in a note under it, no baseline for batched code. Table 2: every layout
//    at those sizes.
// 2. The plot: those figures, insert and contains, per layout, with the references dashed, and
//    the cache sizes marked (sizes.svg, and sizes.csv beside it).
// 3. False positives, the classic tutorial experiment: 1e6 keys of each kind (uniform, Gaussian,
//    exponential integers; UUID strings) into filters created for 1% and 0.1%, every layout;
//    1e7 other keys of the same kind asked (integers: the inserted ones odd, the asked ones even,
//    so none was inserted). Measured rate against the rate asked for, with the binomial sampling
//    noise of that many probes.
// 4. One key per call (insert(key), contains(key) in a loop) for block512 at table 1's smallest and
//    largest sizes, as callers compiled with each -march level this CPU runs (single_isa.h; the
//    best pass of 3 rounds over the levels of 2 passes each), on
//    the same keys and filter sizes as table 1, whose bulk figures it repeats for comparison; and
//    bulk contains called on 32 keys at a time (a packet filter's burst).
// 5. Strings: 1e6 UUIDs (36 bytes) and URL-like strings (20..100 bytes), bulk insert and contains
//    into block512 created for them at --fpp, against hashing them alone (XXH3, one call each).
// Then how much to trust the run: the load average at the start and the end (other work on the
// machine weighs on every figure), and every figure whose rounds lie more than 25% apart (named
// under its table); then the summary, whose every sentence is derived from the tables' figures
// (SummaryBullets: the wording too, "faster"/"slower", "cheaper"/"dearer", chosen by them).
// --summary-from FILE prints those two parts for figures read from FILE (perf/demo_test.py feeds
// it contradictory ones). --only NAME runs one section, by the name its heading prints.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_util.h"
#include "plot_svg.h"
#include "single_isa.h"

namespace sbbench {
namespace {

// ---- The sizes of a run ----
struct DemoSizes {
  size_t keys;         // u64 keys per timed bulk call in the size sweep
  size_t min_bytes;    // the sweep's smallest filter
  size_t max_bytes;    // and largest
  int step_log2;       // x2 (1) or x4 (2) between sizes
  int rounds;          // of the size sweep (the median of them per point)
  double min_seconds;  // per measurement of the sweep (at least 3 repetitions)
  size_t fpr_keys;     // keys inserted per kind in the false-positive table
  size_t fpr_probes;   // absent keys asked per kind
  size_t string_keys;  // strings per kind in the strings table
  int single_reps;     // passes of the one-key loops per round
  int single_rounds;   // rounds over the caller levels (the best pass of all rounds)
};

constexpr DemoSizes kDefault = {size_t{1} << 19, size_t{16} << 10, size_t{256} << 20, 1, 5, 0,
                                1000000,         10000000,         1000000,           2, 3};
constexpr DemoSizes kQuick = {4096,  size_t{16} << 10, size_t{1} << 20, 2, 1, 0,
                              20000, 100000,           20000,           1, 1};

// ---- This machine ----
struct Caches {
  size_t l1 = 0, l2 = 0, l3 = 0;  // data/unified cache of cpu0 per level, bytes; 0 if unknown
};

size_t ParseSize(const std::string& s) {  // "32K", "1024K", "32M"
  size_t v = static_cast<size_t>(std::atoll(s.c_str()));
  if (s.find('K') != std::string::npos) v <<= 10;
  if (s.find('M') != std::string::npos) v <<= 20;
  return v;
}

Caches ReadCaches() {
  Caches c;
  for (int i = 0; i < 10; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level(dir + "level"), type(dir + "type"), size(dir + "size");
    int l = 0;
    std::string t, sz;
    if (!(level >> l) || !(type >> t) || !(size >> sz)) continue;
    if (t != "Data" && t != "Unified") continue;
    const size_t bytes = ParseSize(sz);
    if (l == 1) c.l1 = bytes;
    if (l == 2) c.l2 = bytes;
    if (l == 3) c.l3 = bytes;
  }
  return c;
}

// "model name" of /proc/cpuinfo, with the x86 family and model numbers where it has them (a
// virtual machine's model name may say no more than "AMD EPYC").
std::string CpuName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name, family, model;
  auto value = [&] {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) return std::string();
    std::string v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  };
  while (std::getline(in, line)) {
    if (line.empty()) break;  // the first CPU only
    if (line.rfind("model name", 0) == 0) name = value();
    if (line.rfind("cpu family", 0) == 0) family = value();
    if (line.rfind("model\t", 0) == 0 || line.rfind("model :", 0) == 0) model = value();
  }
  if (name.empty()) return "unknown CPU";
  if (!family.empty() && !model.empty()) name += " (family " + family + ", model " + model + ")";
  return name;
}

std::string Bytes(size_t b) {
  if (b >= (size_t{1} << 30) && b % (size_t{1} << 30) == 0) return Fmt("%zu GiB", b >> 30);
  if (b >= (size_t{1} << 20) && b % (size_t{1} << 20) == 0) return Fmt("%zu MiB", b >> 20);
  if (b >= 1024 && b % 1024 == 0) return Fmt("%zu KiB", b >> 10);
  if (b >= 1000000) return Fmt("%.1f MB", b / 1e6);
  return Fmt("%zu B", b);
}

std::string Count(double n) {  // 218000 -> "218K"
  if (n >= 1e9) return Fmt("%.3gG", n / 1e9);
  if (n >= 1e6) return Fmt("%.3gM", n / 1e6);
  if (n >= 1e3) return Fmt("%.3gK", n / 1e3);
  return Fmt("%.0f", n);
}

const char* Where(size_t bytes, const Caches& c) {
  if (c.l1 == 0 && c.l2 == 0 && c.l3 == 0) return "?";
  if (c.l1 != 0 && bytes <= c.l1) return "L1";
  if (c.l2 != 0 && bytes <= c.l2) return "L2";
  if (c.l3 != 0 && bytes <= c.l3) return "L3";
  return "DRAM";
}

// The directory of this executable ("" if unknown), for the plot's default place.
std::string ExeDir() {
  char buf[4096];
  const ssize_t len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (len <= 0) return "";
  std::string p(buf, static_cast<size_t>(len));
  const size_t slash = p.rfind('/');
  return slash == std::string::npos ? "" : p.substr(0, slash);
}

void Legend(const char* name, const char* text) { std::printf("   %-12s %s\n", name, text); }

// `text` wrapped at 100 columns: the first line starts with `first`, the others with `rest`
// (each followed by a space).
void Wrapped(const std::string& first, const std::string& rest, const std::string& text) {
  std::string line = first;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (line.size() + 1 + word.size() > 100) {
      std::printf("%s\n", line.c_str());
      line = rest;
    }
    line += " " + word;
    pos = end + 1;
  }
  std::printf("%s\n", line.c_str());
}

// One line of the summary, "- " and the text wrapped at 100 columns, indented by 2.
void Bullet(const std::string& text) { Wrapped("-", " ", text); }

// ---- 1. The size sweep ----
struct SizePoint {
  size_t bytes = 0;
  double read = 0, rmw = 0;      // the memory references, ns per key
  std::vector<double> ins, con;  // per kLayouts entry, ns per key
};

struct Sweep {
  std::vector<SizePoint> points;               // the median of the rounds per figure
  std::vector<std::vector<SizePoint>> rounds;  // each round's figures (their spread)
  std::vector<uint32_t> k;                     // per kLayouts entry
  std::vector<double> bits_per_key;            // at --fpp, as create() sizes it
  std::vector<uint64_t> keys;
};

size_t LayoutIndex(Layout l) {
  return static_cast<size_t>(std::find(kLayouts.begin(), kLayouts.end(), l) - kLayouts.begin());
}

double BulkInsert(const Options& reps, Filter& f, const std::vector<uint64_t>& keys) {
  return MedianNsPerKey(
      reps, keys.size(), [] {}, [&] { f.insert(keys); });
}

double BulkContains(const Options& reps, const Filter& f, const std::vector<uint64_t>& keys,
                    std::vector<uint8_t>& out) {
  return MedianNsPerKey(
      reps, keys.size(), [] {}, [&] { f.contains(keys, out.data()); });
}

// The sweep's filter sizes: z.min_bytes to z.max_bytes in steps of 2^z.step_log2.
std::vector<size_t> SweepSizes(const DemoSizes& z) {
  std::vector<size_t> v;
  for (size_t bytes = z.min_bytes; bytes <= z.max_bytes; bytes <<= z.step_log2) v.push_back(bytes);
  return v;
}

// The sweep at `sizes` (all of SweepSizes, or only those table 4 needs).
Sweep RunSweep(const Options& o, const DemoSizes& z, const std::vector<size_t>& sizes) {
  Sweep s;
  uint64_t seed = 2024;
  s.keys.resize(z.keys);
  for (auto& k : s.keys) k = SplitMix(seed);
  std::vector<uint8_t> out(z.keys);
  for (Layout l : kLayouts) {
    const simdbloom::Sizing sz = simdbloom::size_for(1000000, o.fpp, l);
    s.k.push_back(sz.k);
    s.bits_per_key.push_back(static_cast<double>(sz.bits) / 1e6);
  }
  Options reps = o;
  reps.min_seconds = z.min_seconds;
  Options ref_reps = o;
  ref_reps.min_seconds = z.min_seconds / 4;  // 5 distances each
  for (size_t bytes : sizes) {
    SizePoint p;
    p.bytes = bytes;
    s.points.push_back(p);
  }
  // Warm-up, untimed: the first calls of a process pay for page faults and the library's first
  // use (its target, its prefetch tuning).
  {
    Filter f = Filter::with_bits(uint64_t{z.min_bytes} * 8, s.k[0], kLayouts[0]);
    for (int i = 0; i < 3; ++i) BulkInsert(reps, f, s.keys), BulkContains(reps, f, s.keys, out);
  }
  // Rounds over all sizes, the median of the rounds per point: a burst of the machine's other
  // work then spoils one round of a point, not the point.
  std::vector<std::vector<SizePoint>> rounds(z.rounds, s.points);
  for (int round = 0; round < z.rounds; ++round) {
    for (SizePoint& p : rounds[round]) {
      const size_t bytes = p.bytes;
      {
        PhysicalArray array(bytes, true);
        const size_t lines = bytes / 64;
        p.read = p.rmw = 1e300;
        for (size_t d : kReferenceDistances) {
          p.read = std::min(p.read,
                            MedianNsPerKey(
                                ref_reps, z.keys, [] {},
                                [&] { g_sink = RandomReads(array.words, lines, z.keys, d, 7); }));
          p.rmw =
              std::min(p.rmw, MedianNsPerKey(
                                  ref_reps, z.keys, [] {},
                                  [&] { g_sink = RandomRmws(array.words, lines, z.keys, d, 7); }));
        }
      }
      for (size_t i = 0; i < kLayouts.size(); ++i) {
        Filter f = Filter::with_bits(uint64_t{bytes} * 8, s.k[i], kLayouts[i]);
        p.ins.push_back(BulkInsert(reps, f, s.keys));
        p.con.push_back(BulkContains(reps, f, s.keys, out));
      }
    }
  }
  auto median_of = [&](size_t point, auto field) {
    std::vector<double> v;
    for (const auto& r : rounds) v.push_back(field(r[point]));
    return Median(v);
  };
  for (size_t j = 0; j < s.points.size(); ++j) {
    SizePoint& p = s.points[j];
    p.read = median_of(j, [](const SizePoint& q) { return q.read; });
    p.rmw = median_of(j, [](const SizePoint& q) { return q.rmw; });
    for (size_t i = 0; i < kLayouts.size(); ++i) {
      p.ins.push_back(median_of(j, [i](const SizePoint& q) { return q.ins[i]; }));
      p.con.push_back(median_of(j, [i](const SizePoint& q) { return q.con[i]; }));
    }
  }
  s.rounds = std::move(rounds);
  return s;
}

// The three sizes of table 1: the largest in L2 with room to spare (a quarter of it), the largest
// in L3 with room (a quarter: it is shared), the largest of the sweep (DRAM if it exceeds L3).
// Indices into `sizes` (SweepSizes).
std::vector<size_t> TableRows(const std::vector<size_t>& sizes, const Caches& c) {
  auto largest_below = [&](size_t limit) {
    size_t best = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (sizes[i] <= limit) best = i;
    }
    return best;
  };
  const size_t n = sizes.size();
  size_t small = c.l2 ? largest_below(c.l2 / 4) : std::min<size_t>(4, n - 1);
  size_t mid = c.l3 ? largest_below(c.l3 / 4) : n / 2;
  const size_t large = n - 1;
  if (mid <= small) mid = std::min(small + 1, large);
  std::vector<size_t> rows = {small, mid, large};
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

bool WriteCsv(const std::string& path, const Sweep& s) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "series,op,bytes,ns_per_key\n");
  for (const SizePoint& p : s.points) {
    for (size_t i = 0; i < kLayouts.size(); ++i) {
      std::fprintf(f, "%s,insert,%zu,%.4f\n", simdbloom::layout_name(kLayouts[i]), p.bytes,
                   p.ins[i]);
      std::fprintf(f, "%s,contains,%zu,%.4f\n", simdbloom::layout_name(kLayouts[i]), p.bytes,
                   p.con[i]);
    }
    std::fprintf(f, "memory,insert,%zu,%.4f\n", p.bytes, p.rmw);
    std::fprintf(f, "memory,contains,%zu,%.4f\n", p.bytes, p.read);
  }
  return std::fclose(f) == 0;
}

bool WritePlot(const std::string& path, const Sweep& s, const Caches& c, const DemoSizes& z,
               double fpp) {
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"};
  std::vector<PlotPanel> panels(2);
  panels[0].title = "insert (one bulk call)";
  panels[1].title = "contains (one bulk call, every key present)";
  for (int op = 0; op < 2; ++op) {
    for (size_t i = 0; i < kLayouts.size(); ++i) {
      PlotSeries ser;
      ser.name = simdbloom::layout_name(kLayouts[i]);
      ser.color = kColors[i % 5];
      for (const SizePoint& p : s.points) {
        ser.xy.emplace_back(static_cast<double>(p.bytes), op == 0 ? p.ins[i] : p.con[i]);
      }
      panels[op].series.push_back(ser);
    }
    PlotSeries ref;
    ref.name = "memory: 1 random 64-byte access/key (rmw | read)";
    ref.color = "#000000";
    ref.dashed = true;
    for (const SizePoint& p : s.points) {
      ref.xy.emplace_back(static_cast<double>(p.bytes), op == 0 ? p.rmw : p.read);
    }
    panels[op].series.push_back(ref);
  }
  std::vector<PlotMark> marks;
  if (c.l1) marks.push_back({static_cast<double>(c.l1), "L1d " + Bytes(c.l1)});
  if (c.l2) marks.push_back({static_cast<double>(c.l2), "L2 " + Bytes(c.l2)});
  if (c.l3) marks.push_back({static_cast<double>(c.l3), "L3 " + Bytes(c.l3)});
  const std::string title =
      Fmt("simdbloom %s on %s (%ld CPUs, SIMD code %s): ns per key "
          "against filter size",
          simdbloom::version(), CpuName().c_str(), sysconf(_SC_NPROCESSORS_ONLN),
          IsaName(simdbloom::active_target()).c_str());
  const std::string subtitle =
      Fmt("%zu u64 keys per call, k for a %g%% false-positive rate; dashed: the memory reference "
          "(random read-modify-write for insert, read for contains), 2 MiB pages",
          z.keys, 100 * fpp);
  // How it was made: the load average when the run started (other work on the machine weighs on
  // every figure) and the date.
  std::string load = "unknown";
  {
    std::ifstream in("/proc/loadavg");
    double a = 0, b = 0, c = 0;
    if (in >> a >> b >> c) load = Fmt("%.2f %.2f %.2f", a, b, c);
  }
  char date[32] = "unknown";
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const std::string desc =
      Fmt("Drawn by simdbloom-bench (the default run) on %s; load average (1, 5, 15 min) when the "
          "plot was written: %s. Each point: the median of %d rounds of 3 repetitions.",
          date, load.c_str(), z.rounds);
  return WriteSvgPlot(path, title, subtitle, desc, panels, marks);
}

// ---- 3. False positives ----
enum class Kind { kUniform, kGaussian, kExponential, kUuid };

// One key of a kind; inserted keys are odd and asked keys even (`parity`), so that no asked key
// was inserted: the halves of one distribution, its shape unchanged (the hash ignores parity).
uint64_t DrawU64(Kind kind, uint64_t& s, uint64_t parity) {
  switch (kind) {
    case Kind::kUniform:
      return (SplitMix(s) & ~uint64_t{1}) | parity;
    case Kind::kGaussian: {  // N(0, 1) * 1e9, Box-Muller, rounded, two's complement
      const double u1 = Uniform01(s), u2 = Uniform01(s);
      const double g = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      return static_cast<uint64_t>(2 * static_cast<int64_t>(std::llround(g * 0.5e9))) | parity;
    }
    default:  // Exp(1) * 1e9, rounded
      return static_cast<uint64_t>(2 * std::llround(-std::log(Uniform01(s)) * 0.5e9)) | parity;
  }
}

// n version-4 UUIDs as 36-byte records, back to back (the form of bench_util's Uuids()).
void DrawUuids(size_t n, uint64_t& s, std::vector<uint8_t>* out) {
  static const char kHex[] = "0123456789abcdef";
  out->resize(n * 36);
  uint8_t* p = out->data();
  for (size_t i = 0; i < n; ++i, p += 36) {
    uint64_t a = SplitMix(s), b = SplitMix(s);
    b = (b & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);    // variant 10xx
    a = (a & ~(uint64_t{0xF} << 12)) | (uint64_t{4} << 12);  // version 4
    size_t j = 0;
    for (int nib = 15; nib >= 0; --nib) {
      if (j == 8 || j == 13 || j == 18) p[j++] = '-';
      p[j++] = static_cast<uint8_t>(kHex[(a >> (4 * nib)) & 0xF]);
    }
    for (int nib = 15; nib >= 0; --nib) {
      if (j == 23) p[j++] = '-';
      p[j++] = static_cast<uint8_t>(kHex[(b >> (4 * nib)) & 0xF]);
    }
  }
}

// The layouts of the false-positive table: the library's (kLayouts), then guava, Guava's
// BloomFilter sized as Guava's create() sizes it (no headroom: its rate is shown beside the
// verdict, not in it).
const std::vector<Layout> kFprLayouts = [] {
  std::vector<Layout> v = kLayouts;
  v.push_back(Layout::kGuava);
  return v;
}();

struct FprRow {
  std::string kind;
  double asked;
  std::vector<double> measured;  // per kLayouts entry
  uint64_t probes;
  bool kept, noise_only, false_negative;
  double guava = 0;  // the guava layout's (Guava's own sizing, no headroom: not in `kept`)
};

std::vector<FprRow> RunFpr(const DemoSizes& z) {
  const double asked_rates[] = {0.01, 0.001};
  std::vector<FprRow> rows;
  const size_t n = z.fpr_keys;
  const size_t chunk = std::min<size_t>(size_t{1} << 20, z.fpr_probes);
  for (Kind kind : {Kind::kUniform, Kind::kGaussian, Kind::kExponential, Kind::kUuid}) {
    const char* name = kind == Kind::kUniform       ? "uniform"
                       : kind == Kind::kGaussian    ? "Gaussian"
                       : kind == Kind::kExponential ? "exponential"
                                                    : "UUID";
    uint64_t s = 1 + static_cast<uint64_t>(kind);
    std::vector<uint64_t> keys;
    std::vector<uint8_t> uuids;
    simdbloom::Keys inserted = simdbloom::Keys(keys);
    if (kind == Kind::kUuid) {
      DrawUuids(n, s, &uuids);
      inserted = simdbloom::FixedWidth{uuids.data(), 36, 36, n};
    } else {
      keys.resize(n);
      for (auto& k : keys) k = DrawU64(kind, s, 1);
      inserted = simdbloom::Keys(keys);
    }
    std::vector<Filter> filters;
    std::vector<uint8_t> out(std::max(n, chunk));
    std::vector<FprRow> kind_rows;
    for (double asked : asked_rates) {
      FprRow row{name, asked, {}, 0, true, false, false};
      for (Layout l : kFprLayouts) {
        filters.push_back(Filter::create(n, asked, l));
        filters.back().insert(inserted);
        if (filters.back().contains(inserted, out.data()) != n) row.false_negative = true;
      }
      kind_rows.push_back(row);
    }
    // The probes, in chunks: draws of the same kind, even where the keys are odd (a UUID's 122
    // random bits make a repeat impossible in practice).
    std::vector<uint64_t> fp(filters.size(), 0);
    uint64_t probes = 0;
    uint64_t ps = 1000 + static_cast<uint64_t>(kind);
    std::vector<uint64_t> cand;
    std::vector<uint8_t> cand_uuids;
    while (probes < z.fpr_probes) {
      const size_t m = std::min(chunk, static_cast<size_t>(z.fpr_probes - probes));
      simdbloom::Keys asked_keys = simdbloom::Keys(cand);
      if (kind == Kind::kUuid) {
        DrawUuids(m, ps, &cand_uuids);
        asked_keys = simdbloom::FixedWidth{cand_uuids.data(), 36, 36, m};
      } else {
        cand.resize(m);
        for (auto& k : cand) k = DrawU64(kind, ps, 0);
        asked_keys = simdbloom::Keys(cand);
      }
      for (size_t f = 0; f < filters.size(); ++f)
        fp[f] += filters[f].contains(asked_keys, out.data());
      probes += m;
    }
    for (size_t r = 0; r < kind_rows.size(); ++r) {
      FprRow& row = kind_rows[r];
      row.probes = probes;
      for (size_t i = 0; i < kFprLayouts.size(); ++i) {
        const double measured =
            static_cast<double>(fp[r * kFprLayouts.size() + i]) / static_cast<double>(probes);
        if (kFprLayouts[i] == Layout::kGuava) {
          row.guava = measured;
          continue;
        }
        row.measured.push_back(measured);
        if (measured > row.asked) row.kept = false;
      }
      // Above the asked rate, but each layout by less than 3 standard deviations of the share of
      // false positives among this many probes: what sampling alone can give.
      if (!row.kept) {
        const double sd = std::sqrt(row.asked * (1 - row.asked) / static_cast<double>(probes));
        row.noise_only = std::all_of(row.measured.begin(), row.measured.end(),
                                     [&](double m) { return m <= row.asked + 3 * sd; });
      }
      rows.push_back(row);
    }
  }
  return rows;
}

// ---- How much to trust a run ----
// /proc/loadavg: the load average over 1, 5 and 15 minutes; -1 where unknown.
struct Load {
  double one = -1, five = -1, fifteen = -1;
};

Load ReadLoad() {
  Load l;
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (in >> a >> b >> c) l = {a, b, c};
  return l;
}

std::string LoadText(const Load& l) {
  return l.one < 0 ? std::string("unknown (no /proc/loadavg)")
                   : Fmt("%.2f %.2f %.2f", l.one, l.five, l.fifteen);
}

// A figure whose rounds lie more than this apart is flagged: the second-lowest against the
// second-highest round where there are 5 or more (one disturbed round is what the median already
// shrugs off), the lowest against the highest where there are fewer.
constexpr double kWideSpread = 0.25;

struct Range {
  double lo = 0, hi = 0;
};

Range SpreadOf(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const size_t cut = v.size() >= 5 ? 1 : 0;
  return {v[cut], v[v.size() - 1 - cut]};
}

// The rounds of every figure, checked table by table; those that spread widely are named under
// their table and counted in the trust section.
struct Spreads {
  int checked = 0;
  std::vector<std::string> wide;  // "256 MiB contains simdbloom 9.8..29.1 ns"
  size_t table_start = 0;         // wide.size() when the current table began
  int table_checked = 0;          // figures checked in the current table

  // True if the rounds of figure `name` spread widely. A figure of one round (--quick) has no
  // spread to judge.
  bool Add(const std::string& name, const std::vector<double>& rounds) {
    if (rounds.size() < 2) return false;
    ++checked;
    ++table_checked;
    const Range r = SpreadOf(rounds);
    if (!(r.lo > 0 && r.hi > r.lo * (1 + kWideSpread))) return false;
    wide.push_back(Fmt("%s %.3g..%.3g ns", name.c_str(), r.lo, r.hi));
    return true;
  }
  // The note under a table: that its figures' rounds agree, or which did not (lines that start
  // with "!").
  void Note() {
    if (table_checked == 0) {
      std::printf("   (one round of each figure: no spread to judge)\n");
    } else if (wide.size() == table_start) {
      std::printf("   (the rounds of every figure above agree within %.0f%%)\n", 100 * kWideSpread);
    } else {
      std::string t =
          Fmt("WIDE SPREAD, rounds more than %.0f%% apart, so treat as rough:", 100 * kWideSpread);
      for (size_t i = table_start; i < wide.size(); ++i) {
        t += (i > table_start ? "; " : " ") + wide[i];
      }
      Wrapped("   !", "   !", t);
    }
    table_start = wide.size();
    table_checked = 0;
  }
};

// ---- The summary: every sentence from the figures, its wording chosen by them ----
// What the trust section and the summary say, taken from the tables (or read from a file by
// --summary-from, to test the wording on figures a run rarely gives). A section that did not run
// leaves its flag (bulk, fpr, single, burst, strings) 0 and is not summarized. *_noisy: 1 if a
// figure the sentence quotes spread widely.
struct SummaryFigures {
  double cpus = 0, load_before = -1, load_after = -1;  // the 1-minute load average; -1: unknown
  double checked = 0, wide = 0;  // figures whose rounds were checked; of them, spread widely
  // Table 1: the in-cache row and the largest; scalar: the same code without SIMD.
  double bulk = 0, fpp = 0.01;
  double small_bytes = 0, small_holds = 0, small_con = 0, small_ins = 0;
  double scalar_con = 0, scalar_ins = 0, small_noisy = 0;
  double large_bytes = 0, large_level = 4, large_con = 0, large_ins = 0;  // 1-3: L1-L3, 4: DRAM
  double large_read = 0, large_rmw = 0, large_noisy = 0;
  // Table 3.
  double fpr = 0, fpr_kept = 1, fpr_above = 0, fpr_missed = 0, fpr_worst = 0, fpr_keys = 0;
  double fpr_layouts = 0;
  // Table 4: the best caller's contains(key) at the smallest and largest size (and with prefetch
  // at the largest), bulk contains there (table 1), and bulk contains in calls of 32 keys.
  double single = 0, single_small_bytes = 0, single_large_bytes = 0;
  double single_small = 0, single_large = 0, single_prefetch = 0;
  double bulk_small = 0, bulk_large = 0, single_noisy = 0;
  double burst = 0, burst_small = 0, burst_large = 0, burst_noisy = 0;
  // Table 5.
  double strings = 0, uuid_con = 0, uuid_ins_x = 0, uuid_con_x = 0, strings_noisy = 0;
};

#define SB_FIELD(name) \
  { #name, &SummaryFigures::name }
const std::pair<const char*, double SummaryFigures::*> kSummaryFields[] = {
    SB_FIELD(cpus),
    SB_FIELD(load_before),
    SB_FIELD(load_after),
    SB_FIELD(checked),
    SB_FIELD(wide),
    SB_FIELD(bulk),
    SB_FIELD(fpp),
    SB_FIELD(small_bytes),
    SB_FIELD(small_holds),
    SB_FIELD(small_con),
    SB_FIELD(small_ins),
    SB_FIELD(scalar_con),
    SB_FIELD(scalar_ins),
    SB_FIELD(small_noisy),
    SB_FIELD(large_bytes),
    SB_FIELD(large_level),
    SB_FIELD(large_con),
    SB_FIELD(large_ins),
    SB_FIELD(large_read),
    SB_FIELD(large_rmw),
    SB_FIELD(large_noisy),
    SB_FIELD(fpr),
    SB_FIELD(fpr_kept),
    SB_FIELD(fpr_above),
    SB_FIELD(fpr_missed),
    SB_FIELD(fpr_worst),
    SB_FIELD(fpr_keys),
    SB_FIELD(fpr_layouts),
    SB_FIELD(single),
    SB_FIELD(single_small_bytes),
    SB_FIELD(single_large_bytes),
    SB_FIELD(single_small),
    SB_FIELD(single_large),
    SB_FIELD(single_prefetch),
    SB_FIELD(bulk_small),
    SB_FIELD(bulk_large),
    SB_FIELD(single_noisy),
    SB_FIELD(burst),
    SB_FIELD(burst_small),
    SB_FIELD(burst_large),
    SB_FIELD(burst_noisy),
    SB_FIELD(strings),
    SB_FIELD(uuid_con),
    SB_FIELD(uuid_ins_x),
    SB_FIELD(uuid_con_x),
    SB_FIELD(strings_noisy)};
#undef SB_FIELD

std::string Times(double x) { return x >= 10 ? Fmt("%.0fx", x) : Fmt("%.1fx", x); }

// `ns` against `base` ns: "5.8x faster than", "1.3x slower than", "about as fast as" (within 10%).
std::string FasterThan(double ns, double base) {
  const double r = base / ns;
  if (r >= 1.1) return Times(r) + " faster than";
  if (r <= 1 / 1.1) return Times(1 / r) + " slower than";
  return "about as fast as";
}

// -1 if a costs less than b by more than 10%, 1 if more by more than 10%, else 0.
int Compare(double a, double b) { return a < b / 1.1 ? -1 : a > b * 1.1 ? 1 : 0; }

const char kNoisy[] = " These figures are noisy: their rounds spread widely.";

// Other work that leaves this run no CPU of its own: a load average (of other work) above the
// CPUs less one, by a margin.
bool Busy(double other_load, double cpus) { return other_load > cpus - 0.75; }

// The trust section: its verdict ("good", "fair", "LOW") and its lines.
std::pair<std::string, std::vector<std::string>> Trust(const SummaryFigures& f) {
  std::vector<std::string> lines;
  const bool known = f.load_before >= 0 && f.load_after >= 0 && f.cpus > 0;
  // Other work: the load at the start, or at the end less this run's own thread.
  const double other = known ? std::max(f.load_before, f.load_after - 1) : 0;
  const bool busy = known && Busy(other, f.cpus);
  const bool shared = known && !busy && other >= 0.5;
  if (!known) {
    lines.push_back(
        "The load average is unknown (no /proc/loadavg): judge the figures by their spread.");
  } else {
    lines.push_back(
        Fmt("Load average (1 minute): %.2f at the start, %.2f at the end, on %g CPUs "
            "(this run adds about 1 of its own).",
            f.load_before, f.load_after, f.cpus));
    if (busy) {
      lines.push_back(
          Fmt("THE MACHINE WAS BUSY: other work kept about %.1f threads running on its %g CPUs, "
              "so this run shared a CPU: every figure may be slower than this machine's own, by 2x "
              "or more. "
              "Ratios measured in one run (speed-up, x memory) suffer less; run again when the "
              "load average is below %g.",
              other, f.cpus, std::max(0.5, f.cpus - 1)));
    } else if (shared) {
      lines.push_back(Fmt(
          "Other work kept about %.1f CPUs busy; a CPU was left to this run, but that work shares "
          "the caches and memory: the L3 and DRAM figures may be slower than on a quiet machine.",
          other));
    } else {
      lines.push_back("The machine was otherwise quiet: these are the figures it gives.");
    }
  }
  if (f.wide > 0) {
    lines.push_back(
        Fmt("%g of %g figures spread by more than %.0f%% between their rounds (named "
            "under their tables, \"noisy\" in the summary): treat them as rough.",
            f.wide, f.checked, 100 * kWideSpread));
  } else if (f.checked > 0) {
    lines.push_back(Fmt("The rounds of every figure agreed within %.0f%% (%g figures).",
                        100 * kWideSpread, f.checked));
  }
  const char* verdict = busy || f.wide > f.checked / 4   ? "LOW"
                        : !known || shared || f.wide > 0 ? "fair"
                                                         : "good";
  return {verdict, lines};
}

std::vector<std::string> SummaryBullets(const SummaryFigures& f, const std::string& plot,
                                        size_t min_bytes, size_t max_bytes) {
  std::vector<std::string> out;
  auto bytes = [](double b) { return Bytes(static_cast<size_t>(b)); };
  if (f.bulk) {
    out.push_back(Fmt("In cache (a %s filter, made for %s keys at %g%%), checking a key costs "
                      "%.1f ns (%s the same batched, prefetched code without SIMD) and adding "
                      "one %.1f ns (%s it).",
                      bytes(f.small_bytes).c_str(), Count(f.small_holds).c_str(), 100 * f.fpp,
                      f.small_con, FasterThan(f.small_con, f.scalar_con).c_str(), f.small_ins,
                      FasterThan(f.small_ins, f.scalar_ins).c_str()) +
                  (f.small_noisy ? kNoisy : ""));
    const double xc = f.large_con / f.large_read, xi = f.large_ins / f.large_rmw;
    const double x = std::max(xc, xi);
    const std::string pace =
        x <= 1.05 ? "the filter costs no more than the memory access it must make"
        : x < 1.5 ? "memory sets the pace, the filter adds little"
                  : Fmt("the filter's own work shows (up to %.1fx the memory access)", x);
    const std::string where = f.large_level >= 4   ? std::string("in DRAM")
                              : f.large_level >= 1 ? Fmt("in L%.0f", f.large_level)
                                                   : std::string("in cache");
    out.push_back(Fmt("At %s (%s), a check costs %.1f ns, %.1fx one random memory read (%.1f "
                      "ns), and an insert %.1f ns, %.1fx one random read-modify-write: ",
                      bytes(f.large_bytes).c_str(), where.c_str(), f.large_con, xc, f.large_read,
                      f.large_ins, xi) +
                  pace + "." + (f.large_noisy ? kNoisy : ""));
  }
  if (f.fpr) {
    out.push_back(
        Fmt("False positives: %s (worst measured/asked %.2f; %.0f keys of 4 kinds, rates "
            "1%% and 0.1%%, %g layouts).%s",
            f.fpr_kept    ? "every measured rate was at or below the rate asked for"
            : f.fpr_above ? "SOME MEASURED RATE WAS ABOVE THE RATE ASKED FOR"
                          : "some rates were above the asked one, by sampling noise only",
            f.fpr_worst, f.fpr_keys, f.fpr_layouts,
            f.fpr_missed ? " AN INSERTED KEY WAS MISSED." : " No inserted key was ever missed."));
  }
  if (f.single) {
    const int at_small = Compare(f.bulk_small, f.single_small);
    const int at_large = Compare(f.bulk_large, f.single_large);
    const std::string small = bytes(f.single_small_bytes), large = bytes(f.single_large_bytes);
    std::string which;
    if (at_small < 0 && at_large < 0) {
      which = "a bulk call is cheaper at both sizes: it overlaps the memory accesses of many keys";
    } else if (at_small >= 0 && at_large >= 0) {
      which = "a bulk call is no cheaper here at either size";
    } else {
      which = "a bulk call is cheaper at " + (at_small < 0 ? small : large) + ", not at " +
              (at_small < 0 ? large : small);
    }
    out.push_back(Fmt("One key per call: contains(key) costs %.1f ns at %s and %.1f ns at %s "
                      "(%.1f ns with prefetch); one bulk call costs %.1f and %.1f ns per key: ",
                      f.single_small, small.c_str(), f.single_large, large.c_str(),
                      f.single_prefetch, f.bulk_small, f.bulk_large) +
                  which + "." + (f.single_noisy ? kNoisy : ""));
  }
  if (f.burst) {
    auto against = [](double ratio) {
      const int c = Compare(ratio, 1);
      return Fmt("%.2fx one large call: %s", ratio,
                 c < 0   ? "cheaper per key"
                 : c > 0 ? "dearer per key, each call's own cost shows"
                         : "about the same per key");
    };
    out.push_back(Fmt("A packet burst, bulk contains on 32 keys a call: %.1f ns a key at %s (%s) "
                      "and %.1f ns at %s (%s).",
                      f.burst_small, bytes(f.single_small_bytes).c_str(),
                      against(f.burst_small / f.bulk_small).c_str(), f.burst_large,
                      bytes(f.single_large_bytes).c_str(),
                      against(f.burst_large / f.bulk_large).c_str()) +
                  (f.burst_noisy ? kNoisy : ""));
  }
  if (f.strings) {
    const double lo = std::min(f.uuid_ins_x, f.uuid_con_x);
    const double hi = std::max(f.uuid_ins_x, f.uuid_con_x);
    const std::string what = hi < 1     ? "both less than one XXH3 call per string costs"
                             : lo < 1   ? "hashing is the whole cost"
                             : hi < 1.5 ? "hashing, which any filter needs, is most of the cost"
                                        : "the filter's own work adds visibly to the hashing";
    out.push_back(Fmt("Strings: a UUID is checked in %.1f ns; insert and contains cost %.2fx and "
                      "%.2fx the time of hashing it alone: ",
                      f.uuid_con, f.uuid_ins_x, f.uuid_con_x) +
                  what + "." + (f.strings_noisy ? kNoisy : ""));
  }
  if (f.bulk && !plot.empty()) {
    out.push_back(
        Fmt("The plot %s shows ns per key from %s to %s for every layout, with the "
            "cache sizes marked: where a curve leaves the dashed memory line, the "
            "filter's own work shows.",
            plot.c_str(), Bytes(min_bytes).c_str(), Bytes(max_bytes).c_str()));
  }
  return out;
}

void PrintTrustAndSummary(const SummaryFigures& f, const std::string& plot, size_t min_bytes,
                          size_t max_bytes) {
  const auto [verdict, lines] = Trust(f);
  std::printf("\n== How much to trust these figures: %s\n", verdict.c_str());
  for (const std::string& l : lines) Bullet(l);
  std::printf("\n== Summary\n");
  for (const std::string& b : SummaryBullets(f, plot, min_bytes, max_bytes)) Bullet(b);
}

// --summary-from FILE: the trust section and the summary for the figures of FILE, lines of
// NAME=VALUE (the fields of SummaryFigures; # starts a comment), without measuring anything; a
// line rounds:NAME=V1,V2,... gives one figure's rounds, judged (and named if they spread) as a
// run's are.
void SummaryFromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "simdbloom-bench: --summary-from %s: cannot read it\n", path.c_str());
    std::exit(2);
  }
  SummaryFigures f;
  Spreads spreads;
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    const size_t eq = line.find('=');
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string name = eq == std::string::npos ? line : line.substr(0, eq);
    name.erase(name.find_last_not_of(" \t") + 1);
    name.erase(0, name.find_first_not_of(" \t"));
    if (name.rfind("rounds:", 0) == 0 && eq != std::string::npos) {
      // rounds:NAME=v1,v2,...: one figure's rounds, judged as a run judges them.
      std::vector<double> v;
      const char* p = line.c_str() + eq + 1;
      char* e = nullptr;
      for (double x = std::strtod(p, &e); e != p; x = std::strtod(p, &e)) {
        v.push_back(x);
        p = e + (*e == ',' ? 1 : 0);
      }
      spreads.Add(name.substr(7), v);
      continue;
    }
    double SummaryFigures::*field = nullptr;
    for (const auto& [n, m] : kSummaryFields) {
      if (name == n) field = m;
    }
    char* end = nullptr;
    const double v = eq == std::string::npos ? 0 : std::strtod(line.c_str() + eq + 1, &end);
    if (field == nullptr || end == nullptr || end == line.c_str() + eq + 1 ||
        line.find_first_not_of(" \t\r", static_cast<size_t>(end - line.c_str())) !=
            std::string::npos) {
      std::string names;
      for (const auto& nm : kSummaryFields)
        names += std::string(names.empty() ? "" : ", ") + nm.first;
      std::fprintf(stderr,
                   "simdbloom-bench: --summary-from %s: not NAME=NUMBER with a known NAME: '%s' "
                   "(names: %s)\n",
                   path.c_str(), line.c_str(), names.c_str());
      std::exit(2);
    }
    f.*field = v;
  }
  if (spreads.checked > 0) {
    std::printf("== Rounds read from %s\n", path.c_str());
    spreads.Note();
    f.checked += spreads.checked;
    f.wide += static_cast<double>(spreads.wide.size());
  }
  PrintTrustAndSummary(f, "sizes.svg", size_t{16} << 10, size_t{256} << 20);
}

// The one-key path a caller level runs (detail::OneKey::kName) as users know the instruction set.
std::string PathName(const char* path) {
  const std::string p = path;
  if (p == "avx512") return "AVX-512";
  if (p == "avx2") return "AVX2";
  if (p == "neon") return "NEON";
  if (p == "portable") return "no SIMD";
  return p;
}

// The library's non-SIMD pipeline (Highway's SCALAR or EMU128 target: the same tiles, batches
// and prefetches as the SIMD targets, one lane at a time, compiled without target flags), or
// the per-key reference where the build has none.
std::string ScalarTarget() {
  for (const std::string& t : simdbloom::available_targets()) {
    if (t == "SCALAR" || t == "EMU128") return t;
  }
  return "reference";
}

}  // namespace

void DemoRun(const Options& o) {
  if (!o.summary_from.empty()) {
    SummaryFromFile(o.summary_from);
    return;
  }
  const DemoSizes z = [&] {
    DemoSizes d = o.quick ? kQuick : kDefault;
    if (o.min_seconds_set) d.min_seconds = o.min_seconds;
    return d;
  }();
  const double t_start = Now();
  const Load load_before = ReadLoad();
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const Caches caches = ReadCaches();
  const std::string target = simdbloom::active_target();
  const std::string plot = !o.plot_path.empty() ? o.plot_path
                           : ExeDir().empty()   ? std::string("sizes.svg")
                                                : ExeDir() + "/sizes.svg";
  const std::string csv = (plot.size() > 4 && plot.compare(plot.size() - 4, 4, ".svg") == 0
                               ? plot.substr(0, plot.size() - 4)
                               : plot) +
                          ".csv";
  std::vector<std::pair<std::string, double>> times;  // section, seconds
  // --only NAME: one part (main.cc has checked the name against kDemoSections).
  const auto runs = [&](const char* name) { return o.demo_only.empty() || o.demo_only == name; };
  const bool run_bulk = runs("bulk"), run_fpr = runs("false-positives");
  const bool run_single = runs("one-key"), run_strings = runs("strings");
  SummaryFigures fig;
  fig.cpus = static_cast<double>(cpus);
  fig.fpp = o.fpp;
  Spreads spreads;

  std::printf(
      "simdbloom %s: the demo%s%s (simdbloom-bench --full runs the complete benchmark, "
      "about 10 minutes)\n",
      simdbloom::version(), o.quick ? " at tiny sizes (--quick: figures mean nothing)" : "",
      o.demo_only.empty() ? "" : (", --only " + o.demo_only).c_str());
  std::printf("CPU: %s, %ld CPUs; caches: L1d %s, L2 %s, L3 %s; SIMD code used: %s\n",
              CpuName().c_str(), cpus, caches.l1 ? Bytes(caches.l1).c_str() : "?",
              caches.l2 ? Bytes(caches.l2).c_str() : "?",
              caches.l3 ? Bytes(caches.l3).c_str() : "?", IsaName(target).c_str());
  std::printf("Load average (1, 5, 15 minutes) at the start: %s%s\n", LoadText(load_before).c_str(),
              Busy(load_before.one, static_cast<double>(cpus))
                  ? Fmt(": BUSY, about %.1f threads running on %ld CPUs: expect slow, noisy "
                        "figures",
                        load_before.one, cpus)
                        .c_str()
                  : "");
  std::printf(
      "Times are nanoseconds (ns) per key, the median of repeated runs: lower is better;\n"
      "1 ns per key is a billion keys a second on one core. Section names for --only are in "
      "brackets.\n");
  std::fflush(stdout);

  // ---- 1 and 2: bulk calls against size ----
  double t0 = Now();
  const std::vector<size_t> sizes = SweepSizes(z);
  std::vector<size_t> row_bytes;  // table 1's sizes
  for (size_t r : TableRows(sizes, caches)) row_bytes.push_back(sizes[r]);
  // The sweep: every size for tables 1 and 2, only table 4's two sizes for --only one-key.
  Sweep sweep;
  if (run_bulk || run_single) {
    sweep =
        RunSweep(o, z, run_bulk ? sizes : std::vector<size_t>{row_bytes.front(), row_bytes.back()});
  }
  auto point_index = [&](size_t bytes) {
    for (size_t i = 0; i < sweep.points.size(); ++i) {
      if (sweep.points[i].bytes == bytes) return i;
    }
    return size_t{0};
  };
  const size_t b512 = LayoutIndex(Layout::kBlock512);
  // A figure of the sweep across its rounds.
  auto sweep_rounds = [&](size_t point, auto field) {
    std::vector<double> v;
    for (const auto& r : sweep.rounds) v.push_back(field(r[point]));
    return v;
  };
  // The code without SIMD at table 1's sizes: the library's non-SIMD pipeline (batched and
  // prefetched as the SIMD code) and the per-key reference; rounds over the sizes, the median of
  // the rounds (as the sweep), the filters kept between rounds.
  const std::string scalar_target = ScalarTarget();
  std::vector<std::vector<double>> scalar_ins(row_bytes.size()), scalar_con(row_bytes.size()),
      oracle_ins(row_bytes.size()), oracle_con(row_bytes.size());
  if (run_bulk) {
    Options reps = o;
    reps.min_seconds = z.min_seconds;
    std::vector<uint8_t> out(z.keys);
    std::vector<Filter> filters;
    for (size_t bytes : row_bytes) {
      filters.push_back(Filter::with_bits(uint64_t{bytes} * 8, sweep.k[b512], Layout::kBlock512));
    }
    for (int round = 0; round < z.rounds; ++round) {
      for (size_t i = 0; i < row_bytes.size(); ++i) {
        simdbloom::set_target(scalar_target);
        scalar_ins[i].push_back(BulkInsert(reps, filters[i], sweep.keys));
        scalar_con[i].push_back(BulkContains(reps, filters[i], sweep.keys, out));
        simdbloom::set_target("reference");
        oracle_ins[i].push_back(BulkInsert(reps, filters[i], sweep.keys));
        oracle_con[i].push_back(BulkContains(reps, filters[i], sweep.keys, out));
      }
    }
    simdbloom::reset_target();
    times.emplace_back("bulk calls and plot", Now() - t0);

    std::printf(
        "\n== 1. Bulk calls [bulk]: one call with %zu u64 keys; block512, the default layout, "
        "made for\n   a %g%% false-positive rate\n",
        z.keys, 100 * o.fpp);
    Legend("size", "the filter's bytes; holds: the keys a filter of that size is made for");
    Legend("in", "the smallest cache of this CPU the filter fits in (DRAM: none)");
    Legend("op", "insert: add every key; contains: look every key up (all present: all bits read)");
    Legend("simdbloom",
           ("ns per key with the SIMD code this CPU runs, " + IsaName(target)).c_str());
    Legend("scalar", Fmt("ns per key of the same batched, prefetched code without SIMD (%s)",
                         scalar_target.c_str())
                         .c_str());
    Legend("speed-up", "scalar / simdbloom: what SIMD adds to the same algorithm");
    Legend("memory", "ns per key of one random 64-byte access per key, prefetched (the floor)");
    Legend("x memory", "simdbloom / memory: 1.0x = the filter costs only the access it must make");
    std::printf("%10s %8s %5s  %-9s %10s %8s %9s %8s %9s\n", "size", "holds", "in", "op",
                "simdbloom", "scalar", "speed-up", "memory", "x memory");
    std::vector<double> sc_ins, sc_con;
    for (size_t i = 0; i < row_bytes.size(); ++i) {
      const size_t j = point_index(row_bytes[i]);
      const SizePoint& p = sweep.points[j];
      const double holds = static_cast<double>(p.bytes) * 8 / sweep.bits_per_key[b512];
      const std::string at = Bytes(p.bytes);
      bool noisy = false;
      for (int op = 0; op < 2; ++op) {
        const double ns = op == 0 ? p.ins[b512] : p.con[b512];
        const double sc = Median(op == 0 ? scalar_ins[i] : scalar_con[i]);
        const double mem = op == 0 ? p.rmw : p.read;
        const char* opname = op == 0 ? "insert" : "contains";
        std::printf("%10s %8s %5s  %-9s %10.2f %8.2f %8.1fx %8.2f %8.1fx\n", at.c_str(),
                    Count(holds).c_str(), Where(p.bytes, caches), opname, ns, sc, sc / ns, mem,
                    ns / mem);
        (op == 0 ? sc_ins : sc_con).push_back(sc);
        noisy |=
            spreads.Add(at + " " + opname + " simdbloom", sweep_rounds(j, [&](const SizePoint& q) {
                          return op == 0 ? q.ins[b512] : q.con[b512];
                        }));
        noisy |=
            spreads.Add(at + " " + opname + " scalar", op == 0 ? scalar_ins[i] : scalar_con[i]);
        noisy |= spreads.Add(
            at + " " + opname + " memory",
            sweep_rounds(j, [&](const SizePoint& q) { return op == 0 ? q.rmw : q.read; }));
      }
      if (i == 0) fig.small_noisy = noisy;
      if (i + 1 == row_bytes.size()) fig.large_noisy = noisy;
    }
    // The per-key reference: a note, not a column (it is no baseline for batched code).
    std::printf("   (the library's per-key reference code, its oracle: no batches, no prefetch)\n");
    std::string oracle = "   (oracle, contains / insert ns per key:";
    for (size_t i = 0; i < row_bytes.size(); ++i) {
      oracle += Fmt("%s %s %.3g / %.3g", i ? ";" : "", Bytes(row_bytes[i]).c_str(),
                    Median(oracle_con[i]), Median(oracle_ins[i]));
    }
    std::printf("%s)\n", oracle.c_str());
    std::printf("   (these rows are points of the plot; table 4 repeats their bulk figures)\n");
    spreads.Note();
    {
      const SizePoint& s0 = sweep.points[point_index(row_bytes.front())];
      const SizePoint& s1 = sweep.points[point_index(row_bytes.back())];
      fig.bulk = 1;
      fig.small_bytes = static_cast<double>(s0.bytes);
      fig.small_holds = static_cast<double>(s0.bytes) * 8 / sweep.bits_per_key[b512];
      fig.small_con = s0.con[b512];
      fig.small_ins = s0.ins[b512];
      fig.scalar_con = sc_con.front();
      fig.scalar_ins = sc_ins.front();
      fig.large_bytes = static_cast<double>(s1.bytes);
      const std::string where = Where(s1.bytes, caches);
      fig.large_level = where == "DRAM" ? 4 : where == "?" ? 0 : where[1] - '0';
      fig.large_con = s1.con[b512];
      fig.large_ins = s1.ins[b512];
      fig.large_read = s1.read;
      fig.large_rmw = s1.rmw;
    }

    std::printf(
        "\n== 2. The layouts [bulk]: bulk ns per key at table 1's sizes (block512 repeats table "
        "1)\n");
    Legend("layout", "how a key's bits are placed (block512: k bits in one 64-byte cache line;");
    Legend("", "register64: in one 64-bit word; split_block256: one bit in each of 8 words of a");
    Legend("", "32-byte block (Parquet's); classic: k bits anywhere, so k cache lines)");
    Legend("bits/key",
           Fmt("memory per key the filter is made for, at a %g%% false-positive rate", 100 * o.fpp)
               .c_str());
    Legend("k", "bits set and tested per key");
    std::printf("%-15s %8s %3s", "layout", "bits/key", "k");
    for (size_t b : row_bytes) std::printf(" %12s", ("ins " + Bytes(b)).c_str());
    for (size_t b : row_bytes) std::printf(" %12s", ("con " + Bytes(b)).c_str());
    std::printf("\n");
    for (size_t i = 0; i < kLayouts.size(); ++i) {
      const std::string name = simdbloom::layout_name(kLayouts[i]);
      std::printf("%-15s %8.2f %3u", name.c_str(), sweep.bits_per_key[i], sweep.k[i]);
      for (size_t b : row_bytes) std::printf(" %12.2f", sweep.points[point_index(b)].ins[i]);
      for (size_t b : row_bytes) std::printf(" %12.2f", sweep.points[point_index(b)].con[i]);
      std::printf("\n");
      if (i == b512) continue;  // checked in table 1
      for (size_t b : row_bytes) {
        for (int op = 0; op < 2; ++op) {
          spreads.Add(name + " " + Bytes(b) + (op == 0 ? " insert" : " contains"),
                      sweep_rounds(point_index(b), [&](const SizePoint& q) {
                        return op == 0 ? q.ins[i] : q.con[i];
                      }));
        }
      }
    }
    const bool csv_ok = WriteCsv(csv, sweep);
    const bool plot_ok = WritePlot(plot, sweep, caches, z, o.fpp);
    std::printf("   plot of every size from %s to %s: %s%s (data: %s%s)\n",
                Bytes(z.min_bytes).c_str(), Bytes(z.max_bytes).c_str(), plot.c_str(),
                plot_ok ? "" : " NOT WRITTEN", csv.c_str(), csv_ok ? "" : " NOT WRITTEN");
    spreads.Note();
    std::fflush(stdout);
  }

  // ---- 3: false positives ----
  if (run_fpr) {
    t0 = Now();
    const std::vector<FprRow> fpr = RunFpr(z);
    times.emplace_back("false positives", Now() - t0);
    std::printf(
        "\n== 3. False positives [false-positives] (the classic tutorial experiment): %zu keys of "
        "each\n   kind inserted, %s other keys of the same kind asked\n",
        z.fpr_keys, Count(static_cast<double>(fpr.front().probes)).c_str());
    Legend("keys", "uniform: random 64-bit integers; Gaussian: normal, sd 1e9, rounded;");
    Legend("", "exponential: mean 1e9, rounded (integers: inserted ones odd, asked ones even, so");
    Legend("",
           "none of those asked was inserted); UUID: random version-4 UUIDs, 36-character text");
    Legend("asked", "the false-positive rate the filter was created for (Filter::create)");
    Legend("<layout>", "the rate measured: share of the keys never inserted that the filter says");
    Legend("", "may be present");
    Legend("kept",
           "yes: every measured rate is at or below the asked one; noise: above it by less");
    Legend("", "than 3 standard deviations of sampling that many keys; NO: above it by more");
    Legend("guava", "Guava's BloomFilter, bit for bit, sized as Guava's create() (aimed at the");
    Legend("", "asked rate itself, no headroom: about half of its rates land above it)");
    std::printf("%-12s %6s", "keys", "asked");
    for (Layout l : kLayouts) std::printf(" %14s", simdbloom::layout_name(l));
    std::printf("  %-5s %10s\n", "kept", "guava");
    bool all_kept = true, any_fn = false, any_above = false;
    double worst = 0;
    for (const FprRow& r : fpr) {
      std::printf("%-12s %5g%%", r.kind.c_str(), 100 * r.asked);
      for (double m : r.measured) {
        std::printf(" %13.4f%%", 100 * m);
        worst = std::max(worst, m / r.asked);
      }
      const char* verdict = r.false_negative ? "NO: AN INSERTED KEY WAS MISSED"
                            : r.kept         ? "yes"
                            : r.noise_only   ? "noise"
                                             : "NO";
      std::printf("  %-5s %9.4f%%\n", verdict, 100 * r.guava);
      all_kept = all_kept && r.kept;
      any_fn = any_fn || r.false_negative;
      any_above = any_above || (!r.kept && !r.noise_only);
    }
    fig.fpr = 1;
    fig.fpr_kept = all_kept;
    fig.fpr_above = any_above;
    fig.fpr_missed = any_fn;
    fig.fpr_worst = worst;
    fig.fpr_keys = static_cast<double>(z.fpr_keys);
    fig.fpr_layouts = static_cast<double>(kLayouts.size());
    std::fflush(stdout);
  }

  // ---- 4: one key per call ----
  if (run_single) {
    t0 = Now();
    const std::vector<CallerLevel> levels = CallerLevels();
    std::printf(
        "\n== 4. One key per call [one-key]: insert(key) / contains(key) in a loop, block512, the "
        "same\n   %zu keys and filter sizes as table 1\n",
        z.keys);
    Legend("caller", "the flags the program that calls the library is compiled with: the one-key");
    Legend("", "path is inline in the header and uses the caller's instruction set (in brackets)");
    Legend("insert", "ns per key of insert(key); contains: of contains(key), present keys;");
    Legend("",
           "absent: keys never inserted; prefetched: contains(key) after prefetch(key 8 ahead)");
    Legend("bulk", "table 1's figure for one bulk call on the same keys (a bulk call can overlap");
    Legend("", "many keys' memory accesses, a loop of single calls only if it prefetches)");
    Legend("32 keys", "bulk contains called on 32 keys at a time (a packet filter's burst)");
    std::printf("%10s %-26s %8s %9s %8s %11s %9s %9s\n", "size", "caller", "insert", "contains",
                "absent", "prefetched", "bulk ins", "bulk con");
    constexpr size_t kBurst = 32;
    uint64_t s = 31337;
    std::vector<uint64_t> absent(z.keys);
    for (auto& k : absent) k = SplitMix(s);
    for (size_t bytes : {row_bytes.front(), row_bytes.back()}) {
      const size_t j = point_index(bytes);
      const SizePoint& p = sweep.points[j];
      Filter f = Filter::with_bits(uint64_t{p.bytes} * 8, sweep.k[b512], Layout::kBlock512);
      // Rounds over the levels, the best pass of each loop over all rounds: the machine's other
      // work then weighs on every level alike. Each round's best contains(key) per level, for
      // the spread.
      std::vector<SingleLoopTimes> best(levels.size(), {1e300, 1e300, 1e300, 1e300, 1e300});
      std::vector<std::vector<double>> con_rounds(levels.size());
      std::vector<const char*> paths(levels.size());
      for (int round = 0; round < z.single_rounds; ++round) {
        for (size_t l = 0; l < levels.size(); ++l) {
          SingleLoopTimes t{};
          uint64_t sink = 0;
          paths[l] = levels[l].fn(f, sweep.keys.data(), absent.data(), z.keys, z.single_reps, &Now,
                                  &t, &sink);
          g_sink = sink;
          best[l] = {std::min(best[l].insert, t.insert), std::min(best[l].contains, t.contains),
                     std::min(best[l].contains_absent, t.contains_absent),
                     std::min(best[l].contains_prefetch, t.contains_prefetch),
                     std::min(best[l].contains_prefetch_hashed, t.contains_prefetch_hashed)};
          con_rounds[l].push_back(t.contains);
        }
      }
      size_t best_level = 0;
      bool noisy = false;
      for (size_t l = 0; l < levels.size(); ++l) {
        const SingleLoopTimes& t = best[l];
        const std::string caller = Fmt("%s (%s)", levels[l].name, PathName(paths[l]).c_str());
        std::printf("%10s %-26s %8.2f %9.2f %8.2f %11.2f %9.2f %9.2f\n", Bytes(p.bytes).c_str(),
                    caller.c_str(), t.insert, t.contains, t.contains_absent, t.contains_prefetch,
                    p.ins[b512], p.con[b512]);
        if (t.contains < best[best_level].contains) best_level = l;
        noisy |= spreads.Add(Bytes(p.bytes) + " contains(key), " + caller, con_rounds[l]);
      }
      // A packet filter's burst: bulk contains in calls of 32 keys over the same keys.
      std::vector<uint8_t> out(z.keys);
      std::vector<double> passes;
      // The best of 2 x rounds x reps passes, each timed alone (a pass in cache takes ~1 ms, so
      // fewer caught the VM's noise). Pass -1 is a warm-up: the first bulk call on a size class
      // may measure its prefetch distance (lib/core/prefetch.h).
      for (int round = -1; round < 2 * z.single_rounds * z.single_reps; ++round) {
        const double t = Now();
        for (size_t i = 0; i + kBurst <= z.keys; i += kBurst) {
          f.contains({sweep.keys.data() + i, kBurst}, out.data() + i);
        }
        const double ns = (Now() - t) * 1e9 / static_cast<double>(z.keys / kBurst * kBurst);
        if (round >= 0) passes.push_back(ns);
      }
      const double burst = *std::min_element(passes.begin(), passes.end());
      std::printf("%10s %-26s %8s %9.2f %8s %11s %9.2f %9.2f\n", Bytes(p.bytes).c_str(),
                  "bulk calls of 32 keys", "", burst, "", "", p.ins[b512], p.con[b512]);
      const bool burst_noisy =
          spreads.Add(Bytes(p.bytes) + " bulk calls of 32 keys", passes) ||
          spreads.Add(Bytes(p.bytes) + " bulk contains",
                      sweep_rounds(j, [&](const SizePoint& q) { return q.con[b512]; }));
      fig.single = fig.burst = 1;
      fig.single_noisy = fig.single_noisy || noisy;
      fig.burst_noisy = fig.burst_noisy || burst_noisy;
      if (bytes == row_bytes.front()) {
        fig.single_small_bytes = static_cast<double>(bytes);
        fig.single_small = best[best_level].contains;
        fig.bulk_small = p.con[b512];
        fig.burst_small = burst;
      } else {
        fig.single_large_bytes = static_cast<double>(bytes);
        fig.single_large = best[best_level].contains;
        fig.single_prefetch = best[best_level].contains_prefetch;
        fig.bulk_large = p.con[b512];
        fig.burst_large = burst;
      }
      std::fflush(stdout);
    }
    spreads.Note();
    times.emplace_back("one key per call", Now() - t0);
  }

  // ---- 5: strings ----
  if (run_strings) {
    t0 = Now();
    const size_t ns_keys = z.string_keys;
    const Column uuids(Uuids(ns_keys, 11));
    const Column urls(Urls(ns_keys, 12));
    Filter sf = Filter::create(ns_keys, o.fpp, Layout::kBlock512);
    std::printf(
        "\n== 5. Strings [strings]: %zu strings of each kind, bulk calls into block512 made for "
        "them\n   (%s, in %s)\n",
        ns_keys, Bytes(sf.size_bytes()).c_str(), Where(sf.size_bytes(), caches));
    Legend("insert", "ns per string of bulk insert; contains: of bulk contains (all present)");
    Legend("hash only", "ns per string of hashing it alone (XXH3, the hash the filter uses)");
    Legend("x hash",
           "filter / hash only: what the filter adds to the hashing that any filter needs");
    std::printf("%-22s %8s %9s %10s %9s %9s\n", "strings", "insert", "contains", "hash only",
                "ins x hash", "con x hash");
    Options reps = o;
    reps.min_seconds = z.min_seconds;
    std::vector<uint8_t> out(ns_keys);
    for (const Column* c : {&uuids, &urls}) {
      const auto arrow = c->Arrow();
      const std::string kind = c == &uuids ? "UUID" : "URL";
      // Rounds of the three, the median of them: the machine's other work weighs on all alike.
      std::vector<double> hash_v, ins_v, con_v;
      for (int round = 0; round < z.rounds; ++round) {
        hash_v.push_back(MedianNsPerKey(
            reps, ns_keys, [] {},
            [&] {
              uint64_t sum = 0;
              for (size_t i = 0; i < ns_keys; ++i) {
                sum +=
                    XXH3_64bits_withSeed(c->data.data() + c->offsets[i],
                                         static_cast<size_t>(c->offsets[i + 1] - c->offsets[i]), 0);
              }
              g_sink = sum;
            }));
        ins_v.push_back(MedianNsPerKey(
            reps, ns_keys, [&] { sf.clear(); }, [&] { sf.insert(arrow); }));
        con_v.push_back(MedianNsPerKey(
            reps, ns_keys, [] {}, [&] { sf.contains(arrow, out.data()); }));
      }
      const double hash = Median(hash_v), ins = Median(ins_v), con = Median(con_v);
      std::printf("%-22s %8.2f %9.2f %10.2f %9.2fx %9.2fx\n",
                  c == &uuids ? "UUID, 36 bytes" : "URL, 20..100 bytes", ins, con, hash, ins / hash,
                  con / hash);
      bool noisy = spreads.Add(kind + " insert", ins_v);
      noisy |= spreads.Add(kind + " contains", con_v);
      noisy |= spreads.Add(kind + " hash only", hash_v);
      if (c == &uuids) {
        fig.strings = 1;
        fig.uuid_ins_x = ins / hash;
        fig.uuid_con_x = con / hash;
        fig.uuid_con = con;
        fig.strings_noisy = noisy;
      }
    }
    spreads.Note();
    times.emplace_back("strings", Now() - t0);
  }

  // ---- How much to trust them, and the summary ----
  fig.load_before = load_before.one;
  fig.load_after = ReadLoad().one;
  fig.checked = spreads.checked;
  fig.wide = static_cast<double>(spreads.wide.size());
  PrintTrustAndSummary(fig, plot, z.min_bytes, z.max_bytes);
  std::string t_line;
  for (const auto& [name, sec] : times) t_line += Fmt("%s %.1f s, ", name.c_str(), sec);
  std::printf("Time: %stotal %.1f s.\n", t_line.c_str(), Now() - t_start);
}

}  // namespace sbbench
