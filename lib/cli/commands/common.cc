// SPDX-License-Identifier: Apache-2.0
// What every command shares (see common.h).
#include "lib/cli/commands/common.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "lib/cli/io.h"
#include "lib/cli/output.h"
#include "simdbloom/scalable.hpp"

namespace simdbloom {
namespace cli {
namespace {

constexpr double kDefaultFpp = 0.01;

const std::vector<OptionSpec> kCommonSpecs = {
    {"json", 0, false},         {"stats", 0, true},     {"quiet", 'q', false},
    {"progress", 0, false},     {"strip-cr", 0, false}, {"threads", 't', true},
    {"max-key-bytes", 0, true},
};

// A chain's first stage on a pipe: 1M keys (about 1.8 MB at 1%), doubling per stage.
// SIMDBLOOM_CLI_SCALABLE_INITIAL (tests only) sets another.
uint64_t ScalableInitial() {
  const char* env = std::getenv("SIMDBLOOM_CLI_SCALABLE_INITIAL");
  const long long v = env != nullptr ? std::atoll(env) : 0;
  return v > 0 ? static_cast<uint64_t>(v) : 1'000'000;
}

}  // namespace

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
  KeySet set = Construct(cmd, [&] { return KeySet(ScalableFilter::create(s.n, fpp, options)); });
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%g", fpp);
  Note(c, "input is a pipe and -n was not given: a scalable filter (stages of " +
              std::to_string(s.n) + ", then 2x, 4x, ... keys; rate at most " + rate +
              " overall); -n N makes a plain filter");
  return set;
}

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

}  // namespace cli
}  // namespace simdbloom
