// SPDX-License-Identifier: Apache-2.0
// simdbloom query: the keys that may be in a filter (or surely are not), or in which of
// several filters (-f) they may be.
#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/commands/common.h"
#include "lib/cli/io.h"
#include "lib/cli/progress.h"
#include "simdbloom/filter_set.hpp"

namespace simdbloom {
namespace cli {
namespace {

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

}  // namespace

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
      !ReadRanges(files, c, progress, pass,
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

}  // namespace cli
}  // namespace simdbloom
