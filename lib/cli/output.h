// SPDX-License-Identifier: Apache-2.0
// Output files are written under a temporary name in the destination's folder and renamed over
// the destination only when complete: a failure or an interrupt (SIGINT/SIGTERM/SIGHUP) leaves
// no partial file behind.
#ifndef SIMDBLOOM_CLI_OUTPUT_H_
#define SIMDBLOOM_CLI_OUTPUT_H_

#include <functional>
#include <iosfwd>
#include <string>

namespace simdbloom {
namespace cli {

// Checks, before any work, that a file can be created at `path` (its folder exists and is
// writable), so a long build does not fail at its end. Throws CliError (exit 1).
void CheckWritableDestination(const std::string& path);

// Writes `path` atomically: `write` fills a stream on a temporary file in the same folder, which
// is renamed onto `path` when complete. The file gets mode 0666 & ~umask. Throws CliError (exit
// 1) naming `path` on any failure (simdbloom::Error from `write` included); the temporary is
// removed.
void SaveAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_OUTPUT_H_
