// SPDX-License-Identifier: Apache-2.0
// simdbloom: the command-line tool. Keys are lines of text; every command streams its input in
// large blocks through the library's bulk calls (see io.h). This file holds the subcommands;
// parsing, input, output files, progress, JSON and Parquet footers live beside it.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "lib/cli/error.h"
#include "lib/cli/help.h"
#include "lib/cli/io.h"
#include "lib/cli/json.h"
#include "lib/cli/key_set.h"
#include "lib/cli/options.h"
#include "lib/cli/output.h"
#include "lib/cli/parquet_footer.h"
#include "lib/cli/progress.h"
#include "lib/formats/file_io.h"
#include "simdbloom/filter_set.hpp"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {
namespace {

constexpr double kDefaultFpp = 0.01;

struct Common {
  bool json = false;  // --json or --stats FILE
  std::string stats;  // --stats FILE: where the summary goes (else stderr)
  bool quiet = false;
  bool progress = false;
  bool strip_cr = false;
  char delim = '\n';  // '\0' with -z/--null (build, query, dedup, intersect)
  unsigned threads = 1;
};

const std::vector<OptionSpec> kCommonSpecs = {
    {"json", 0, false},         {"stats", 0, true},     {"quiet", 'q', false},
    {"progress", 0, false},     {"strip-cr", 0, false}, {"threads", 't', true},
    {"max-key-bytes", 0, true},
};
// For the commands that read keys.
const OptionSpec kNullSpec = {"null", 'z', false};

std::vector<OptionSpec> Specs(std::vector<OptionSpec> extra) {
  extra.insert(extra.end(), kCommonSpecs.begin(), kCommonSpecs.end());
  return extra;
}

Common ReadCommon(const Options& o, const std::string& cmd) {
  Common c;
  c.json = o.Has("json");
  c.quiet = o.Has("quiet");
  c.progress = !c.quiet && (o.Has("progress") || ::isatty(2) == 1);
  c.strip_cr = o.Has("strip-cr");
  c.delim = o.Has("null") ? '\0' : '\n';
  const uint64_t t = o.Count("threads", 1);
  if (t == 0 || t > 256) {
    throw CliError(kExitUsage, cmd + ": " + o.Typed("threads") + " must be 1..256");
  }
  c.threads = static_cast<unsigned>(t);
  if (t > 1 && cmd != "build" && cmd != "query" && cmd != "intersect") {
    // Accepted and ignored, it would promise a speed-up that never comes.
    const std::string why =
        cmd == "dedup" ? "dedup runs on one thread (each key is checked against every key before "
                         "it, in input order)"
                       : cmd + " runs on one thread";
    throw CliError(kExitUsage, cmd + ": " + o.Typed("threads") + " " + std::to_string(t) + ": " +
                                   why + "; only build, query and intersect use threads");
  }
  const uint64_t max_key = o.Count("max-key-bytes", kDefaultMaxKeyBytes);
  if (max_key == 0 || max_key > (uint64_t{1} << 40)) {
    throw CliError(kExitUsage,
                   cmd + ": " + o.Typed("max-key-bytes") + " must be 1..2^40 (1099511627776)");
  }
  SetMaxKeyBytes(max_key);
  // --key-type, for the commands that take it (build, query, merge, info).
  const std::string line_type = o.Str("key-type", "bytes");
  if (line_type == "bytes") {
    SetLineKeyType(KeyType::kBytes, o.Has("key-type"));
  } else if (line_type == "int64") {
    SetLineKeyType(KeyType::kInt64, o.Has("key-type"));
  } else if (line_type == "int32") {
    SetLineKeyType(KeyType::kInt32, o.Has("key-type"));
  } else {
    throw CliError(kExitUsage, cmd + ": " + o.Typed("key-type") +
                                   " must be bytes, int64 or int32, got '" + line_type + "'");
  }
  if (o.Has("stats")) {
    // Checked before any work, as -o: a long run does not fail at its end.
    c.stats = o.Str("stats", "");
    c.json = true;
    CheckWritableDestination(c.stats);
    CheckOutputIsNoInput(cmd, c.stats, o.positional());
  }
  return c;
}

void Note(const Common& c, const std::string& message) {
  if (c.quiet) return;
  std::fprintf(stderr, "simdbloom: %s\n", message.c_str());
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

Layout ParseLayout(const std::string& cmd, const std::string& name) {
  std::string known;
  for (const Layout l : layouts()) {
    if (name == layout_name(l)) return l;
    known += known.empty() ? "" : ", ";
    known += layout_name(l);
  }
  throw CliError(kExitUsage, cmd + ": unknown layout '" + name + "' (one of " + known + ")");
}

double ParseFpp(const std::string& cmd, const Options& o) {
  const double p = o.Real("fpp", kDefaultFpp);
  if (!(p >= 1e-9 && p < 1)) {
    throw CliError(kExitUsage, cmd + ": " + o.Typed("fpp") + " must be in [1e-9, 1)");
  }
  return p;
}

// How a set was sized: the expected key count and how it was found.
struct Sized {
  uint64_t n = 0;   // plain: the expected keys; scalable: the first stage's capacity
  std::string how;  // "given" (-n), "counted" (lines of regular files), "scalable" (a pipe)
};

// A chain's first stage on a pipe: 1M keys (about 1.8 MB at 1%), doubling per stage.
// SIMDBLOOM_CLI_SCALABLE_INITIAL (tests only) sets another.
uint64_t ScalableInitial() {
  const char* env = std::getenv("SIMDBLOOM_CLI_SCALABLE_INITIAL");
  const long long v = env != nullptr ? std::atoll(env) : 0;
  return v > 0 ? static_cast<uint64_t>(v) : 1'000'000;
}

// The expected keys of a filter sized in advance: -n N, or the lines of `files` when all are
// regular files (counted in a first pass, said on stderr). False (nothing set) when an input is
// not a regular file and -n was not given.
bool ExpectedKeys(const std::string& cmd, const Options& o, const std::vector<std::string>& files,
                  const Common& c, Sized& s) {
  if (o.Has("n")) {
    s.n = o.Count("n", 0);
    if (s.n == 0) throw CliError(kExitUsage, cmd + ": " + o.Typed("n") + " must be at least 1");
    s.how = "given";
    return true;
  }
  bool all_regular = true;
  for (const auto& f : files) all_regular = all_regular && RegularFileSize(f) >= 0;
  if (!all_regular) return false;
  uint64_t lines = 0;
  for (const auto& f : files) lines += CountLines(f, c.delim);
  s.n = std::max<uint64_t>(lines, 1);
  s.how = "counted";
  Note(c, "sized for " + std::to_string(lines) +
              " keys: counted the lines in a first pass (-n N skips it)");
  return true;
}

// Runs make() (a library constructor): its kInvalidArgument is a usage error (a size or rate the
// library refuses), anything else a failure, both "CMD: why".
template <class Make>
auto Construct(const std::string& cmd, Make&& make) -> decltype(make()) {
  try {
    return make();
  } catch (const Error& e) {
    throw CliError(e.code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure,
                   cmd + ": " + e.what());
  }
}

// The set for build/dedup/intersect: a plain filter for -n N or regular files (whose lines are
// counted in a first pass), a scalable chain for a pipe without -n. Says which on stderr.
KeySet MakeSet(const std::string& cmd, const Options& o, const std::vector<std::string>& files,
               const Common& c, double fpp, Layout layout, Sized& s) {
  if (ExpectedKeys(cmd, o, files, c, s)) {
    return Construct(cmd, [&] {
      return KeySet(Filter::create(s.n, fpp, layout, o.Exact("seed", 0), LineKeyType()));
    });
  }
  if (LineKeyType() != KeyType::kBytes) {
    throw CliError(kExitUsage, cmd +
                                   ": input is a pipe: give -n N (a filter of integer keys is "
                                   "sized in advance)");
  }
  s.n = ScalableInitial();
  s.how = "scalable";
  ScalableOptions options;
  options.layout = layout;
  options.seed = o.Exact("seed", 0);
  options.key_type = KeyType::kBytes;  // lines of text
  try {
    KeySet set(ScalableFilter::create(s.n, fpp, options));
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%g", fpp);
    Note(c, "input is a pipe and -n was not given: a scalable filter (stages of " +
                std::to_string(s.n) + ", then 2x, 4x, ... keys; rate at most " + rate +
                " overall); -n N makes a plain filter");
    return set;
  } catch (const Error& e) {
    throw CliError(e.code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure,
                   cmd + ": " + e.what());
  }
}

// Totals of one streaming pass.
struct Pass {
  uint64_t keys = 0;
  uint64_t bytes = 0;
};

// Streams the lines of `files` in batches to fn(file, lines) (file: the index in `files`), drawing
// progress. Stops after the batch that sets *stop (query -q: the first hit answers), leaving the
// rest of the input unread.
template <class Fn>
Pass StreamFileLines(const std::vector<std::string>& files, const Common& c, Progress& progress,
                     size_t batch, Fn&& fn, const bool* stop = nullptr) {
  Pass pass;
  std::vector<std::string_view> lines;
  lines.reserve(batch);
  for (size_t file = 0; file < files.size(); ++file) {
    LineReader reader(files[file], c.strip_cr, 0, c.delim);
    const uint64_t base = pass.bytes;
    while (reader.Next(lines, batch)) {
      fn(file, lines);
      pass.keys += lines.size();
      progress.Update(base + reader.bytes_done(), pass.keys);
      if (stop != nullptr && *stop) break;
    }
    pass.bytes = base + reader.bytes_done();
    if (stop != nullptr && *stop) break;
  }
  return pass;
}

// StreamFileLines for fn(lines).
template <class Fn>
Pass StreamLines(const std::vector<std::string>& files, const Common& c, Progress& progress,
                 size_t batch, Fn&& fn, const bool* stop = nullptr) {
  return StreamFileLines(
      files, c, progress, batch,
      [&](size_t, const std::vector<std::string_view>& lines) { fn(lines); }, stop);
}

// Runs fn(i, lines) on T threads over regular files: each file is cut into T byte ranges (a line
// belongs to the range it starts in), thread i reads its range through its own mapped LineReader
// (one window each). Progress is drawn by the calling thread. Returns false (nothing done) when
// an input is not a regular file. An exception in a thread is rethrown after all are joined.
template <class Fn>
bool ForEachRange(const std::vector<std::string>& files, const Common& c, Progress& progress,
                  Pass& pass, Fn&& fn) {
  for (const auto& path : files) {
    if (RegularFileSize(path) < 0) return false;
  }
  const unsigned t = c.threads;
  std::atomic<uint64_t> bytes{0}, keys{0};
  for (const auto& path : files) {
    const int64_t size = RegularFileSize(path);
    if (size == 0) {
      // A regular file whose stat size is 0 may still have lines (/proc, sysfs): streamed on this
      // thread, as range 0.
      LineReader reader(path, c.strip_cr, 0, c.delim);
      std::vector<std::string_view> lines;
      uint64_t done = 0;
      while (reader.Next(lines, 16384)) {
        fn(0u, lines);
        keys += lines.size();
        bytes += reader.bytes_done() - done;
        done = reader.bytes_done();
        progress.Update(bytes.load(), keys.load());
      }
      continue;
    }
    std::vector<std::exception_ptr> errors(t);
    std::vector<std::thread> threads;
    std::atomic<unsigned> running{t};
    for (unsigned i = 0; i < t; ++i) {
      threads.emplace_back([&, i] {
        try {
          LineReader reader(path, c.strip_cr, 0, c.delim);
          const uint64_t begin = static_cast<uint64_t>(size) * i / t;
          const uint64_t limit = static_cast<uint64_t>(size) * (i + 1) / t;
          if (begin < limit) {
            reader.SetRange(begin, limit);
            std::vector<std::string_view> lines;
            uint64_t done = 0;
            while (reader.Next(lines, 16384)) {
              fn(i, lines);
              keys += lines.size();
              bytes += reader.bytes_done() - done;
              done = reader.bytes_done();
            }
          }
        } catch (...) {
          errors[i] = std::current_exception();
        }
        --running;
      });
    }
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      progress.Update(bytes.load(), keys.load());
    }
    for (auto& th : threads) th.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }
  pass.keys = keys.load();
  pass.bytes = bytes.load();
  return true;
}

// build with --threads T on regular files: ForEachRange, thread i inserting into its own filter
// (thread 0 into `f`, the others into empty copies of its geometry), the copies ORed into `f` at
// the end. The bytes equal a single-threaded build's. Memory: T filters and T windows.
bool ParallelInsert(const std::vector<std::string>& files, const Common& c, Progress& progress,
                    Filter& f, Pass& pass) {
  for (const auto& path : files) {
    if (RegularFileSize(path) < 0) return false;
  }
  std::vector<Filter> copies;
  for (unsigned i = 1; i < c.threads; ++i) {
    copies.push_back(
        Filter::with_bits(f.bit_count(), f.num_hashes(), f.layout(), f.seed(), f.key_type()));
  }
  ForEachRange(files, c, progress, pass, [&](unsigned i, const std::vector<std::string_view>& l) {
    (i == 0 ? f : copies[i - 1]).insert(Keys(l.data(), l.size()));
  });
  for (const Filter& copy : copies) f.merge(copy);
  return true;
}

int64_t TotalBytes(const std::vector<std::string>& files) {
  int64_t total = 0;
  for (const auto& f : files) {
    const int64_t s = RegularFileSize(f);
    if (s < 0) return -1;
    total += s;
  }
  return total;
}

// Lines per bulk call: big enough to amortize the call, small enough that the batch's bytes
// (~50 B a URL) stay in L2 between line cutting and hashing. Parallel calls need 32768 keys per
// thread before they start threads.
size_t BatchFor(const Common& c) {
  return c.threads > 1 ? std::min<size_t>(size_t{65536} * c.threads, size_t{1} << 20) : 16384;
}

// The --json object, one line: to --stats FILE (atomically) when given, else to stderr. Never to
// stdout, where the data goes.
void WriteSummary(const Common& c, const std::string& line) {
  if (!c.stats.empty()) {
    SaveAtomically(c.stats, [&](std::ostream& out) { out << line; });
    return;
  }
  std::fflush(stderr);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

void Summary(const Common& c, Json& j, const char* cmd, const Pass& p, double secs) {
  if (!c.json) return;
  Json out;
  out.Str("command", cmd)
      .Int("keys", p.keys)
      .Int("bytes", p.bytes)
      .Num("seconds", secs)
      .Num("keys_per_second", secs > 0 ? p.keys / secs : 0);
  std::string s = out.str();
  const std::string extra = j.str();
  if (extra != "{}") s = s.substr(0, s.size() - 1) + "," + extra.substr(1);
  WriteSummary(c, s + "\n");
}

std::vector<std::string> FilesOrStdin(std::vector<std::string> files) {
  if (files.empty()) files.push_back("-");
  size_t stdin_uses = 0;
  for (const auto& f : files) stdin_uses += f == "-" ? 1 : 0;
  if (stdin_uses > 1) throw CliError(kExitUsage, "stdin ('-') can be read only once");
  return files;
}

// ---- build
constexpr size_t kMaxAreas = 65535;  // SpatialFilter's labels: 1..65535

// An area's name: its FILE as given, "(standard input)" for "-" (as grep names it).
std::string AreaNameOf(const std::string& file) { return file == "-" ? "(standard input)" : file; }

CountingLayout ParseCountingLayout(const std::string& name) {
  if (name == "blocked") return CountingLayout::kBlocked;
  if (name == "classic") return CountingLayout::kClassic;
  throw CliError(kExitUsage,
                 "build --counting: unknown layout '" + name + "' (one of blocked, classic)");
}

// build --areas: a SpatialFilter, area i (label i, 1-based) = the keys of FILE i, named by it.
void BuildSpatial(const Options& o, const Common& c, const std::vector<std::string>& files,
                  const std::string& out_path, double fpp,
                  std::chrono::steady_clock::time_point start) {
  if (o.positional().empty()) {
    throw CliError(kExitUsage, "build --areas: needs one FILE per area (stdin is given as '-')");
  }
  if (files.size() > kMaxAreas) {
    throw CliError(kExitUsage, "build --areas: " + std::to_string(files.size()) +
                                   " areas (at most " + std::to_string(kMaxAreas) + ")");
  }
  if (o.Has("layout")) {
    throw CliError(kExitUsage,
                   "build --areas: " + o.Typed("layout") + " is for plain and counting filters");
  }
  Sized sized;
  if (!ExpectedKeys("build", o, files, c, sized)) {
    throw CliError(kExitUsage,
                   "build --areas: an area is read from a pipe: give -n N (the expected keys of "
                   "all areas; a spatial filter does not grow)");
  }
  SpatialFilter f = Construct("build", [&] {
    return SpatialFilter::create(sized.n, fpp, static_cast<uint32_t>(files.size()),
                                 o.Exact("seed", 0), KeyType::kBytes);
  });
  for (size_t i = 0; i < files.size(); ++i) {
    f.set_area_name(static_cast<uint16_t>(i + 1), AreaNameOf(files[i]));
  }
  Progress progress(c.progress, "build", TotalBytes(files));
  if (c.threads > 1) Note(c, o.Typed("threads") + ": a spatial filter is built on one thread");
  // Areas in file order: ascending labels, as the filter requires.
  const Pass pass = StreamFileLines(
      files, c, progress, BatchFor(c), [&](size_t file, const std::vector<std::string_view>& l) {
        f.insert(static_cast<uint16_t>(file + 1), Keys(l.data(), l.size()));
      });
  progress.Finish();
  if (pass.keys > sized.n) {
    Note(c, "warning: " + std::to_string(pass.keys) + " keys in a filter sized for " +
                std::to_string(sized.n) + ": expected false-positive rate now " +
                std::to_string(f.predicted_fpp(pass.keys)));
  }
  SaveAtomically(out_path, [&](std::ostream& out) { f.save(out); });
  if (!c.json) return;
  std::vector<Json> areas;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto label = static_cast<uint16_t>(i + 1);
    Json a;
    a.Int("label", label).Str("name", f.area_name(label)).Int("keys", f.members(label));
    areas.push_back(a);
  }
  Json j;
  j.Str("sizing", sized.how)
      .Int("expected_items", sized.n)
      .Num("fpp", fpp)
      .Obj("filter", SpatialGeometry(f))
      .Arr("areas", areas)
      .Num("expected_fpp", f.stats(true).fpp)  // measured: a pass over the cells
      .Str("output", out_path);
  Summary(c, j, "build", pass, Seconds(start));
}

int Build(const std::vector<std::string>& args) {
  const Options o("build", args,
                  Specs({{"n", 'n', true},
                         {"fpp", 0, true},
                         {"layout", 'l', true},
                         {"seed", 0, true},
                         {"output", 'o', true},
                         {"counting", 0, false},
                         {"areas", 0, false},
                         {"format", 0, true},
                         {"key-type", 0, true},
                         kNullSpec}));
  const Common c = ReadCommon(o, "build");
  const std::string format = o.Str("format", "simdbloom");
  if (format != "simdbloom" && format != "guava") {
    throw CliError(kExitUsage, "build: --format must be simdbloom or guava, got '" + format + "'");
  }
  const bool guava = format == "guava";
  if (guava && (o.Has("counting") || o.Has("areas"))) {
    throw CliError(kExitUsage, std::string("build --format guava: ") +
                                   (o.Has("counting") ? "--counting" : "--areas") +
                                   ": Guava's BloomFilter is a plain filter");
  }
  if (o.Has("areas") && o.Has("key-type")) {
    throw CliError(kExitUsage, "build --areas: --key-type is for plain and counting filters");
  }
  if (!o.Has("output")) throw CliError(kExitUsage, "build: -o OUT is required");
  if (o.Has("counting") && o.Has("areas")) {
    throw CliError(kExitUsage, "build: --counting and --areas make different filters: one of them");
  }
  const std::string out_path = o.Str("output", "");
  if (!c.stats.empty() && out_path == c.stats)
    throw CliError(kExitUsage, "build: --stats and -o name the same file");
  CheckWritableDestination(out_path);
  const auto files = FilesOrStdin(o.positional());
  CheckOutputIsNoInput("build", out_path, files);
  o.Exact("seed", 0);  // a bad value is a usage error before any work
  const double fpp = ParseFpp("build", o);
  const auto start = std::chrono::steady_clock::now();
  if (o.Has("areas")) {
    BuildSpatial(o, c, files, out_path, fpp, start);
    return 0;
  }
  Sized sized;
  std::optional<KeySet> made;
  if (o.Has("counting")) {
    const CountingLayout layout = ParseCountingLayout(o.Str("layout", "blocked"));
    if (!ExpectedKeys("build", o, files, c, sized)) {
      throw CliError(kExitUsage,
                     "build --counting: input is a pipe: give -n N (a counting filter does not "
                     "grow)");
    }
    made.emplace(Construct("build", [&] {
      return CountingFilter::create(sized.n, fpp, layout, o.Exact("seed", 0), LineKeyType());
    }));
  } else if (guava) {
    // Guava's create(funnel, n, fpp): layout guava (MURMUR128_MITZ_64), or guava32 asked for.
    const Layout layout = ParseLayout("build", o.Str("layout", "guava"));
    if (layout != Layout::kGuava && layout != Layout::kGuava32) {
      throw CliError(kExitUsage, "build --format guava: " + o.Typed("layout") +
                                     " must be guava or guava32 (Guava's strategies)");
    }
    if (o.Exact("seed", 0) != 0) {
      throw CliError(kExitUsage,
                     "build --format guava: Guava's filters have no seed (Murmur3 "
                     "seed 0): " +
                         o.Typed("seed") + " must be 0");
    }
    if (!ExpectedKeys("build", o, files, c, sized)) {
      throw CliError(kExitUsage,
                     "build --format guava: input is a pipe: give -n N (Guava's "
                     "filters are sized in advance)");
    }
    made.emplace(KeySet::Guava(Construct(
        "build", [&] { return Filter::create(sized.n, fpp, layout, 0, LineKeyType()); })));
  } else {
    const Layout layout = ParseLayout("build", o.Str("layout", "block512"));
    made.emplace(MakeSet("build", o, files, c, fpp, layout, sized));
  }
  KeySet& set = *made;
  Progress progress(c.progress, "build", TotalBytes(files));
  Pass pass;
  if (c.threads <= 1 || set.scalable() || set.counting() ||
      !ParallelInsert(files, c, progress, set.plain(), pass)) {
    if (c.threads > 1) {
      Note(c,
           o.Typed("threads") + (set.counting() ? ": a counting filter is built on one thread"
                                                : ": input is a pipe; one thread cuts the lines"));
    }
    pass = StreamLines(files, c, progress, BatchFor(c),
                       [&](const auto& lines) { set.Insert(lines, c.threads); });
  }
  progress.Finish();
  if (!set.scalable() && pass.keys > sized.n) {
    Note(c, "warning: " + std::to_string(pass.keys) + " keys in a filter sized for " +
                std::to_string(sized.n) + ": expected false-positive rate now " +
                std::to_string(set.expected_fpp()));
  }
  if (set.counting() && set.counts().saturated_count() > 0) {
    Note(c, "warning: " + std::to_string(set.counts().saturated_count()) +
                " counters reached 15 and stick there: removing their keys leaves them set");
  }
  set.Save(out_path);
  Json j;
  j.Str("sizing", sized.how)
      .Int("expected_items", sized.n)
      .Num("fpp", fpp)
      .Obj("filter", set.Geometry())
      .Num("expected_fpp", c.json ? set.expected_fpp() : 0)  // a pass over the bits: if shown
      .Str("output", out_path);
  Summary(c, j, "build", pass, Seconds(start));
  return 0;
}

// ---- query
// Exit status as grep's: 0 if a key was selected (may be present; with --absent: surely absent),
// 1 if none; every error is 2 (GrepStatus).
// query -f A -f B ...: every key against several filters in one FilterSet call per batch (plain
// filters; with a scalable or counting one among them, a call per filter). Prints KEY<TAB>FILTER
// per match (--first: only the first filter of each key, set order), --absent the keys in none.
int QueryMany(const Options& o, const Common& c, const std::vector<std::string>& paths) {
  if (o.Has("first") && o.Has("absent")) {
    throw CliError(kExitUsage, "query: --first and --absent select different keys: one of them");
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<KeySet> sets;
  sets.reserve(paths.size());
  bool all_plain = true;
  for (const std::string& path : paths) {
    sets.push_back(KeySet::Load(path, "query"));
    CheckTakesLines("query", path, sets.back().key_type());
    all_plain &= sets.back().kind() == FileKind::kPlain;
  }
  std::vector<const Filter*> plain;
  if (all_plain) {
    for (const KeySet& s : sets) plain.push_back(&s.plain());
  }
  const FilterSet fset(plain);
  const auto files = FilesOrStdin(o.positional());
  const bool absent = o.Has("absent"), first = o.Has("first"), count_only = o.Has("count");
  const bool print = !c.quiet && !count_only;
  Progress progress(c.progress, "query", TotalBytes(files));
  Writer w(1, c.delim);
  uint64_t selected = 0, pairs = 0;
  std::vector<FilterSet::Match> matches;
  std::vector<std::vector<uint8_t>> hits(all_plain ? 0 : sets.size());
  std::string line;
  bool stop = false;
  const Pass pass = StreamLines(
      files, c, progress, BatchFor(c),
      [&](const auto& lines) {
        const Keys keys(lines.data(), lines.size());
        matches.clear();
        if (all_plain) {
          fset.contains(keys, matches, Threads{c.threads});
        } else {
          for (size_t i = 0; i < sets.size(); ++i) {
            hits[i].resize(lines.size());
            sets[i].Contains(keys, hits[i].data(), c.threads);
          }
          for (size_t k = 0; k < lines.size(); ++k) {
            for (size_t i = 0; i < sets.size(); ++i) {
              if (hits[i][k])
                matches.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(k)});
            }
          }
        }
        pairs += matches.size();
        size_t m = 0;
        for (size_t k = 0; k < lines.size(); ++k) {
          const size_t begin = m;
          while (m < matches.size() && matches[m].key == k) ++m;
          if (absent) {
            if (m > begin) continue;
            ++selected;
            if (print) w.Line(lines[k]);
            continue;
          }
          const size_t end = first ? std::min(m, begin + 1) : m;
          selected += end - begin;
          if (!print) continue;
          for (size_t j = begin; j < end; ++j) {
            line.assign(lines[k].data(), lines[k].size());
            line += '\t';
            line += paths[matches[j].filter];
            w.Line(line);
          }
        }
        if (c.quiet) stop = selected > 0;
      },
      &stop);
  progress.Finish();
  if (count_only && !c.quiet) w.Text(std::to_string(selected) + "\n");
  w.Flush();
  Json j;
  j.Int("filters", paths.size())
      .Str("selected", absent  ? "absent"
                       : first ? "first-filter"
                               : "maybe-present")
      .Int("matches", selected)
      .Int("pairs", pairs);
  Summary(c, j, "query", pass, Seconds(start));
  return selected > 0 ? 0 : kExitFailure;
}

