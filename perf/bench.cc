// simdbloom-bench: the main demo and benchmark, on built-in data, in one process and one run.
//
// 1. Speed: bulk insert and bulk contains of u64 keys (hashing included) for every layout, on the
//    scalar reference and every SIMD target this CPU runs; ns/key, speed-up over the reference,
//    bits/key, k and the measured false-positive rate.
// 2. False-positive rates: the classic tutorial experiment. 10,000,000 u64 keys drawn uniform,
//    Gaussian and exponential; filters created for fpp 0.03, 0.01 and 0.001 in every layout; the
//    measured rate over 10,000,000 absent keys drawn from the same distribution, against the
//    requested rate and the layout's own prediction.
//
// 3. Memory: filters of --mem-keys keys (default 1e8: ~120 MB) against physical references
//    measured in the same run over an array of the filter's size: independent random 64-byte
//    reads with software prefetch, and random read-modify-writes. Each with 2 MiB (transparent
//    huge) pages and with 4 KiB pages; every layout's bulk insert/contains as a multiple of the
//    reference (the median of 5 rounds, each timing references and filter back to back; block512
//    on huge pages also against the 4 KiB-page references in the same rounds; classic, k lines per
//    key, against k references in one round); the tile pipeline with prefetching off; block512
//    across prefetch distances.
// 4. Shapes: key shapes (u64, u32, pre-hashed, URL-like strings of 20..100 bytes as string_views
//    and as an Arrow array, UUID strings, 13-byte 5-tuples) and result forms (bytes, bitmap,
//    selection), block512, --shape-keys keys (default 1e7), against the random-read reference.
// 5. UUIDs: the tutorial experiment with --fpr-keys UUID strings at fpp 0.03 and 0.001.
//
//   simdbloom-bench [--json] [--keys N[,N...]] [--fpp P] [--min-seconds S] [--fpr-keys N]
//                   [--mem-keys N] [--shape-keys N] [--only speed|fpr|memory|shapes|uuid]
// With --json, one JSON object per measurement (one per line) instead of the tables.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hwy/cache_control.h"
#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace {

using simdbloom::Filter;
using simdbloom::Layout;

const Layout kLayouts[] = {Layout::kBlock512, Layout::kRegister64, Layout::kSplitBlock256,
                           Layout::kClassic};

// Headline figures in plain words, printed at the end of a table run (not with --json).
std::vector<std::string> g_summary;

std::string Fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

struct Options {
  bool json = false;
  std::vector<size_t> keys = {100000, 10000000};
  double fpp = 0.01;
  double min_seconds = 0.2;  // per measurement; at least 3 repetitions
  size_t fpr_keys = 10000000;
  size_t mem_keys = 100000000;
  size_t shape_keys = 10000000;
  bool speed = true, fpr = true, memory = true, shapes = true, uuid = true;
};

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform double in (0, 1), from 53 random bits; never 0.
double Uniform01(uint64_t& s) { return (static_cast<double>(SplitMix(s) >> 11) + 0.5) * 0x1p-53; }

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median ns/key of repetitions of `run` (after `setup`, untimed) until min_seconds have passed,
// at least min_reps of them.
template <class Setup, class Run>
double MedianNsPerKey(const Options& o, size_t n, Setup&& setup, Run&& run, size_t min_reps = 3) {
  std::vector<double> samples;
  const double start = Now();
  while (samples.size() < min_reps || (Now() - start < o.min_seconds && samples.size() < 1000)) {
    setup();
    const double t0 = Now();
    run();
    samples.push_back((Now() - t0) * 1e9 / static_cast<double>(n));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

size_t CountOnes(const std::vector<uint8_t>& v) {
  size_t c = 0;
  for (uint8_t x : v) c += x;
  return c;
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--json") {
      o->json = true;
    } else if (a == "--keys") {
      o->keys.clear();
      const std::string list = value("--keys");
      for (size_t pos = 0; pos <= list.size();) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        const double v = std::atof(list.substr(pos, comma - pos).c_str());
        if (v < 1) return false;
        o->keys.push_back(static_cast<size_t>(v));
        pos = comma + 1;
      }
    } else if (a == "--fpp") {
      o->fpp = std::atof(value("--fpp").c_str());
    } else if (a == "--min-seconds") {
      o->min_seconds = std::atof(value("--min-seconds").c_str());
    } else if (a == "--fpr-keys") {
      o->fpr_keys = static_cast<size_t>(std::atof(value("--fpr-keys").c_str()));
    } else if (a == "--mem-keys") {
      o->mem_keys = static_cast<size_t>(std::atof(value("--mem-keys").c_str()));
    } else if (a == "--shape-keys") {
      o->shape_keys = static_cast<size_t>(std::atof(value("--shape-keys").c_str()));
    } else if (a == "--only") {
      const std::string what = value("--only");
      if (what != "speed" && what != "fpr" && what != "memory" && what != "shapes" &&
          what != "uuid") {
        return false;
      }
      o->speed = what == "speed";
      o->fpr = what == "fpr";
      o->memory = what == "memory";
      o->shapes = what == "shapes";
      o->uuid = what == "uuid";
    } else {
      return false;
    }
  }
  return !o->keys.empty() && o->fpp > 0 && o->fpp < 1 && o->fpr_keys >= 1000 &&
         o->mem_keys >= 1000 && o->shape_keys >= 1000 && o->shape_keys < (uint64_t{1} << 32);
}

