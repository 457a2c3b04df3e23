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
//    L2, in L3, in DRAM) and, for those, the library's plain scalar code (target "reference"; the
//    median of 5 rounds too); table 2 every layout at those sizes.
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

// One line of the summary, "- " and the text wrapped at 100 columns, indented by 2.
void Bullet(const std::string& text) {
  std::string line = "-";
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (line.size() + 1 + word.size() > 100) {
      std::printf("%s\n", line.c_str());
      line = " ";
    }
    line += " " + word;
    pos = end + 1;
  }
  std::printf("%s\n", line.c_str());
}

// ---- 1. The size sweep ----
struct SizePoint {
  size_t bytes = 0;
  double read = 0, rmw = 0;      // the memory references, ns per key
  std::vector<double> ins, con;  // per kLayouts entry, ns per key
};

struct Sweep {
  std::vector<SizePoint> points;
  std::vector<uint32_t> k;           // per kLayouts entry
  std::vector<double> bits_per_key;  // at --fpp, as create() sizes it
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

Sweep RunSweep(const Options& o, const DemoSizes& z) {
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
  for (size_t bytes = z.min_bytes; bytes <= z.max_bytes; bytes <<= z.step_log2) {
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
  return s;
}

// The three sizes of table 1: the largest in L2 with room to spare (a quarter of it), the largest
// in L3 with room (a quarter: it is shared), the largest of the sweep (DRAM if it exceeds L3).
std::vector<size_t> TableRows(const Sweep& s, const Caches& c) {
  auto largest_below = [&](size_t limit) {
    size_t best = 0;
    for (size_t i = 0; i < s.points.size(); ++i) {
      if (s.points[i].bytes <= limit) best = i;
    }
    return best;
  };
  const size_t n = s.points.size();
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
      Fmt("simdbloom %s on %s (%ld CPUs, SIMD target %s): ns per key "
          "against filter size",
          simdbloom::version(), CpuName().c_str(), sysconf(_SC_NPROCESSORS_ONLN),
          simdbloom::active_target().c_str());
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

struct FprRow {
  std::string kind;
  double asked;
  std::vector<double> measured;  // per kLayouts entry
  uint64_t probes;
  bool kept, noise_only, false_negative;
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
      for (Layout l : kLayouts) {
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
      for (size_t i = 0; i < kLayouts.size(); ++i) {
        const double measured =
            static_cast<double>(fp[r * kLayouts.size() + i]) / static_cast<double>(probes);
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

}  // namespace

void DemoRun(const Options& o) {
  const DemoSizes z = [&] {
    DemoSizes d = o.quick ? kQuick : kDefault;
    if (o.min_seconds_set) d.min_seconds = o.min_seconds;
    return d;
  }();
  const double t_start = Now();
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

  std::printf(
      "simdbloom %s: the demo%s (simdbloom-bench --full runs the complete benchmark, "
      "about 10 minutes)\n",
      simdbloom::version(), o.quick ? " at tiny sizes (--quick: figures mean nothing)" : "");
  std::printf("CPU: %s, %ld CPUs; caches: L1d %s, L2 %s, L3 %s; SIMD code used: %s\n",
              CpuName().c_str(), sysconf(_SC_NPROCESSORS_ONLN),
              caches.l1 ? Bytes(caches.l1).c_str() : "?",
              caches.l2 ? Bytes(caches.l2).c_str() : "?",
              caches.l3 ? Bytes(caches.l3).c_str() : "?", target.c_str());
  std::printf(
      "Times are nanoseconds (ns) per key, the median of repeated runs: lower is better;\n"
      "1 ns per key is a billion keys a second on one core.\n");
  std::fflush(stdout);

  // ---- 1 and 2: bulk calls against size ----
  double t0 = Now();
  const Sweep sweep = RunSweep(o, z);
  const std::vector<size_t> rows = TableRows(sweep, caches);
  const size_t b512 = LayoutIndex(Layout::kBlock512);
  // The plain scalar code at table 1's sizes: rounds over the sizes, the median of the rounds
  // (as the sweep), the filters kept between rounds.
  std::vector<double> scalar_ins, scalar_con;
  {
    Options reps = o;
    reps.min_seconds = z.min_seconds;
    std::vector<uint8_t> out(z.keys);
    std::vector<Filter> filters;
    for (size_t r : rows) {
      filters.push_back(
          Filter::with_bits(uint64_t{sweep.points[r].bytes} * 8, sweep.k[b512], Layout::kBlock512));
    }
    std::vector<std::vector<double>> ins_v(rows.size()), con_v(rows.size());
    simdbloom::set_target("reference");
    for (int round = 0; round < z.rounds; ++round) {
      for (size_t i = 0; i < rows.size(); ++i) {
        ins_v[i].push_back(BulkInsert(reps, filters[i], sweep.keys));
        con_v[i].push_back(BulkContains(reps, filters[i], sweep.keys, out));
      }
    }
    simdbloom::reset_target();
    for (size_t i = 0; i < rows.size(); ++i) {
      scalar_ins.push_back(Median(ins_v[i]));
      scalar_con.push_back(Median(con_v[i]));
    }
  }
  times.emplace_back("bulk calls and plot", Now() - t0);

  std::printf(
      "\n== 1. Bulk calls: one call with %zu u64 keys; block512, the default layout, made for\n"
      "   a %g%% false-positive rate\n",
      z.keys, 100 * o.fpp);
  Legend("size", "the filter's bytes; \"holds\": how many keys a filter of that size is made for");
  Legend("in", "the smallest cache of this CPU the filter fits in (DRAM: none)");
  Legend("op", "insert: add every key; contains: look every key up (all present, so every lookup");
  Legend("", "reads all its bits; absent keys cost the same or less)");
  Legend("simdbloom", "ns per key with the SIMD code this CPU runs");
  Legend("scalar", "ns per key of the same call run by the library's plain C++ code (no SIMD)");
  Legend("speed-up", "scalar / simdbloom");
  Legend("memory", "ns per key of the physical floor: one random 64-byte memory access per key");
  Legend("", "(read-modify-write for insert, read for contains) over an array of the same size,");
  Legend("", "prefetched ahead; block512 touches exactly one 64-byte line per key");
  Legend("x memory",
         "simdbloom / memory: 1.0x = the filter costs only the memory access it must make");
  std::printf("%10s %8s %5s  %-9s %10s %8s %9s %8s %9s\n", "size", "holds", "in", "op", "simdbloom",
              "scalar", "speed-up", "memory", "x memory");
  for (size_t i = 0; i < rows.size(); ++i) {
    const SizePoint& p = sweep.points[rows[i]];
    const double holds = static_cast<double>(p.bytes) * 8 / sweep.bits_per_key[b512];
    for (int op = 0; op < 2; ++op) {
      const double ns = op == 0 ? p.ins[b512] : p.con[b512];
      const double sc = op == 0 ? scalar_ins[i] : scalar_con[i];
      const double mem = op == 0 ? p.rmw : p.read;
      std::printf("%10s %8s %5s  %-9s %10.2f %8.2f %8.1fx %8.2f %8.1fx\n", Bytes(p.bytes).c_str(),
                  Count(holds).c_str(), Where(p.bytes, caches), op == 0 ? "insert" : "contains", ns,
                  sc, sc / ns, mem, ns / mem);
    }
  }
  std::printf("   (these rows are points of the plot; table 4 repeats their bulk figures)\n");

  std::printf(
      "\n== 2. The layouts: bulk ns per key at table 1's sizes (block512 repeats table 1)\n");
  Legend("layout", "how a key's bits are placed (block512: k bits in one 64-byte cache line;");
  Legend("", "register64: in one 64-bit word; split_block256: one bit in each of 8 words of a");
  Legend("", "32-byte block (Parquet's); classic: k bits anywhere, so k cache lines)");
  Legend("bits/key",
         Fmt("memory per key the filter is made for, at a %g%% false-positive rate", 100 * o.fpp)
             .c_str());
  Legend("k", "bits set and tested per key");
  std::printf("%-15s %8s %3s", "layout", "bits/key", "k");
  for (size_t r : rows) {
    std::printf(" %12s", ("ins " + Bytes(sweep.points[r].bytes)).c_str());
  }
  for (size_t r : rows) {
    std::printf(" %12s", ("con " + Bytes(sweep.points[r].bytes)).c_str());
  }
  std::printf("\n");
  for (size_t i = 0; i < kLayouts.size(); ++i) {
    std::printf("%-15s %8.2f %3u", simdbloom::layout_name(kLayouts[i]), sweep.bits_per_key[i],
                sweep.k[i]);
    for (size_t r : rows) std::printf(" %12.2f", sweep.points[r].ins[i]);
    for (size_t r : rows) std::printf(" %12.2f", sweep.points[r].con[i]);
    std::printf("\n");
  }
  const bool csv_ok = WriteCsv(csv, sweep);
  const bool plot_ok = WritePlot(plot, sweep, caches, z, o.fpp);
  std::printf("   plot of every size from %s to %s: %s%s (data: %s%s)\n",
              Bytes(z.min_bytes).c_str(), Bytes(z.max_bytes).c_str(), plot.c_str(),
              plot_ok ? "" : " NOT WRITTEN", csv.c_str(), csv_ok ? "" : " NOT WRITTEN");
  std::fflush(stdout);

  // ---- 3: false positives ----
  t0 = Now();
  const std::vector<FprRow> fpr = RunFpr(z);
  times.emplace_back("false positives", Now() - t0);
  std::printf(
      "\n== 3. False positives (the classic tutorial experiment): %zu keys of each kind "
      "inserted,\n   %s other keys of the same kind asked\n",
      z.fpr_keys, Count(static_cast<double>(fpr.front().probes)).c_str());
  Legend("keys", "uniform: random 64-bit integers; Gaussian: normal, sd 1e9, rounded;");
  Legend("", "exponential: mean 1e9, rounded (integers: inserted ones odd, asked ones even, so");
  Legend("", "none of those asked was inserted); UUID: random version-4 UUIDs, 36-character text");
  Legend("asked", "the false-positive rate the filter was created for (Filter::create)");
  Legend("<layout>", "the rate measured: share of the keys never inserted that the filter says");
  Legend("", "may be present");
  Legend("kept", "yes: every measured rate is at or below the asked one; noise: above it by less");
  Legend("", "than 3 standard deviations of sampling that many keys; NO: above it by more");
  std::printf("%-12s %6s", "keys", "asked");
  for (Layout l : kLayouts) std::printf(" %14s", simdbloom::layout_name(l));
  std::printf("  %s\n", "kept");
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
    std::printf("  %s\n", verdict);
    all_kept = all_kept && r.kept;
    any_fn = any_fn || r.false_negative;
    any_above = any_above || (!r.kept && !r.noise_only);
  }
  std::fflush(stdout);

  // ---- 4: one key per call ----
  t0 = Now();
  const std::vector<CallerLevel> levels = CallerLevels();
  std::printf(
      "\n== 4. One key per call: insert(key) / contains(key) in a loop, block512, the same "
      "%zu keys\n   and filter sizes as table 1\n",
      z.keys);
  Legend("caller", "the flags the program that calls the library is compiled with: the one-key");
  Legend("", "path is inline in the header and uses the caller's instruction set (in brackets)");
  Legend("insert", "ns per key of insert(key); contains: of contains(key), present keys;");
  Legend("", "absent: keys never inserted; prefetched: contains(key) after prefetch(key 8 ahead)");
  Legend("bulk", "table 1's figure for one bulk call on the same keys: it overlaps many keys'");
  Legend("", "memory accesses, a loop of single calls cannot (unless it prefetches)");
  Legend("32 keys", "bulk contains called on 32 keys at a time (a packet filter's burst)");
  std::printf("%10s %-26s %8s %9s %8s %11s %9s %9s\n", "size", "caller", "insert", "contains",
              "absent", "prefetched", "bulk ins", "bulk con");
  struct SingleFig {
    size_t bytes;
    std::string caller;
    SingleLoopTimes t;
    double bulk_con;
  };
  std::vector<SingleFig> single;
  struct BurstFig {
    size_t bytes;
    double contains, bulk_con;
  };
  std::vector<BurstFig> bursts;
  constexpr size_t kBurst = 32;
  {
    uint64_t s = 31337;
    std::vector<uint64_t> absent(z.keys);
    for (auto& k : absent) k = SplitMix(s);
    for (size_t r : {rows.front(), rows.back()}) {
      const SizePoint& p = sweep.points[r];
      Filter f = Filter::with_bits(uint64_t{p.bytes} * 8, sweep.k[b512], Layout::kBlock512);
      // Rounds over the levels, the best pass of each loop over all rounds: the machine's other
      // work then weighs on every level alike.
      std::vector<SingleLoopTimes> best(levels.size(), {1e300, 1e300, 1e300, 1e300});
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
                     std::min(best[l].contains_prefetch, t.contains_prefetch)};
        }
      }
      for (size_t l = 0; l < levels.size(); ++l) {
        const SingleLoopTimes& t = best[l];
        const std::string caller = Fmt("%s (%s)", levels[l].name, paths[l]);
        std::printf("%10s %-26s %8.2f %9.2f %8.2f %11.2f %9.2f %9.2f\n", Bytes(p.bytes).c_str(),
                    caller.c_str(), t.insert, t.contains, t.contains_absent, t.contains_prefetch,
                    p.ins[b512], p.con[b512]);
        single.push_back({p.bytes, caller, t, p.con[b512]});
      }
      // A packet filter's burst: bulk contains in calls of 32 keys over the same keys.
      std::vector<uint8_t> out(z.keys);
      double burst = 1e300;
      // The best of 2 x rounds x reps passes, each timed alone (a pass in cache takes ~1 ms, so
      // fewer caught the VM's noise). Pass -1 is a warm-up: the first bulk call on a size class
      // may measure its prefetch distance (lib/core/prefetch.h).
      for (int round = -1; round < 2 * z.single_rounds * z.single_reps; ++round) {
        const double t = Now();
        for (size_t i = 0; i + kBurst <= z.keys; i += kBurst) {
          f.contains({sweep.keys.data() + i, kBurst}, out.data() + i);
        }
        const double ns = (Now() - t) * 1e9 / static_cast<double>(z.keys / kBurst * kBurst);
        if (round >= 0) burst = std::min(burst, ns);
      }
      std::printf("%10s %-26s %8s %9.2f %8s %11s %9.2f %9.2f\n", Bytes(p.bytes).c_str(),
                  "bulk calls of 32 keys", "", burst, "", "", p.ins[b512], p.con[b512]);
      bursts.push_back({p.bytes, burst, p.con[b512]});
      std::fflush(stdout);
    }
  }
  times.emplace_back("one key per call", Now() - t0);

  // ---- 5: strings ----
  t0 = Now();
  const size_t ns_keys = z.string_keys;
  const Column uuids(Uuids(ns_keys, 11));
  const Column urls(Urls(ns_keys, 12));
  Filter sf = Filter::create(ns_keys, o.fpp, Layout::kBlock512);
  std::printf(
      "\n== 5. Strings: %zu strings of each kind, bulk calls into block512 made for them "
      "(%s, in %s)\n",
      ns_keys, Bytes(sf.size_bytes()).c_str(), Where(sf.size_bytes(), caches));
  Legend("insert", "ns per string of bulk insert; contains: of bulk contains (all present)");
  Legend("hash only", "ns per string of hashing it alone (XXH3, the hash the filter uses)");
  Legend("x hash", "filter / hash only: what the filter adds to the hashing that any filter needs");
  std::printf("%-22s %8s %9s %10s %9s %9s\n", "strings", "insert", "contains", "hash only",
              "ins x hash", "con x hash");
  double uuid_ins_x = 0, uuid_con_x = 0, uuid_con = 0;
  {
    Options reps = o;
    reps.min_seconds = z.min_seconds;
    std::vector<uint8_t> out(ns_keys);
    for (const Column* c : {&uuids, &urls}) {
      const auto arrow = c->Arrow();
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
      if (c == &uuids) uuid_ins_x = ins / hash, uuid_con_x = con / hash, uuid_con = con;
    }
  }
  times.emplace_back("strings", Now() - t0);

  // ---- Summary ----
  const SizePoint& small = sweep.points[rows.front()];
  const SizePoint& large = sweep.points[rows.back()];
  std::printf("\n== Summary\n");
  const double large_x = std::max(large.con[b512] / large.read, large.ins[b512] / large.rmw);
  Bullet(
      Fmt("In cache (a %s filter, made for %s keys at %g%%), checking a key costs %.1f ns and "
          "adding one %.1f ns: %.0fx and %.0fx faster than the library's plain scalar code.",
          Bytes(small.bytes).c_str(),
          Count(static_cast<double>(small.bytes) * 8 / sweep.bits_per_key[b512]).c_str(),
          100 * o.fpp, small.con[b512], small.ins[b512], scalar_con.front() / small.con[b512],
          scalar_ins.front() / small.ins[b512]));
  Bullet(
      Fmt("At %s (in %s), a check costs %.1f ns, %.1fx one random memory read (%.1f ns), and "
          "an insert %.1fx one random read-modify-write: memory sets the pace, the filter "
          "adds %s.",
          Bytes(large.bytes).c_str(), Where(large.bytes, caches), large.con[b512],
          large.con[b512] / large.read, large.read, large.ins[b512] / large.rmw,
          large_x < 1.5 ? "little" : "a visible share"));
  Bullet(
      Fmt("False positives: %s (worst measured/asked %.2f; %zu keys of 4 kinds, rates 1%% and "
          "0.1%%, %zu layouts).%s",
          all_kept    ? "every measured rate was at or below the rate asked for"
          : any_above ? "SOME MEASURED RATE WAS ABOVE THE RATE ASKED FOR"
                      : "some rates were above the asked one, by sampling noise only",
          worst, z.fpr_keys, kLayouts.size(),
          any_fn ? " AN INSERTED KEY WAS MISSED." : " No inserted key was ever missed."));
  {
    // The best caller level at both sizes.
    const SingleFig* best_small = nullptr;
    const SingleFig* best_large = nullptr;
    for (const SingleFig& f : single) {
      if (f.bytes == small.bytes && (!best_small || f.t.contains < best_small->t.contains)) {
        best_small = &f;
      }
      if (f.bytes == large.bytes && (!best_large || f.t.contains < best_large->t.contains)) {
        best_large = &f;
      }
    }
    if (best_small && best_large) {
      Bullet(
          Fmt("One key per call: contains(key) costs %.1f ns at %s and %.1f ns at %s (%.1f ns "
              "with prefetch); one bulk call costs %.1f and %.1f ns per key: it overlaps the "
              "memory accesses of many keys.",
              best_small->t.contains, Bytes(small.bytes).c_str(), best_large->t.contains,
              Bytes(large.bytes).c_str(), best_large->t.contains_prefetch, best_small->bulk_con,
              best_large->bulk_con));
    }
  }
  if (bursts.size() == 2) {
    Bullet(
        Fmt("A packet burst, bulk contains on 32 keys a call: %.1f ns a key at %s (%.2fx one "
            "large call) and %.1f ns at %s (%.2fx).",
            bursts[0].contains, Bytes(bursts[0].bytes).c_str(),
            bursts[0].contains / bursts[0].bulk_con, bursts[1].contains,
            Bytes(bursts[1].bytes).c_str(), bursts[1].contains / bursts[1].bulk_con));
  }
  Bullet(
      Fmt("Strings: a UUID is checked in %.1f ns; insert and contains cost %.2fx and %.2fx the "
          "time of hashing it alone.",
          uuid_con, uuid_ins_x, uuid_con_x));
  Bullet(
      Fmt("The plot %s shows ns per key from %s to %s for every layout, with the cache sizes "
          "marked: where a curve leaves the dashed memory line, the filter's own work shows.",
          plot.c_str(), Bytes(z.min_bytes).c_str(), Bytes(z.max_bytes).c_str()));
  std::string t_line;
  for (const auto& [name, sec] : times) t_line += Fmt("%s %.1f s, ", name.c_str(), sec);
  std::printf("Time: %stotal %.1f s.\n", t_line.c_str(), Now() - t_start);
}

}  // namespace sbbench