int Query(const std::vector<std::string>& args) {
  const Options o("query", args,
                  Specs({{"absent", 0, false},
                         {"count", 'c', false},
                         {"filter", 'f', true},
                         {"first", 0, false},
                         {"key-type", 0, true},
                         kNullSpec}));
  const Common c = ReadCommon(o, "query");
  if (o.Has("filter")) return QueryMany(o, c, o.All("filter"));
  if (o.Has("first")) throw CliError(kExitUsage, "query: --first needs filters given with -f");
  if (o.positional().empty()) throw CliError(kExitUsage, "query: FILTER is required");
  const auto start = std::chrono::steady_clock::now();
  const KeySet set = KeySet::Load(o.positional()[0], "query");
  CheckTakesLines("query", o.positional()[0], set.key_type());
  const auto files =
      FilesOrStdin(std::vector<std::string>(o.positional().begin() + 1, o.positional().end()));
  const bool absent = o.Has("absent"), count_only = o.Has("count");
  const bool print = !c.quiet && !count_only;
  Progress progress(c.progress, "query", TotalBytes(files));
  Writer w(1, c.delim);
  uint64_t selected = 0;
  Pass pass;
  // --count and --threads: each thread counts its byte range of the files (the set is only
  // read). Printing keeps input order: one thread cuts lines, and the probes of each batch use
  // Threads{T}. --quiet reads in order too, and stops after the first batch with a selected key.
  std::atomic<uint64_t> matches{0};
  std::vector<std::vector<uint8_t>> thread_hits(c.threads);
  if (print || c.quiet || c.threads <= 1 ||
      !ForEachRange(files, c, progress, pass,
                    [&](unsigned i, const std::vector<std::string_view>& l) {
                      thread_hits[i].resize(l.size());
                      matches += set.Contains(Keys(l.data(), l.size()), thread_hits[i].data(), 1);
                    })) {
    std::vector<uint8_t> hits(BatchFor(c));
    bool stop = false;
    pass = StreamLines(
        files, c, progress, BatchFor(c),
        [&](const auto& lines) {
          const uint64_t n = set.Contains(Keys(lines.data(), lines.size()), hits.data(), c.threads);
          matches += n;
          if (c.quiet) stop = (absent ? lines.size() - n : n) > 0;
          if (!print) return;
          const uint8_t want = absent ? 0 : 1;
          for (size_t i = 0; i < lines.size(); ++i) {
            if (hits[i] == want) w.Line(lines[i]);
          }
        },
        &stop);
  }
  selected = absent ? pass.keys - matches.load() : matches.load();
  progress.Finish();
  if (count_only && !c.quiet) w.Text(std::to_string(selected) + "\n");
  w.Flush();
  Json j;
  j.Str("filter_file", o.positional()[0])
      .Obj("filter", set.Geometry())
      .Str("selected", absent ? "absent" : "maybe-present")
      .Int("matches", selected);
  Summary(c, j, "query", pass, Seconds(start));
  return selected > 0 ? 0 : kExitFailure;
}