// ---- 1. Speed ----

void SpeedSection(const Options& o) {
  std::vector<std::string> targets = simdbloom::available_targets();
  // The reference first: every other row is compared with it.
  std::rotate(targets.begin(), targets.end() - 1, targets.end());
  const std::string dispatched = simdbloom::active_target();
  if (!o.json) {
    std::printf("== Speed: bulk u64 keys, hashing included, fpp %g (* = dispatched target)\n",
                o.fpp);
    std::printf("%10s  %-15s %-10s %-9s %9s %9s %9s %3s %9s\n", "keys", "layout", "target", "op",
                "ns/key", "vs ref", "bits/key", "k", "FPR");
  }
  for (size_t n : o.keys) {
    uint64_t s = 12345 + n;
    std::vector<uint64_t> keys(n), absent(n);
    for (auto& k : keys) k = SplitMix(s);
    for (auto& k : absent) k = SplitMix(s);
    std::vector<uint8_t> out(n);
    for (Layout layout : kLayouts) {
      Filter f = Filter::create(n, o.fpp, layout);
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      double ref_insert = 0, ref_contains = 0;
      for (const std::string& t : targets) {
        simdbloom::set_target(t);
        const double ins = MedianNsPerKey(
            o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
        // Queries: half present, half absent (two calls of n/2 keys count as n keys).
        const double con = MedianNsPerKey(
            o, n, [] {},
            [&] {
              f.contains(simdbloom::Span<const uint64_t>(keys.data(), n / 2), out.data());
              f.contains(simdbloom::Span<const uint64_t>(absent.data(), n - n / 2),
                         out.data() + n / 2);
            });
        f.contains(absent, out.data());
        const double fpr = static_cast<double>(CountOnes(out)) / static_cast<double>(n);
        if (t == "reference") {
          ref_insert = ins;
          ref_contains = con;
        }
        if (t == dispatched && layout == Layout::kBlock512) {
          g_summary.push_back(Fmt(
              "Speed, %zu keys (%s): adding a key costs %.2f ns, checking one %.2f ns, %.1fx and "
              "%.1fx faster than the plain scalar code; %.1f bits per key for the 1%% error rate "
              "asked, %.2f%% measured.",
              n,
              f.size_bytes() <= (size_t{4} << 20) ? "the filter fits in the CPU caches"
                                                  : "the filter is larger than the L2 cache",
              ins, con, ref_insert / ins, ref_contains / con, bpk, 100 * fpr));
        }
        for (int op = 0; op < 2; ++op) {
          const double ns = op == 0 ? ins : con;
          const double speedup = (op == 0 ? ref_insert : ref_contains) / ns;
          const char* op_name = op == 0 ? "insert" : "contains";
          if (o.json) {
            std::printf(
                "{\"bench\":\"speed\",\"layout\":\"%s\",\"op\":\"%s\",\"keys\":%zu,"
                "\"target\":\"%s\",\"dispatched\":%s,\"ns_per_key\":%.4f,\"keys_per_s\":%.4g,"
                "\"speedup_vs_reference\":%.3f,\"bits_per_key\":%.3f,\"k\":%u,"
                "\"fpp_requested\":%g,\"fpr_measured\":%.6f}\n",
                simdbloom::layout_name(layout), op_name, n, t.c_str(),
                t == dispatched ? "true" : "false", ns, 1e9 / ns, speedup, bpk, f.num_hashes(),
                o.fpp, fpr);
          } else {
            const std::string name = t == dispatched ? t + "*" : t;
            std::printf("%10zu  %-15s %-10s %-9s %9.3f %8.2fx %9.2f %3u %9.5f\n", n,
                        simdbloom::layout_name(layout), name.c_str(), op_name, ns, speedup, bpk,
                        f.num_hashes(), fpr);
          }
        }
      }
      // Bulk insert that reports per key whether it was new (de-duplication), against plain
      // bulk insert on the dispatched target; the two measured alternately, twice each.
      simdbloom::set_target(dispatched);
      std::vector<uint8_t> fresh(n);
      double plain = 0, with_fresh = 0;
      for (int round = 0; round < 2; ++round) {
        plain += MedianNsPerKey(
            o, n, [&] { f.clear(); }, [&] { f.insert(keys); });
        with_fresh += MedianNsPerKey(
            o, n, [&] { f.clear(); }, [&] { f.insert(keys, fresh.data()); });
      }
      plain /= 2;
      with_fresh /= 2;
      if (o.json) {
        std::printf(
            "{\"bench\":\"speed\",\"layout\":\"%s\",\"op\":\"insert_fresh\",\"keys\":%zu,"
            "\"target\":\"%s\",\"ns_per_key\":%.4f,\"insert_ns_per_key\":%.4f,"
            "\"ratio_vs_insert\":%.3f}\n",
            simdbloom::layout_name(layout), n, dispatched.c_str(), with_fresh, plain,
            with_fresh / plain);
      } else {
        std::printf(
            "%10zu  %-15s %-10s %-9s %9.3f %8.2fx of insert (%.3f ns/key), per-key new flags\n", n,
            simdbloom::layout_name(layout), (dispatched + "*").c_str(), "ins+fresh", with_fresh,
            with_fresh / plain, plain);
      }
      std::fflush(stdout);
    }
  }
  simdbloom::reset_target();
}

// ---- 2. False-positive rates: the tutorial experiment ----

// n keys of a distribution, as u64 (Gaussian values are rounded and stored as two's complement).
std::vector<uint64_t> Draw(const std::string& dist, size_t n, uint64_t seed) {
  std::vector<uint64_t> v(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    if (dist == "uniform") {
      v[i] = SplitMix(s);
    } else if (dist == "gaussian") {  // N(0, 1) * 1e9, Box-Muller
      const double u1 = Uniform01(s), u2 = Uniform01(s);
      const double g = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
      v[i] = static_cast<uint64_t>(static_cast<int64_t>(std::llround(g * 1e9)));
    } else {  // exponential: Exp(1) * 1e9
      v[i] = static_cast<uint64_t>(std::llround(-std::log(Uniform01(s)) * 1e9));
    }
  }
  return v;
}

void FprSection(const Options& o) {
  const size_t n = o.fpr_keys;
  if (!o.json) {
    std::printf(
        "\n== False-positive rates: %zu u64 keys per distribution, filters created for %zu keys;"
        "\n   measured over %zu absent keys from the same distribution (dispatched target %s)\n",
        n, n, n, simdbloom::active_target().c_str());
    std::printf("%-12s %9s %-15s %6s %3s %10s %10s %10s %9s %s\n", "distribution", "distinct",
                "layout", "fpp", "k", "bits/key", "predicted", "measured", "meas/fpp", "");
  }
  bool all_ok = true;
  double worst = 0;
  bool any_false_negative = false;
  for (const std::string dist : {"uniform", "gaussian", "exponential"}) {
    std::vector<uint64_t> keys = Draw(dist, n, 1);
    std::vector<uint64_t> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    const size_t distinct = sorted.size();
    // Absent keys: draws from the same distribution that are not among the keys.
    std::vector<uint64_t> candidates = Draw(dist, n, 2);
    std::sort(candidates.begin(), candidates.end());
    std::vector<uint64_t> absent;
    absent.reserve(n);
    std::set_difference(candidates.begin(), candidates.end(), sorted.begin(), sorted.end(),
                        std::back_inserter(absent));
    std::vector<uint8_t> out(std::max(keys.size(), absent.size()));
    for (double fpp : {0.03, 0.01, 0.001}) {
      for (Layout layout : kLayouts) {
        Filter f = Filter::create(n, fpp, layout);
        f.insert(keys);
        f.contains(keys, out.data());
        const bool no_false_negative =
            CountOnes(out) >= keys.size() &&
            std::all_of(out.begin(), out.begin() + keys.size(), [](uint8_t x) { return x == 1; });
        f.contains(absent, out.data());
        size_t fp = 0;
        for (size_t i = 0; i < absent.size(); ++i) fp += out[i];
        const double measured = static_cast<double>(fp) / static_cast<double>(absent.size());
        const double predicted = f.predicted_fpp(distinct);
        const bool ok = measured <= fpp && no_false_negative;
        all_ok = all_ok && ok;
        worst = std::max(worst, measured / fpp);
        any_false_negative = any_false_negative || !no_false_negative;
        const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
        if (o.json) {
          std::printf(
              "{\"bench\":\"fpr\",\"distribution\":\"%s\",\"keys\":%zu,\"distinct\":%zu,"
              "\"layout\":\"%s\",\"fpp_requested\":%g,\"k\":%u,\"bits_per_key\":%.3f,"
              "\"fpr_predicted\":%.6g,\"fpr_measured\":%.6g,\"absent_probes\":%zu,"
              "\"false_negatives\":%s,\"measured_le_requested\":%s}\n",
              dist.c_str(), n, distinct, simdbloom::layout_name(layout), fpp, f.num_hashes(), bpk,
              predicted, measured, absent.size(), no_false_negative ? "false" : "true",
              ok ? "true" : "false");
        } else {
          std::printf("%-12s %9zu %-15s %6g %3u %10.3f %10.6f %10.6f %9.3f %s\n", dist.c_str(),
                      distinct, simdbloom::layout_name(layout), fpp, f.num_hashes(), bpk, predicted,
                      measured, measured / fpp,
                      ok ? "ok" : (no_false_negative ? "ABOVE REQUESTED" : "FALSE NEGATIVE"));
        }
        std::fflush(stdout);
      }
    }
  }
  if (!o.json) {
    std::printf("%s\n", all_ok ? "every measured rate is at or below the requested one"
                               : "SOME MEASURED RATE EXCEEDS THE REQUESTED ONE");
  }
  g_summary.push_back(
      Fmt("False positives (a key never inserted that the filter says may be "
          "present): %s, over 36 filters of %zu keys (3 key distributions, rates "
          "3%%, 1%% and 0.1%%, 4 layouts); worst measured/asked %.2f. %s",
          all_ok ? "every measured rate was at or below the rate asked for"
                 : "SOME MEASURED RATE WAS ABOVE THE RATE ASKED FOR",
          n, worst,
          any_false_negative ? "AN INSERTED KEY WAS MISSED (false negative)."
                             : "No inserted key was ever missed."));
}

// ---- 3. Memory: physical references and the tile pipeline out of cache ----

// Transparent huge pages backing this process's anonymous memory, in KiB (/proc/self/smaps_rollup).
long AnonHugeKiB() {
  std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

// An array the filter's size, allocated as the library allocates filters: 2 MiB-aligned and
// advised MADV_HUGEPAGE, or advised MADV_NOHUGEPAGE (4 KiB pages); touched before use.
struct PhysicalArray {
  uint64_t* words = nullptr;
  size_t bytes = 0;
  PhysicalArray(size_t size, bool huge) {
    const size_t page = size_t{2} << 20;
    bytes = (size + page - 1) / page * page;
    void* p = nullptr;
    if (posix_memalign(&p, page, bytes) != 0) throw std::bad_alloc();
    (void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::memset(p, 1, bytes);
    words = static_cast<uint64_t*>(p);
  }
  ~PhysicalArray() { std::free(words); }
  PhysicalArray(const PhysicalArray&) = delete;
  PhysicalArray& operator=(const PhysicalArray&) = delete;
};

// n independent random 64-byte accesses (line = multiply-high of a mixed counter), each
// prefetched `distance` accesses ahead: a read of one word, or a read-modify-write of one word.
template <bool kWrite>
uint64_t RandomLines(uint64_t* words, size_t lines, size_t n, size_t distance, uint64_t seed) {
  auto line_of = [&](uint64_t i) {
    uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;  // SplitMix64's finalizer
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 27;
    return static_cast<size_t>((static_cast<unsigned __int128>(z) * lines) >> 64);
  };
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    hwy::Prefetch(words + 8 * line_of(i + distance));
    uint64_t* w = words + 8 * line_of(i);
    if (kWrite) {
      *w |= uint64_t{1} << (i & 63);
    } else {
      sum += *w;
    }
  }
  return sum;
}

volatile uint64_t g_sink;

void Row(const Options& o, const char* section, const std::string& what, const char* pages,
         size_t n, double ns, double ref_ns, const char* ref_name) {
  if (o.json) {
    std::printf(
        "{\"bench\":\"%s\",\"what\":\"%s\",\"pages\":\"%s\",\"keys\":%zu,\"ns_per_key\":%.4f,"
        "\"reference\":\"%s\",\"reference_ns\":%.4f,\"ratio\":%.4f}\n",
        section, what.c_str(), pages, n, ns, ref_name, ref_ns, ns / ref_ns);
  } else {
    std::printf("%-44s %-6s %9.3f %9.3f  %-12s %7.3fx\n", what.c_str(), pages, ns, ref_ns, ref_name,
                ns / ref_ns);
  }
  std::fflush(stdout);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A row whose ratio is the median of per-round ratios `ratios`, with their range.
void RowPaired(const Options& o, const std::string& what, const char* pages, size_t n, double ns,
               double ref_ns, const char* ref_name, const std::vector<double>& ratios) {
  std::vector<double> r = ratios;
  std::sort(r.begin(), r.end());
  const double mid = r[r.size() / 2];
  if (o.json) {
    std::printf(
        "{\"bench\":\"memory\",\"what\":\"%s\",\"pages\":\"%s\",\"keys\":%zu,\"ns_per_key\":%.4f,"
        "\"reference\":\"%s\",\"reference_ns\":%.4f,\"ratio\":%.4f,\"ratio_min\":%.4f,"
        "\"ratio_max\":%.4f,\"rounds\":%zu}\n",
        what.c_str(), pages, n, ns, ref_name, ref_ns, mid, r.front(), r.back(), r.size());
  } else {
    if (r.size() == 1) {
      std::printf("%-44s %-6s %9.3f %9.3f  %-12s %7.3fx  (1 round)\n", what.c_str(), pages, ns,
                  ref_ns, ref_name, mid);
    } else {
      std::printf("%-44s %-6s %9.3f %9.3f  %-12s %7.3fx  (%zu rounds: %.3f..%.3f)\n", what.c_str(),
                  pages, ns, ref_ns, ref_name, mid, r.size(), r.front(), r.back());
    }
  }
  std::fflush(stdout);
}

void RowHeader() {
  std::printf("%-44s %-6s %9s %9s  %-12s %8s\n", "measurement", "pages", "ns/key", "ref ns",
              "reference", "ratio");
}

void MemorySection(const Options& o) {
  const size_t n = o.mem_keys;
  if (!o.json) {
    std::printf(
        "\n== Memory: %zu u64 keys, fpp %g, target %s; ns/key, and the ratio to a physical\n"
        "   reference over an array of the filter's size measured in the same run (read: random\n"
        "   64-byte reads with prefetch; rmw: random read-modify-writes with prefetch; classic\n"
        "   touches k lines per key and is compared with k of them).\n",
        n, o.fpp, simdbloom::active_target().c_str());
    RowHeader();
  }
  uint64_t s = 777;
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = SplitMix(s);
  std::vector<uint8_t> out(n);
  Options reps = o;
  reps.min_seconds = 0;  // one pass over all keys per measurement: each is ~1e8 random accesses
  for (bool huge : {true, false}) {
    const char* pages = huge ? "2MiB" : "4KiB";
    simdbloom::detail::SetHugePages(huge);
    for (Layout layout : kLayouts) {
      // 4 KiB pages for block512 only.
      if (!huge && layout != Layout::kBlock512) continue;
      const long huge_before = AnonHugeKiB();
      Filter f = Filter::create(n, o.fpp, layout);
      const long huge_kib = AnonHugeKiB() - huge_before;
      const size_t lines = f.size_bytes() / 64;
      // The references over an array of the filter's size on the same pages, and for block512 on
      // huge pages also over one on 4 KiB pages (huge pages must beat it outright).
      struct Ref {
        Ref(size_t bytes, bool huge_pages) : array(bytes, huge_pages) {}
        PhysicalArray array;
        size_t read_d = 0, rmw_d = 0;
        std::vector<double> read, rmw;  // per round
      };
      std::vector<std::unique_ptr<Ref>> refs;
      refs.push_back(std::make_unique<Ref>(f.size_bytes(), huge));
      const bool vs_4k = huge && layout == Layout::kBlock512;
      if (vs_4k) refs.push_back(std::make_unique<Ref>(f.size_bytes(), false));
      auto read_ns = [&](Ref& r, size_t d) {
        return MedianNsPerKey(
            reps, n, [] {}, [&] { g_sink = RandomLines<false>(r.array.words, lines, n, d, 1); }, 1);
      };
      auto rmw_ns = [&](Ref& r, size_t d) {
        return MedianNsPerKey(
            reps, n, [] {}, [&] { g_sink = RandomLines<true>(r.array.words, lines, n, d, 2); }, 1);
      };
      // Each reference at its best prefetch distance.
      for (auto& r : refs) {
        double best_read = 1e300, best_rmw = 1e300;
        for (size_t d : {16, 32, 64}) {
          const double rd = read_ns(*r, d), wr = rmw_ns(*r, d);
          if (rd < best_read) best_read = rd, r->read_d = d;
          if (wr < best_rmw) best_rmw = wr, r->rmw_d = d;
        }
      }
      const std::string lname = simdbloom::layout_name(layout);
      if (!o.json) {
        std::printf(
            "-- %s: %.1f MB, k %u, %ld MiB in huge pages; reference prefetch distance "
            "read %zu, rmw %zu\n",
            lname.c_str(), f.size_bytes() / 1e6, f.num_hashes(), huge_kib / 1024, refs[0]->read_d,
            refs[0]->rmw_d);
      }
      auto insert_ns = [&] {
        return MedianNsPerKey(
            reps, n, [&] { f.clear(); }, [&] { f.insert(keys); }, 1);
      };
      // Queries: the inserted keys, so every probe reads its whole block (no early exit).
      auto contains_ns = [&] {
        return MedianNsPerKey(
            reps, n, [] {}, [&] { f.contains(keys, out.data()); }, 1);
      };
      // The headline ratios: the references and the filter back to back in each of kRounds
      // rounds, the ratio taken per round (this machine's speed drifts between rounds by more than
      // the differences measured here); the median round, with the range. A classic key touches
      // k lines: its references are k random reads / read-modify-writes, in one round (each pass
      // is k times longer).
      const bool classic = layout == Layout::kClassic;
      const int rounds = classic ? 1 : 5;
      const double lines_per_key = classic ? f.num_hashes() : 1;
      std::vector<double> ins_v, con_v;
      for (int round = 0; round < rounds; ++round) {
        for (auto& r : refs) r->read.push_back(lines_per_key * read_ns(*r, r->read_d));
        con_v.push_back(contains_ns());
        for (auto& r : refs) r->rmw.push_back(lines_per_key * rmw_ns(*r, r->rmw_d));
        ins_v.push_back(insert_ns());
      }
      auto ratios = [](const std::vector<double>& a, const std::vector<double>& b) {
        std::vector<double> q;
        for (size_t i = 0; i < a.size(); ++i) q.push_back(a[i] / b[i]);
        return q;
      };
      const double ins = Median(ins_v), con = Median(con_v);
      RowPaired(o, lname + " insert", pages, n, ins, Median(refs[0]->rmw),
                classic ? "k rmw" : "rmw", ratios(ins_v, refs[0]->rmw));
      RowPaired(o, lname + " contains", pages, n, con, Median(refs[0]->read),
                classic ? "k reads" : "read", ratios(con_v, refs[0]->read));
      if (vs_4k) {
        RowPaired(o, lname + " insert, 2MiB vs 4KiB reference", pages, n, ins, Median(refs[1]->rmw),
                  "rmw 4KiB", ratios(ins_v, refs[1]->rmw));
        RowPaired(o, lname + " contains, 2MiB vs 4KiB reference", pages, n, con,
                  Median(refs[1]->read), "read 4KiB", ratios(con_v, refs[1]->read));
      }
      if (vs_4k) {
        g_summary.push_back(
            Fmt("Memory, %zu keys (%.0f MB, %s, %s pages%s): adding a key costs "
                "%.2fx and checking one %.2fx the time of one random 64-byte memory access of the "
                "same kind measured in the same run (1.00x would mean the filter's work is hidden "
                "entirely behind memory latency).",
                n, f.size_bytes() / 1e6,
                f.size_bytes() >= (size_t{64} << 20) ? "far larger than the caches" : "cache-sized",
                pages, huge_kib > 0 ? ", granted" : ", NOT granted by the OS",
                Median(ratios(ins_v, refs[0]->rmw)), Median(ratios(con_v, refs[0]->read))));
      }
      const double rmw_ref = Median(refs[0]->rmw), read_ref = Median(refs[0]->read);
      refs.clear();  // free the arrays before the sweeps
      if (layout == Layout::kBlock512) {
        simdbloom::detail::SetPrefetchOverride(0);
        const double ins0 = insert_ns();
        const double con0 = contains_ns();
        simdbloom::detail::SetPrefetchOverride(-1);
        Row(o, "memory", lname + " insert, no prefetch", pages, n, ins0, ins, "pipeline");
        Row(o, "memory", lname + " contains, no prefetch", pages, n, con0, con, "pipeline");
        if (huge) {
          for (int d : {8, 16, 32, 128, 256}) {
            simdbloom::detail::SetPrefetchOverride(d);
            const std::string at = " distance " + std::to_string(d);
            Row(o, "memory", lname + " insert" + at, pages, n, insert_ns(), rmw_ref, "rmw");
            Row(o, "memory", lname + " contains" + at, pages, n, contains_ns(), read_ref, "read");
          }
          simdbloom::detail::SetPrefetchOverride(-1);
        }
      }
    }
  }
  simdbloom::detail::SetHugePages(true);
}

// ---- 4. Key shapes and result forms ----

// URL-like keys of 20..100 bytes.
std::vector<std::string> Urls(size_t n, uint64_t seed) {
  static const char* kHosts[] = {"https://www.example.com/", "http://cdn.shop.example.org/",
                                 "https://news.site.net/a/", "https://x.io/"};
  std::vector<std::string> v(n);
  uint64_t s = seed;
  for (auto& url : v) {
    const uint64_t r = SplitMix(s);
    url = kHosts[r & 3];
    const size_t len = 20 + (r >> 8) % 81;  // 20..100
    while (url.size() < len) {
      const uint64_t c = SplitMix(s);
      for (int i = 0; i < 8 && url.size() < len; ++i) {
        url.push_back("abcdefghijklmnopqrstuvwxyz0123456789/-_?="[(c >> (6 * i)) % 41]);
      }
    }
    url.resize(len);
  }
  return v;
}

// Version-4 UUIDs in their 36-character text form.
std::vector<std::string> Uuids(size_t n, uint64_t seed) {
  std::vector<std::string> v(n);
  uint64_t s = seed;
  char buf[40];
  for (auto& u : v) {
    const uint64_t a = SplitMix(s), b = SplitMix(s);
    std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%x%03x-%012llx",
                  static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                  static_cast<unsigned>(a & 0xFFF), static_cast<unsigned>(8 + (b >> 62)),
                  static_cast<unsigned>((b >> 48) & 0xFFF),
                  static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
    u = buf;
  }
  return v;
}

// One byte-string column in both forms: string_views and an Arrow int32-offsets array.
struct Column {
  std::vector<uint8_t> data;
  std::vector<int32_t> offsets{0};
  std::vector<std::string_view> views;
  explicit Column(const std::vector<std::string>& strings) {
    for (const auto& str : strings) {
      data.insert(data.end(), str.begin(), str.end());
      offsets.push_back(static_cast<int32_t>(data.size()));
    }
    for (size_t i = 0; i < strings.size(); ++i) {
      views.emplace_back(reinterpret_cast<const char*>(data.data()) + offsets[i],
                         strings[i].size());
    }
  }
  simdbloom::BinaryArray<int32_t> Arrow() const {
    return {offsets.data(), data.data(), views.size()};
  }
};

void ShapesSection(const Options& o) {
  const size_t n = o.shape_keys;
  if (!o.json) {
    std::printf(
        "\n== Shapes: %zu keys per shape, block512 at fpp %g, target %s; contains of the\n"
        "   inserted keys (every probe reads its block), against random 64-byte reads over an\n"
        "   array of the filter's size (same run, 2 MiB pages)\n",
        n, o.fpp, simdbloom::active_target().c_str());
    RowHeader();
  }
  uint64_t s = 99;
  std::vector<uint64_t> u64(n);
  for (auto& k : u64) k = SplitMix(s);
  std::vector<uint32_t> u32(n);
  for (size_t i = 0; i < n; ++i) u32[i] = static_cast<uint32_t>(u64[i] >> 7);
  const Column urls(Urls(n, 5));
  const Column uuids(Uuids(n, 6));
  std::vector<uint8_t> tuples(n * 13);  // IPv4 5-tuples: src, dst, sport, dport, proto
  for (auto& b : tuples) b = static_cast<uint8_t>(SplitMix(s));
  std::vector<uint8_t> out(n);
  std::vector<uint32_t> sel(n);
  std::vector<uint64_t> hashes(n);
  Options reps = o;
  reps.min_seconds = 0.3;

  Filter f = Filter::create(n, o.fpp, Layout::kBlock512);
  PhysicalArray array(f.size_bytes(), true);
  double read_ns = 1e300;
  for (size_t d : {16, 32, 64}) {
    read_ns = std::min(
        read_ns,
        MedianNsPerKey(
            reps, n, [] {},
            [&] { g_sink = RandomLines<false>(array.words, f.size_bytes() / 64, n, d, 3); }));
  }
  f.hash(u64, hashes.data());
  struct Shape {
    const char* name;
    simdbloom::Keys keys;
  };
  const Shape shapes[] = {
      {"u64", simdbloom::Keys(u64)},
      {"u32", simdbloom::Keys(u32)},
      {"pre-hashed u64", simdbloom::Prehashed{hashes.data(), n}},
      {"URL 20..100 B, string_view", simdbloom::Keys(urls.views)},
      {"URL 20..100 B, Arrow int32 offsets", urls.Arrow()},
      {"UUID 36 B, Arrow int32 offsets", uuids.Arrow()},
      {"IPv4 5-tuple, 13-byte records", simdbloom::FixedWidth{tuples.data(), 13, 13, n}},
  };
  for (const Shape& shape : shapes) {
    const double ins = MedianNsPerKey(
        reps, n, [&] { f.clear(); }, [&] { f.insert(shape.keys); });
    const double con = MedianNsPerKey(
        reps, n, [] {}, [&] { f.contains(shape.keys, out.data()); });
    Row(o, "shapes", std::string(shape.name) + " insert", "2MiB", n, ins, read_ns, "read");
    Row(o, "shapes", std::string(shape.name) + " contains", "2MiB", n, con, read_ns, "read");
  }
  // Result forms, u64 keys, half of them present.
  f.clear();
  f.insert(simdbloom::Span<const uint64_t>(u64.data(), n / 2));
  std::vector<uint8_t> bitmap((n + 7) / 8);
  const double bytes_ns = MedianNsPerKey(
      reps, n, [] {}, [&] { f.contains(u64, out.data()); });
  const double bitmap_ns = MedianNsPerKey(
      reps, n, [] {}, [&] { f.contains_bitmap(u64, bitmap.data()); });
  const double sel_ns = MedianNsPerKey(
      reps, n, [] {}, [&] { f.select(u64, sel.data()); });
  Row(o, "shapes", "u64 contains -> bytes, 50% hits", "2MiB", n, bytes_ns, read_ns, "read");
  Row(o, "shapes", "u64 contains -> bitmap, 50% hits", "2MiB", n, bitmap_ns, read_ns, "read");
  Row(o, "shapes", "u64 select -> selection, 50% hits", "2MiB", n, sel_ns, read_ns, "read");
}

// ---- 5. The tutorial experiment with UUID strings ----

void UuidSection(const Options& o) {
  const size_t n = o.fpr_keys;
  if (!o.json) {
    std::printf("\n== UUIDs: %zu version-4 UUID strings inserted, %zu other UUIDs probed\n", n, n);
    std::printf("%-15s %6s %3s %10s %10s %10s %9s %s\n", "layout", "fpp", "k", "bits/key",
                "predicted", "measured", "meas/fpp", "");
  }
  const Column keys(Uuids(n, 1));
  const Column absent(Uuids(n, 2));  // distinct from the keys with probability 1 - 1e-23
  std::vector<uint8_t> out(n);
  bool all_ok = true;
  for (double fpp : {0.03, 0.001}) {
    for (Layout layout : kLayouts) {
      Filter f = Filter::create(n, fpp, layout);
      f.insert(keys.Arrow());
      const bool no_false_negative = f.contains(keys.Arrow(), out.data()) == n;
      const uint64_t fp = f.contains(absent.Arrow(), out.data());
      const double measured = static_cast<double>(fp) / static_cast<double>(n);
      const double predicted = f.predicted_fpp(n);
      const bool ok = measured <= fpp && no_false_negative;
      all_ok = all_ok && ok;
      const double bpk = static_cast<double>(f.bit_count()) / static_cast<double>(n);
      if (o.json) {
        std::printf(
            "{\"bench\":\"uuid\",\"keys\":%zu,\"layout\":\"%s\",\"fpp_requested\":%g,\"k\":%u,"
            "\"bits_per_key\":%.3f,\"fpr_predicted\":%.6g,\"fpr_measured\":%.6g,"
            "\"false_negatives\":%s}\n",
            n, simdbloom::layout_name(layout), fpp, f.num_hashes(), bpk, predicted, measured,
            no_false_negative ? "false" : "true");
      } else {
        std::printf("%-15s %6g %3u %10.3f %10.6f %10.6f %9.3f %s\n", simdbloom::layout_name(layout),
                    fpp, f.num_hashes(), bpk, predicted, measured, measured / fpp,
                    ok ? "ok" : (no_false_negative ? "ABOVE REQUESTED" : "FALSE NEGATIVE"));
      }
      std::fflush(stdout);
    }
  }
  if (!o.json) {
    std::printf("%s\n", all_ok ? "every measured rate is at or below the requested one"
                               : "SOME MEASURED RATE EXCEEDS THE REQUESTED ONE");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: simdbloom-bench [--json] [--keys N[,N...]] [--fpp P] [--min-seconds S]"
                 " [--fpr-keys N] [--mem-keys N] [--shape-keys N]"
                 " [--only speed|fpr|memory|shapes|uuid]\n");
    return 2;
  }
  try {
    if (!o.json) std::printf("simdbloom %s\n", simdbloom::version());
    if (o.speed) SpeedSection(o);
    if (o.fpr) FprSection(o);
    if (o.memory) MemorySection(o);
    if (o.shapes) ShapesSection(o);
    if (o.uuid) UuidSection(o);
    if (!o.json && !g_summary.empty()) {
      std::printf(
          "\n== Summary (CPU target %s; block512 is the default layout: each key sets "
          "a few bits inside one 64-byte cache line)\n",
          simdbloom::active_target().c_str());
      for (const std::string& line : g_summary) std::printf("- %s\n", line.c_str());
    }
  } catch (const simdbloom::Error& e) {
    std::fprintf(stderr, "simdbloom-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
