// SPDX-License-Identifier: Apache-2.0
// What every command shares: the options of every command (Common), sizing a new set from -n or
// the input (MakeSet), the notes on stderr and the --json summary. One file per command beside
// this one; commands.h lists them.
#ifndef SIMDBLOOM_CLI_COMMANDS_COMMON_H_
#define SIMDBLOOM_CLI_COMMANDS_COMMON_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/cli/error.h"
#include "lib/cli/json.h"
#include "lib/cli/key_set.h"
#include "lib/cli/options.h"
#include "lib/cli/stream.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {

// The options every command takes (and -z for those that read keys), as read by ReadCommon.
struct Common : Input {
  bool json = false;  // --json or --stats FILE
  std::string stats;  // --stats FILE: where the summary goes (else stderr)
  bool quiet = false;
  bool progress = false;
};

// For the commands that read keys.
extern const OptionSpec kNullSpec;

// `extra` and the options of every command.
std::vector<OptionSpec> Specs(std::vector<OptionSpec> extra);
// Reads and checks the options of every command (--threads only for build, query and intersect;
// --max-key-bytes, --key-type and --stats take effect here). Throws CliError (exit 2).
Common ReadCommon(const Options& o, const std::string& cmd);

// "simdbloom: MESSAGE" on stderr unless --quiet.
void Note(const Common& c, const std::string& message);
double Seconds(std::chrono::steady_clock::time_point since);

Layout ParseLayout(const std::string& cmd, const std::string& name);
// --fpp, default 0.01, in [1e-9, 1).
double ParseFpp(const std::string& cmd, const Options& o);

// How a set was sized: the expected key count and how it was found.
struct Sized {
  uint64_t n = 0;   // plain: the expected keys; scalable: the first stage's capacity
  std::string how;  // "given" (-n), "counted" (lines of regular files), "scalable" (a pipe)
};

// The expected keys of a filter sized in advance: -n N, or the lines of `files` when all are
// regular files (counted in a first pass, said on stderr). False (nothing set) when an input is
// not a regular file and -n was not given.
bool ExpectedKeys(const std::string& cmd, const Options& o, const std::vector<std::string>& files,
                  const Common& c, Sized& s);

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
               const Common& c, double fpp, Layout layout, Sized& s);

// The --json object, one line: to --stats FILE (atomically) when given, else to stderr. Never to
// stdout, where the data goes.
void WriteSummary(const Common& c, const std::string& line);
// With --json: {"command", "keys", "bytes", "seconds", "keys_per_second"} and then j's fields.
void Summary(const Common& c, Json& j, const char* cmd, const Pass& p, double secs);

// The FILEs, "-" (stdin) when none; stdin given twice is a usage error.
std::vector<std::string> FilesOrStdin(std::vector<std::string> files);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_COMMANDS_COMMON_H_