// ---- dedup
int Dedup(const std::vector<std::string>& args) {
  const Options o("dedup", args, Specs({{"n", 'n', true}, {"fpp", 0, true}, kNullSpec}));
  const Common c = ReadCommon(o, "dedup");
  const auto files = FilesOrStdin(o.positional());
  const double fpp = ParseFpp("dedup", o);
  const auto start = std::chrono::steady_clock::now();
  Sized sized;
  KeySet set = MakeSet("dedup", o, files, c, fpp, Layout::kBlock512, sized);
  Progress progress(c.progress, "dedup", TotalBytes(files));
  Writer w(1, c.delim);
  std::vector<uint8_t> fresh(BatchFor(c));
  uint64_t unique = 0;
  const Pass pass = StreamLines(files, c, progress, BatchFor(c), [&](const auto& lines) {
    // One thread: the first occurrence must win, in input order. --quiet silences the notes,
    // never the data.
    unique += set.InsertNew(lines, fresh.data());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (fresh[i]) w.Line(lines[i]);
    }
  });
  progress.Finish();
  w.Flush();
  if (!set.scalable() && unique > sized.n) {
    Note(c, "warning: more distinct lines (" + std::to_string(unique) +
                ") than the filter was sized for (" + std::to_string(sized.n) +
                "); new lines were dropped at a higher rate");
  }
  Json j;
  j.Str("sizing", sized.how)
      .Int("expected_items", sized.n)
      .Num("fpp", fpp)
      .Obj("filter", set.Geometry())
      .Int("unique", unique)
      .Int("duplicates", pass.keys - unique);
  Summary(c, j, "dedup", pass, Seconds(start));
  return 0;
}

