// SPDX-License-Identifier: Apache-2.0
// simdbloom-bench: the main demo and benchmark, on built-in data, in one process and one run.
// This file is the driver: the options, which sections run, and the plain-words summary at the
// end. Each section is a file of its own, with what it measures and how at its top.
//
// With no option it runs the demo (demo.cc, about 40 s on 2 cores): the headline figures in five
// short tables, a plot of ns/key against filter size (sizes.svg next to the binary, --plot FILE),
// and a plain-words summary. --quick runs the demo at tiny sizes (a test of its structure).
//
// --only NAME with a name the demo's headings print in brackets (kDemoSections) runs that part of
// the demo; --summary-from FILE prints the demo's trust section and summary for figures in FILE.
// --full runs the complete benchmark (about 10 minutes), the sections below; so do --json, --only
// NAME with a section's name below and the options that size its sections (--keys, --fpr-keys,
// --mem-keys, --shape-keys, --calib-keys, --single-keys). A command line refused says why.
//
// 1. speed.cc   bulk insert/contains of u64 keys, every layout, the scalar reference and every
//               SIMD target this CPU runs: ns/key, speed-up, bits/key, k, measured FPR.
// 2. fpr.cc     the tutorial experiment: 3 key distributions x fpp 0.03/0.01/0.001 x 4 layouts,
//               measured false-positive rate against the requested and the predicted one.
// 3. memory.cc  filters far larger than the caches against physical random-read and
//               read-modify-write references on 2 MiB and 4 KiB pages; prefetch distances.
// 4. shapes.cc  key shapes (integers, pre-hashed, URLs, UUIDs, 5-tuples) and result forms
//               (bytes, bitmap, selection) against the random-read reference.
// 5. uuid.cc    the tutorial experiment with UUID strings.
// 6. single.cc  one key per call: insert/contains(uint64_t) in a loop, present and absent keys,
//               with prefetch(key) a few keys ahead, against the bulk calls on the same keys.
// 7. threads.cc scaling with simdbloom::Threads and insert_concurrent, against parallel memory
//               references.
// Opt-in (--only NAME, not in the default run):
// scalable.cc   ScalableFilter grown 1000x and with one stage against a plain block512 filter:
//               ns/key insert/contains, bits/key, measured FPR (about 10 s).
// counting.cc   (opt-in, --only counting) the counting filter against plain block512/register64:
//               insert/remove/contains/count ns/key, bits per key, measured FPR.
// 8. shifting.cc (only with --only shifting) the shifting Bloom filters: ShBF_M (Layout::kShifting)
//               against block512, ShBF_A and ShBF_x build/query and their error rates vs models.
// spatial.cc    (--only spatial, not in the default run) SpatialFilter build/classify against
//               block512 insert/contains, and its error rates against the paper's formulas.
// many.cc      (--only many) one batch against M filters with FilterSet, against M separate bulk
//               calls and the random-line-read reference.
// guava.cc     (--only guava) Guava's layouts against classic (perf/guava_bench.sh puts Guava's own
//               put/mightContain, timed in a JVM, beside them).
// bench_util.h/.cc hold what they share: timing, row printers, generators, the references.
//
// With --json, one JSON object per measurement (one per line) instead of the tables and no
// summary.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_util.h"

