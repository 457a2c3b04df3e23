// SPDX-License-Identifier: Apache-2.0
// simdbloom build: a plain filter, a scalable chain (a pipe without -n), a counting
// filter (--counting), a spatial filter (--areas) or Guava's bytes (--format guava), saved
// atomically to -o OUT.
#include <optional>
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/output.h"
#include "lib/cli/progress.h"

namespace simdbloom {
namespace cli {
namespace {

constexpr size_t kMaxAreas = 65535;  // SpatialFilter's labels: 1..65535

// An area's name: its FILE as given, "(standard input)" for "-" (as grep names it).
std::string AreaNameOf(const std::string& file) { return file == "-" ? "(standard input)" : file; }

// A counting layout by its name (counting_layout_name, from the registry lib/formats/kinds.h).
CountingLayout ParseCountingLayout(const std::string& name) {
  std::string known;
  for (const CountingLayout l : {CountingLayout::kBlocked, CountingLayout::kClassic}) {
    if (name == counting_layout_name(l)) return l;
    known += known.empty() ? "" : ", ";
    known += counting_layout_name(l);
  }
  throw CliError(kExitUsage,
                 "build --counting: unknown layout '" + name + "' (one of " + known + ")");
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

}  // namespace

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
    const CountingLayout layout =
        ParseCountingLayout(o.Str("layout", counting_layout_name(CountingLayout::kBlocked)));
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
      !InsertRanges(files, c, progress, set.plain(), pass)) {
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

}  // namespace cli
}  // namespace simdbloom