// ---- intersect
int Intersect(const std::vector<std::string>& args) {
  const Options o("intersect", args, Specs({{"n", 'n', true}, {"fpp", 0, true}, kNullSpec}));
  const Common c = ReadCommon(o, "intersect");
  if (o.positional().size() != 2) throw CliError(kExitUsage, "intersect: needs two files, A B");
  const std::string a = o.positional()[0], b = o.positional()[1];
  if (a == "-" && b == "-") throw CliError(kExitUsage, "stdin ('-') can be read only once");
  const double fpp = ParseFpp("intersect", o);
  const auto start = std::chrono::steady_clock::now();
  RegularFileSize(b);  // a missing B is reported before A is read
  Sized sized;
  KeySet set = MakeSet("intersect", o, {a}, c, fpp, Layout::kBlock512, sized);
  const size_t batch = BatchFor(c);
  Progress progress(c.progress, "intersect: reading A", TotalBytes({a}));
  Pass pass_a;
  if (c.threads <= 1 || set.scalable() || !ParallelInsert({a}, c, progress, set.plain(), pass_a)) {
    pass_a = StreamLines({a}, c, progress, batch,
                         [&](const auto& lines) { set.Insert(lines, c.threads); });
  }
  progress.Stage("intersect: probing B", TotalBytes({b}));
  Writer w(1, c.delim);
  std::vector<uint8_t> hits(batch);
  uint64_t matches = 0;
  const Pass pass_b = StreamLines({b}, c, progress, batch, [&](const auto& lines) {
    matches += set.Contains(Keys(lines.data(), lines.size()), hits.data(), c.threads);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (hits[i]) w.Line(lines[i]);
    }
  });
  progress.Finish();
  w.Flush();
  Json j;
  j.Str("sizing", sized.how)
      .Int("expected_items", sized.n)
      .Num("fpp", fpp)
      .Obj("filter", set.Geometry())
      .Int("keys_a", pass_a.keys)
      .Int("keys_b", pass_b.keys)
      .Int("matches", matches);
  Summary(c, j, "intersect", {pass_a.keys + pass_b.keys, pass_a.bytes + pass_b.bytes},
          Seconds(start));
  return 0;
}