namespace sbbench {
namespace {

const char kUsage[] =
    "usage: simdbloom-bench [--quick] [--plot FILE] [--only bulk|layouts|false-positives|one-key|"
    "strings]\n"
    "                                                    the demo (about 40 s on 2 idle cores)\n"
    "       simdbloom-bench --summary-from FILE          the demo's summary of figures in FILE\n"
    "       simdbloom-bench --full [--json] [--keys N[,N...]] [--fpp P] [--min-seconds S]"
    " [--fpr-keys N] [--mem-keys N] [--shape-keys N] [--calib-keys N[,N...]]"
    " [--single-keys N[,N...]]"
    " [--only "
    "speed|fpr|memory|calibration|shapes|uuid|single|threads|scalable|counting|shifting|spatial|"
    "many|guava]\n"
    "  (no option: the demo; --full: every section of the full benchmark, about 10 minutes;\n"
    "   --only with a demo section's name runs that part of the demo (the names its headings\n"
    "   print), with a full section's name that section; --json and the size options imply\n"
    "   --full; --fpp and --min-seconds apply to both)\n";

// "False positives" and "false_positives" are "false-positives": the heading's words typed.
std::string SectionName(std::string s) {
  for (char& c : s) {
    c = c == ' ' || c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (s == "bulk-calls") return "bulk";
  if (s == "one-key-per-call") return "one-key";
  return s;
}

enum class Parse { kRun, kHelp, kBad };

// Why a command line is refused goes to *why (printed before the usage).
Parse ParseArgs(int argc, char** argv, Options* o, std::string* why) {
  bool full = false, full_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::fputs(kUsage, stderr);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      return Parse::kHelp;
    } else if (a == "--full") {
      full = true;
    } else if (a == "--quick") {
      o->quick = true;
    } else if (a == "--plot") {
      o->plot_path = value("--plot");
      if (o->plot_path.empty()) {
        *why = "--plot needs a file name";
        return Parse::kBad;
      }
    } else if (a == "--json") {
      o->json = true;
      full = true;
    } else if (a == "--keys" || a == "--calib-keys" || a == "--single-keys") {
      full = true;
      std::vector<size_t>& keys = a == "--keys"         ? o->keys
                                  : a == "--calib-keys" ? o->calib_keys
                                                        : o->single_keys;
      keys.clear();
      const std::string list = value(a.c_str());
      for (size_t pos = 0; pos <= list.size();) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos) comma = list.size();
        const double v = std::atof(list.substr(pos, comma - pos).c_str());
        if (v < 1) {
          *why = a + " " + list + ": each N must be at least 1";
          return Parse::kBad;
        }
        keys.push_back(static_cast<size_t>(v));
        pos = comma + 1;
      }
    } else if (a == "--fpp") {
      o->fpp = std::atof(value("--fpp").c_str());
    } else if (a == "--min-seconds") {
      o->min_seconds = std::atof(value("--min-seconds").c_str());
      o->min_seconds_set = true;
    } else if (a == "--fpr-keys") {
      full = true;
      o->fpr_keys = static_cast<size_t>(std::atof(value("--fpr-keys").c_str()));
    } else if (a == "--mem-keys") {
      full = true;
      o->mem_keys = static_cast<size_t>(std::atof(value("--mem-keys").c_str()));
    } else if (a == "--shape-keys") {
      full = true;
      o->shape_keys = static_cast<size_t>(std::atof(value("--shape-keys").c_str()));
    } else if (a == "--summary-from") {
      o->summary_from = value("--summary-from");
    } else if (a == "--only") {
      const std::string given = value("--only");
      const std::string what = SectionName(given);
      bool demo = false, known = false;
      for (const char* n : kDemoSections) demo = demo || what == n;
      for (const char* n : kFullSections) known = known || what == n;
      if (demo) {
        o->demo_only = what == "layouts" ? "bulk" : what;
        continue;
      }
      if (!known) {
        std::string names = "the demo's: ", full_names = "the full benchmark's: ";
        for (const char* n : kDemoSections)
          names += std::string(n) + (n == kDemoSections[4] ? "" : ", ");
        for (const char* n : kFullSections) {
          full_names += std::string(n) + (n == kFullSections[13] ? "" : ", ");
        }
        *why = "--only " + given + ": no section of that name; " + names + "; " + full_names;
        return Parse::kBad;
      }
      full = true;
      full_only = true;
      o->speed = what == "speed";
      o->fpr = what == "fpr";
      o->memory = what == "memory";
      o->calibration = what == "calibration";
      o->shapes = what == "shapes";
      o->uuid = what == "uuid";
      o->threads = what == "threads";
      o->single = what == "single";
      o->scalable = what == "scalable";
      o->counting = what == "counting";
      o->shifting = what == "shifting";
      o->spatial = what == "spatial";
      o->many = what == "many";
      o->guava = what == "guava";
    } else {
      *why = "unknown option " + a;
      return Parse::kBad;
    }
  }
  if (full &&
      (o->quick || !o->plot_path.empty() || !o->demo_only.empty() || !o->summary_from.empty())) {
    *why = std::string(!o->demo_only.empty() ? "--only " + o->demo_only + " is a part of the demo"
                                             : "--quick, --plot and --summary-from belong to the "
                                               "demo") +
           (full_only ? ", --only with a full section's name runs the full benchmark"
                      : ", --full and its options run the full benchmark") +
           ": one or the other";
    return Parse::kBad;
  }
  const bool valid = !o->keys.empty() && !o->calib_keys.empty() && o->fpp > 0 && o->fpp < 1 &&
                     o->fpr_keys >= 1000 && o->mem_keys >= 1000 && o->shape_keys >= 1000 &&
                     o->shape_keys < (uint64_t{1} << 32) && o->min_seconds >= 0;
  if (!valid) {
    *why =
        "a value out of range: --fpp P needs 0 < P < 1; --fpr-keys, --mem-keys and "
        "--shape-keys at least 1000 (--shape-keys below 2^32); --min-seconds at least 0";
  }
  o->demo = !full;
  return valid ? Parse::kRun : Parse::kBad;
}

void PrintSummary() {
  std::printf(
      "\n== Summary (SIMD code: %s; block512 is the default layout: each key sets "
      "a few bits inside one 64-byte cache line)\n",
      IsaName(simdbloom::active_target()).c_str());
  for (const std::string& line : SummaryLines()) std::printf("- %s\n", line.c_str());
}

}  // namespace

int Main(int argc, char** argv) {
  Options o;
  std::string why;
  switch (ParseArgs(argc, argv, &o, &why)) {
    case Parse::kRun:
      break;
    case Parse::kHelp:
      std::fputs(kUsage, stdout);
      return 0;
    case Parse::kBad:
      if (!why.empty()) std::fprintf(stderr, "simdbloom-bench: %s\n", why.c_str());
      std::fputs(kUsage, stderr);
      return 2;
  }
  try {
    if (o.demo) {
      DemoRun(o);
      return 0;
    }
    if (!o.json) std::printf("simdbloom %s\n", simdbloom::version());
    if (o.speed) SpeedSection(o);
    if (o.fpr) FprSection(o);
    if (o.memory) MemorySection(o);
    if (o.calibration) CalibrationSection(o);
    if (o.shapes) ShapesSection(o);
    if (o.uuid) UuidSection(o);
    if (o.single) SingleSection(o);
    if (o.threads) ThreadsSection(o);
    if (o.scalable) ScalableSection(o);
    if (o.counting) CountingSection(o);
    if (o.shifting) ShiftingSection(o);
    if (o.spatial) SpatialSection(o);
    if (o.many) ManySection(o);
    if (o.guava) GuavaSection(o);
    if (!o.json && !SummaryLines().empty()) PrintSummary();
  } catch (const simdbloom::Error& e) {
    std::fprintf(stderr, "simdbloom-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace sbbench

int main(int argc, char** argv) { return sbbench::Main(argc, argv); }
