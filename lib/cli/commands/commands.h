// SPDX-License-Identifier: Apache-2.0
// The commands, one file each in this folder: each takes the arguments after its name and
// returns the exit status (0, 1) or throws CliError (the status and the message main prints).
// main.cc parses the command name and dispatches; common.h holds what they share.
#ifndef SIMDBLOOM_CLI_COMMANDS_COMMANDS_H_
#define SIMDBLOOM_CLI_COMMANDS_COMMANDS_H_

#include <string>
#include <vector>

namespace simdbloom {
namespace cli {

using Args = std::vector<std::string>;

int Build(const Args& args);      // build.cc
int Query(const Args& args);      // query.cc (every error exits 2: run through GrepStatus)
int Classify(const Args& args);   // classify.cc (as query)
int Remove(const Args& args);     // remove.cc
int Dedup(const Args& args);      // dedup.cc
int Intersect(const Args& args);  // intersect.cc
int Info(const Args& args);       // info.cc
int Merge(const Args& args);      // merge.cc
int Parquet(const Args& args);    // parquet.cc

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_COMMANDS_COMMANDS_H_