// ---- remove
// Deletes the keys of FILEs from a counting filter, saved atomically to -o OUT or over FILTER.
// A key surely absent proves that the input holds keys never inserted, whose false positives
// would decrement inserted keys' counters: then nothing is saved and the exit status is 1, unless
// --force.
int Remove(const std::vector<std::string>& args) {
  const Options o("remove", args, Specs({{"output", 'o', true}, {"force", 0, false}, kNullSpec}));
  const bool force = o.Has("force");
  const Common c = ReadCommon(o, "remove");
  if (o.positional().empty()) throw CliError(kExitUsage, "remove: FILTER is required");
  const std::string path = o.positional()[0];
  if (path == "-") throw CliError(kExitUsage, "remove: a filter must be a file, not stdin");
  const std::string out_path = o.Str("output", path);
  if (!o.Has("output") && RegularFileSize(path) < 0) {
    throw CliError(kExitUsage, "remove: " + path + " is not a regular file: give -o OUT");
  }
  if (!c.stats.empty() && out_path == c.stats) {
    throw CliError(kExitUsage, "remove: --stats and the output name the same file");
  }
  CheckWritableDestination(out_path);
  const auto files =
      FilesOrStdin(std::vector<std::string>(o.positional().begin() + 1, o.positional().end()));
  CheckOutputIsNoInput("remove", out_path, files);
  const auto start = std::chrono::steady_clock::now();
  StoredFilter stored = StoredFilter::Load(path);
  if (stored.kind != FileKind::kCounting) {
    RefuseKind("remove", path, stored.kind,
               "only a counting filter can delete keys (simdbloom build --counting)");
  }
  CheckTakesLines("remove", path, stored.key_type());
  KeySet& set = *stored.set;
  CountingFilter& f = set.counts();
  Progress progress(c.progress, "remove", TotalBytes(files));
  // The rate at which a key never inserted passes for present, before the removals.
  const double fpp_before = f.predicted_fpp(f.size());
  uint64_t done = 0, saturated = 0;
  std::vector<uint8_t> flags(BatchFor(c));
  const Pass pass = StreamLines(files, c, progress, BatchFor(c), [&](const auto& lines) {
    // In key order: repeats remove twice. flags: 0 absent, 1 removed, 2 removed, all saturated.
    done += f.remove(Keys(lines.data(), lines.size()), flags.data());
    saturated += static_cast<uint64_t>(
        std::count(flags.begin(), flags.begin() + static_cast<ptrdiff_t>(lines.size()), 2));
  });
  progress.Finish();
  const uint64_t absent = pass.keys - done;
  const std::string absent_text =
      std::to_string(absent) + " of " + std::to_string(pass.keys) + " keys were not in the filter";
  if (absent > 0 && !force) {
    throw CliError(kExitFailure,
                   "remove: " + absent_text +
                       ": the input holds keys never inserted, and removing their false "
                       "positives would delete inserted keys; " +
                       path + " is unchanged (--force removes the others anyway)");
  }
  if (absent > 0) {
    // Among the keys never inserted, about fpp / (1 - fpp) passed for present per one rejected.
    const double suspect = static_cast<double>(absent) * fpp_before / (1 - fpp_before);
    char est[64];
    std::snprintf(est, sizeof(est), "%.0f", suspect);
    Note(c, absent_text + ": nothing removed for them; --force: about " + est + " of the " +
                std::to_string(done) +
                " removals may have been false positives of keys never inserted, each "
                "decrementing other keys' counters");
  }
  if (saturated > 0) {
    Note(c, std::to_string(saturated) +
                " removals found every counter of their key saturated (15): not undone exactly, "
                "those keys may still answer present");
  }
  set.Save(out_path);
  Json j;
  j.Str("filter_file", path)
      .Obj("filter", set.Geometry())
      .Int("removed", done)
      .Int("not_found", absent)
      .Int("saturated", saturated)
      .Int("present", f.size())
      .Str("output", out_path);
  Summary(c, j, "remove", pass, Seconds(start));
  return 0;
}

// ---- classify
// Prints LINE<TAB>AREA for each key: the area's name (its label without a name), "-" for none;
// --labels: the label, 0 for none. Exit status as grep (and query): 0 if a key is in an area, 1
// if none, 2 on any error (ClassifyStatus).
int Classify(const std::vector<std::string>& args) {
  const Options o("classify", args, Specs({{"labels", 0, false}, kNullSpec}));
  const Common c = ReadCommon(o, "classify");
  if (o.positional().empty()) throw CliError(kExitUsage, "classify: FILTER is required");
  const std::string path = o.positional()[0];
  const auto start = std::chrono::steady_clock::now();
  StoredFilter stored = StoredFilter::Load(path);
  if (!stored.spatial) {
    RefuseKind("classify", path, stored.kind,
               "classify reads spatial filters (simdbloom build --areas); simdbloom query probes "
               "sets of keys");
  }
  CheckTakesLines("classify", path, stored.key_type());
  const SpatialFilter& f = *stored.spatial;
  const auto files =
      FilesOrStdin(std::vector<std::string>(o.positional().begin() + 1, o.positional().end()));
  const bool numbers = o.Has("labels");
  // The text of each label, once.
  std::vector<std::string> text(f.num_areas() + 1);
  for (uint32_t l = 0; l <= f.num_areas(); ++l) {
    const auto label = static_cast<uint16_t>(l);
    text[l] = numbers ? std::to_string(l) : AreaLabelText(f, label);
  }
  Progress progress(c.progress, "classify", TotalBytes(files));
  Writer w(1, c.delim);
  std::vector<uint16_t> labels(BatchFor(c));
  uint64_t in_area = 0;
  bool stop = false;
  const Pass pass = StreamLines(
      files, c, progress, BatchFor(c),
      [&](const auto& lines) {
        const uint64_t n = f.classify(Keys(lines.data(), lines.size()), labels.data());
        in_area += n;
        if (c.quiet) {
          stop = n > 0;
          return;
        }
        for (size_t i = 0; i < lines.size(); ++i) {
          w.Text(lines[i]);
          w.Text("\t");
          w.Line(text[labels[i]]);
        }
      },
      &stop);
  progress.Finish();
  w.Flush();
  Json j;
  j.Str("filter_file", path)
      .Obj("filter", SpatialGeometry(f))
      .Int("in_area", in_area)
      .Int("no_area", pass.keys - in_area);
  Summary(c, j, "classify", pass, Seconds(start));
  return in_area > 0 ? 0 : kExitFailure;
}

// query's and classify's errors all exit 2: their 1 means "no key selected".
int GrepStatus(int (*command)(const std::vector<std::string>&),
               const std::vector<std::string>& args) {
  SetFailureStatus(kExitUsage);
  try {
    return command(args);
  } catch (const CliError& e) {
    throw CliError(kExitUsage, e.what());
  } catch (const Error& e) {
    throw CliError(kExitUsage, e.what());
  } catch (const std::bad_alloc&) {
    throw CliError(kExitUsage, "out of memory");
  }
}

// ---- info
// info's data is the description: --json prints it as one JSON object on stdout instead of the
// text (with --quiet too), with only what a stored filter has (no keys, bytes read or seconds);
// --stats FILE writes that object to FILE and leaves the text on stdout.
int Info(const std::vector<std::string>& args) {
  const Options o("info", args, Specs({{"key-type", 0, true}}));
  const Common c = ReadCommon(o, "info");
  if (o.positional().size() != 1) throw CliError(kExitUsage, "info: needs one FILTER file");
  const StoredFilter stored = StoredFilter::Load(o.positional()[0]);
  Writer w(1);
  if (!(c.json && c.stats.empty())) {
    w.Text("file: " + o.positional()[0] + "\n" + stored.Describe());
    w.Flush();
  }
  if (!c.json) return 0;
  Json j;
  j.Str("file", o.positional()[0]);
  stored.Info(j);
  if (!c.stats.empty()) {
    WriteSummary(c, j.str() + "\n");
  } else {
    w.Text(j.str() + "\n");
    w.Flush();
  }
  return 0;
}

// ---- merge
// Why merge refuses a kind (exit 2).
const char* NoMerge(FileKind kind) {
  switch (kind) {
    case FileKind::kSpatial:
      return "spatial filters are not merged (the library has no merge for them: two files' "
             "areas may differ in number, names and meaning); build one filter from every "
             "area's file (simdbloom build --areas)";
    case FileKind::kShbfA:
      return "ShBF_A filters are not merged: a key is inserted once, with its membership (first "
             "set, second or both); a key of A's first set and B's second would need another "
             "membership, which ORed bits cannot give";
    case FileKind::kShbfX:
      return "ShBF_x filters are not merged: a key is inserted once, at its count; a key of both "
             "would need the sum of its counts, which ORed bits cannot give";
    default:
      return nullptr;
  }
}

// Key types must agree for a merge: a filter of none takes the other's; a file written before key
// types (legacy) holds lines, as every filter this command builds, and is declared bytes to merge
// with one of bytes. Anything else is a usage error (exit 2) naming both key types.
void MergeKeyTypes(const std::string& a, KeySet& sa, const std::string& b, KeySet& sb) {
  const KeyType ta = sa.key_type(), tb = sb.key_type();
  if (ta == tb || ta == KeyType::kNone || tb == KeyType::kNone) return;
  if (ta == KeyType::kLegacy && tb == KeyType::kBytes) {
    sa.set_key_type(KeyType::kBytes);
  } else if (tb == KeyType::kLegacy && ta == KeyType::kBytes) {
    sb.set_key_type(KeyType::kBytes);
  } else {
    const std::string what =
        a + " holds " + key_type_name(ta) + " keys, " + b + " " + key_type_name(tb) + " keys";
    throw CliError(kExitUsage, "merge: " + what + ": filters of different key types do not merge");
  }
}

int Merge(const std::vector<std::string>& args) {
  const Options o("merge", args, Specs({{"output", 'o', true}, {"key-type", 0, true}}));
  const Common c = ReadCommon(o, "merge");
  if (o.positional().size() != 2) throw CliError(kExitUsage, "merge: needs two filter files, A B");
  if (!o.Has("output")) throw CliError(kExitUsage, "merge: -o OUT is required");
  const auto start = std::chrono::steady_clock::now();
  const std::string a = o.positional()[0], b = o.positional()[1];
  if (!c.stats.empty() && o.Str("output", "") == c.stats) {
    throw CliError(kExitUsage, "merge: --stats and -o name the same file");
  }
  CheckWritableDestination(o.Str("output", ""));
  StoredFilter fa = StoredFilter::Load(a);
  if (NoMerge(fa.kind) != nullptr) RefuseKind("merge", a, fa.kind, NoMerge(fa.kind));
  StoredFilter fb = StoredFilter::Load(b);
  if (NoMerge(fb.kind) != nullptr) RefuseKind("merge", b, fb.kind, NoMerge(fb.kind));
  KeySet& sa = *fa.set;
  KeySet& sb = *fb.set;
  if (sa.kind() != sb.kind()) {
    throw CliError(kExitFailure, a + " and " + b + " cannot be merged: " + a + " is a " +
                                     KindName(sa.kind()) + " filter, " + b + " a " +
                                     KindName(sb.kind()) + " filter");
  }
  MergeKeyTypes(a, sa, b, sb);
  try {
    if (sa.scalable()) {
      sa.chain().merge(sb.chain());
    } else if (sa.counting()) {
      sa.counts().merge(sb.counts());
    } else {
      sa.plain().merge(sb.plain());
    }
  } catch (const Error& e) {
    throw CliError(kExitFailure, a + " and " + b + " cannot be merged: " + e.what());
  }
  sa.Save(o.Str("output", ""));
  Json j;
  j.Obj("filter", sa.Geometry())
      .Num("approximate_count", sa.approximate_count())
      .Num("expected_fpp", sa.expected_fpp())
      .Str("output", o.Str("output", ""));
  Summary(c, j, "merge", {0, 0}, Seconds(start));
  return 0;
}

// ---- parquet
class FileSource : public ParquetSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw CliError(kExitFailure, path + ": not a regular file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  void Read(uint64_t offset, size_t n, uint8_t* out) const override {
    while (n > 0) {
      const ssize_t r = ::pread(fd_, out, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw CliError(kExitFailure, ErrnoMessage(path_, "read error", errno));
      if (r == 0) throw ParquetError("file ended early (was it truncated while being read?)");
      out += r;
      offset += static_cast<uint64_t>(r);
      n -= static_cast<size_t>(r);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// One filter of a multi-file prune: its file and row group, and its filter (null: none, every
// key may be in the row group).
struct RowGroupFilter {
  size_t file;
  size_t row_group;
  ParquetType type;
  std::unique_ptr<Filter> filter;
};

// parquet --keys FILE --column NAME F1 F2 ...: every key against every row group's filter of the
// column, one FilterSet call per column type (INT32, INT64, bytes), reading only the footers and
// the filters. Prints FILE<TAB>ROW_GROUP<TAB>KEY per (row group, key) that may match, in file,
// row-group and key order; --count: FILE<TAB>ROW_GROUP<TAB>COUNT per row group.
int ParquetMany(const Options& o, const Common& c) {
  const auto start = std::chrono::steady_clock::now();
  const std::string column = o.Str("column", "");
  const std::vector<std::string>& paths = o.positional();
  if (paths.empty()) throw CliError(kExitUsage, "parquet: --keys needs Parquet FILEs to probe");
  // The keys: lines of --keys FILE ('-': stdin).
  std::vector<std::string> keys;
  Progress none(false, "parquet", -1);
  const Pass pass = StreamLines({o.Str("keys", "-")}, c, none, BatchFor(c), [&](const auto& lines) {
    for (const auto& l : lines) keys.emplace_back(l);
  });
  std::vector<RowGroupFilter> groups;
  uint64_t without = 0;
  for (size_t fi = 0; fi < paths.size(); ++fi) {
    const std::string& path = paths[fi];
    const FileSource file(path);
    try {
      const ParquetFooter footer = ReadFooter(file);
      bool found = false;
      std::string names;
      for (size_t g = 0; g < footer.row_groups.size(); ++g) {
        for (const auto& col : footer.row_groups[g].columns) {
          if (g == 0) names += (names.empty() ? "" : ", ") + col.path;
          if (col.path != column) continue;
          found = true;
          try {
            ParquetKeyType(col.type);
          } catch (const ParquetError& e) {
            throw CliError(kExitUsage, path + ": column " + column + ": " + e.what());
          }
          RowGroupFilter rg{fi, g, col.type, nullptr};
          if (col.bloom_offset >= 0) {
            try {
              rg.filter = std::make_unique<Filter>(ReadBloomFilter(file, col));
            } catch (const Error& e) {
              throw ParquetError("row group " + std::to_string(g) + ", column " + column +
                                 ": bad Bloom filter: " + e.what());
            }
          } else {
            ++without;
            Note(c, path + ": row group " + std::to_string(g) + ": column " + column +
                        " has no Bloom filter (every key may be present)");
          }
          groups.push_back(std::move(rg));
        }
      }
      if (!found && !footer.row_groups.empty()) {
        throw CliError(kExitUsage, path + ": no column '" + column + "' (columns: " + names + ")");
      }
      if (footer.row_groups.empty()) Note(c, path + ": the file has no row groups");
    } catch (const ParquetError& e) {
      throw CliError(kExitFailure, path + ": " + e.what());  // a malformed file: a failure
    }
  }
  // The keys as each column type reads them (parsed once per type present), then one FilterSet
  // per type over its row groups' filters. hits[i]: the keys row group i may hold, ascending.
  std::vector<std::vector<uint32_t>> hits(groups.size());
  const ParquetType kinds[] = {ParquetType::kInt32, ParquetType::kInt64, ParquetType::kByteArray};
  for (ParquetType kind : kinds) {
    const auto same = [&](ParquetType t) {
      const bool bytes = t == ParquetType::kByteArray || t == ParquetType::kFixedLenByteArray;
      return kind == ParquetType::kByteArray ? bytes : t == kind;
    };
    std::vector<const Filter*> filters;
    std::vector<size_t> which;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (!same(groups[i].type)) continue;
      if (groups[i].filter == nullptr) {
        hits[i].resize(keys.size());
        for (size_t k = 0; k < keys.size(); ++k) hits[i][k] = static_cast<uint32_t>(k);
      } else {
        filters.push_back(groups[i].filter.get());
        which.push_back(i);
      }
    }
    if (filters.empty() || keys.empty()) continue;
    // Integers by value as 8-byte patterns (the library's int64 rule: -1 and 2^64 - 1 are one
    // key); for an INT32 column a value of 2^63 or more is beyond its range whatever its bits,
    // so it is given one that no INT32 filter holds.
    std::vector<int64_t> ints;
    std::vector<std::string_view> views;
    for (const std::string& k : keys) {
      if (kind == ParquetType::kByteArray) {
        views.push_back(k);
        continue;
      }
      ParquetValue v;
      try {
        v = ParseParquetValue(kind, k);
      } catch (const ParquetError& e) {
        throw CliError(kExitUsage, "parquet: column " + column + ": " + e.what());
      }
      const bool beyond32 = kind == ParquetType::kInt32 && !v.negative && (v.bits >> 63) != 0;
      ints.push_back(beyond32 ? INT64_MAX : static_cast<int64_t>(v.bits));
    }
    const Keys batch = kind == ParquetType::kByteArray ? Keys(views) : Keys(ints);
    std::vector<FilterSet::Match> matches;
    FilterSet(filters).contains(batch, matches, Threads{c.threads});
    for (const FilterSet::Match& m : matches) hits[which[m.filter]].push_back(m.key);
  }
  Writer w(1);
  uint64_t maybe = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    maybe += hits[i].size();
    const std::string where = paths[groups[i].file] + "\t" + std::to_string(groups[i].row_group);
    if (o.Has("count")) {
      w.Text(where + "\t" + std::to_string(hits[i].size()) + "\n");
      continue;
    }
    for (uint32_t k : hits[i]) w.Text(where + "\t" + keys[k] + "\n");
  }
  w.Flush();
  const uint64_t probes = static_cast<uint64_t>(groups.size()) * keys.size();
  Json j;
  j.Int("files", paths.size())
      .Str("column", column)
      .Int("row_groups", groups.size())
      .Int("row_groups_without_filter", without)
      .Int("keys", keys.size())
      .Int("probes", probes)
      .Int("maybe", maybe)
      .Int("no", probes - maybe);
  Summary(c, j, "parquet", pass, Seconds(start));
  return 0;
}

int ParquetProbe(const std::vector<std::string>& args) {
  const Options o("parquet", args,
                  Specs({{"column", 0, true}, {"keys", 0, true}, {"count", 'c', false}}));
  const Common c = ReadCommon(o, "parquet");
  if (o.Has("keys")) {
    if (!o.Has("column")) throw CliError(kExitUsage, "parquet: --column NAME is required");
    if (o.Times("column") > 1) {
      throw CliError(kExitUsage, "parquet: --column given " + std::to_string(o.Times("column")) +
                                     " times: one column per call (every key is probed in it)");
    }
    return ParquetMany(o, c);
  }
  if (o.Has("count")) throw CliError(kExitUsage, "parquet: --count needs --keys FILE");
  if (o.positional().size() < 2) {
    throw CliError(kExitUsage, "parquet: needs FILE --column NAME VALUE...");
  }
  if (!o.Has("column")) throw CliError(kExitUsage, "parquet: --column NAME is required");
  if (o.Times("column") > 1) {
    // Every VALUE is probed in the one column: a second --column would silently replace the first.
    throw CliError(kExitUsage, "parquet: --column given " + std::to_string(o.Times("column")) +
                                   " times: one column per call (every VALUE is probed in it)");
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string path = o.positional()[0], column = o.Str("column", "");
  const std::vector<std::string> values(o.positional().begin() + 1, o.positional().end());
  const FileSource file(path);
  Writer w(1);
  uint64_t maybe = 0, no = 0, without = 0, probes = 0;
  size_t row_groups = 0;
  try {
    const ParquetFooter footer = ReadFooter(file);
    row_groups = footer.row_groups.size();
    bool found = false;
    std::vector<std::string> names;
    for (size_t g = 0; g < footer.row_groups.size(); ++g) {
      const ParquetRowGroup& rg = footer.row_groups[g];
      const ParquetColumnChunk* chunk = nullptr;
      for (const auto& col : rg.columns) {
        if (col.path == column) chunk = &col;
        if (g == 0) names.push_back(col.path);
      }
      if (chunk == nullptr) continue;
      found = true;
      std::vector<ParquetValue> keys;  // by the column's type: integers or byte strings
      try {
        for (const auto& v : values) keys.push_back(ParseParquetValue(chunk->type, v));
      } catch (const ParquetError& e) {
        // The value or the column's type, not the file.
        throw CliError(kExitUsage, path + ": column " + column + ": " + e.what());
      }
      std::unique_ptr<Filter> filter;
      if (chunk->bloom_offset >= 0) {
        try {
          filter = std::make_unique<Filter>(ReadBloomFilter(file, *chunk));
        } catch (const Error& e) {
          throw ParquetError("row group " + std::to_string(g) + ", column " + column +
                             ": bad Bloom filter: " + e.what());
        }
      } else {
        ++without;
        Note(c, path + ": row group " + std::to_string(g) + ": column " + column +
                    " has no Bloom filter (every value may be present)");
      }
      for (size_t i = 0; i < values.size(); ++i) {
        const bool hit = filter == nullptr || ParquetContains(*filter, keys[i]);
        ++probes;
        (hit ? maybe : no) += 1;
        w.Text(std::to_string(g) + "\t" + values[i] + "\t" + (hit ? "maybe" : "no") + "\n");
      }
    }
    if (!found && !footer.row_groups.empty()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw CliError(kExitUsage, path + ": no column '" + column + "' (columns: " + list + ")");
    }
    if (footer.row_groups.empty()) Note(c, path + ": the file has no row groups");
  } catch (const ParquetError& e) {
    throw CliError(kExitFailure, path + ": " + e.what());  // a malformed file: a failure
  }
  w.Flush();
  Json j;
  j.Str("file", path)
      .Str("column", column)
      .Int("row_groups", row_groups)
      .Int("row_groups_without_filter", without)
      .Int("probes", probes)
      .Int("maybe", maybe)
      .Int("no", no);
  Summary(c, j, "parquet", {values.size(), 0}, Seconds(start));
  return 0;
}

// After --help or --version: stdout flushed, and a write error (a full disk, /dev/full, a closed
// pipe) is an error as for any output, exit 2, not a silent 0.
int FlushedStdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    throw CliError(kExitUsage, ErrnoMessage("(stdout)", "write error", errno != 0 ? errno : EIO));
  }
  return 0;
}

void PrintCommandHelp(const CommandHelp& h) {
  std::string text = h.text;
  text += "Options of every command:\n";
  text += kCommonOptions;
  text += "Example:\n";
  text += h.example;
  std::fputs(text.c_str(), stdout);
}

int Run(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kGlobalHelp, stderr);
    return kExitUsage;
  }
  const std::string cmd = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    // "help COMMAND" is "COMMAND --help".
    const CommandHelp* h = cmd == "help" && !args.empty() ? FindHelp(args[0].c_str()) : nullptr;
    if (cmd == "help" && !args.empty() && h == nullptr) {
      throw CliError(kExitUsage, "help: unknown command '" + args[0] + "'");
    }
    if (h != nullptr) {
      PrintCommandHelp(*h);
    } else {
      std::fputs(kGlobalHelp, stdout);
    }
    return FlushedStdout();
  }
  if (cmd == "--version" || cmd == "version") {
    // The instruction set as users know it; Highway's name (what SIMDBLOOM_TARGET takes) after.
    const std::string t = active_target();
    const std::string isa = t.rfind("AVX3", 0) == 0 ? "AVX-512 (target " + t + ")"
                            : t == "SCALAR" || t == "EMU128" || t == "reference"
                                ? "none (target " + t + ")"
                                : t;
    std::printf("simdbloom %s (SIMD: %s)\n", version(), isa.c_str());
    return FlushedStdout();
  }
  const CommandHelp* help = FindHelp(cmd.c_str());
  if (help == nullptr) {
    throw CliError(kExitUsage, "unknown command '" + cmd + "' (see simdbloom --help)");
  }
  // -h/--help anywhere before "--": the command's help, whatever else the line holds.
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == "-h" || a == "--help") {
      PrintCommandHelp(*help);
      return FlushedStdout();
    }
  }
  if (cmd == "build") return Build(args);
  if (cmd == "query") return GrepStatus(Query, args);
  if (cmd == "classify") return GrepStatus(Classify, args);
  if (cmd == "remove") return Remove(args);
  if (cmd == "dedup") return Dedup(args);
  if (cmd == "intersect") return Intersect(args);
  if (cmd == "info") return Info(args);
  if (cmd == "merge") return Merge(args);
  return ParquetProbe(args);  // "parquet": FindHelp knows no other name
}

}  // namespace
}  // namespace cli
}  // namespace simdbloom

namespace {
// An interrupt during a save through a named temporary (file systems without O_TMPFILE) removes
// it before the process dies of the signal.
extern "C" void RemoveTemporaryAndDie(int sig) {
  simdbloom::detail::RemovePendingSaveTemporary();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}
}  // namespace

int main(int argc, char** argv) {
  using simdbloom::cli::CliError;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, RemoveTemporaryAndDie);
  // Past RLIMIT_FSIZE a write fails with EFBIG (reported, the old output kept) instead of killing
  // the process.
  ::signal(SIGXFSZ, SIG_IGN);
  try {
    return simdbloom::cli::Run(argc, argv);
  } catch (const CliError& e) {
    std::fprintf(stderr, "simdbloom: %s\n", e.what());
    return e.exit_code();
  } catch (const simdbloom::Error& e) {
    std::fprintf(stderr, "simdbloom: %s\n", e.what());
    return e.code() == simdbloom::ErrorCode::kInvalidArgument ? simdbloom::cli::kExitUsage
                                                              : simdbloom::cli::kExitFailure;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "simdbloom: out of memory\n");
    return simdbloom::cli::kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simdbloom: %s\n", e.what());
    return simdbloom::cli::kExitFailure;
  }
}
