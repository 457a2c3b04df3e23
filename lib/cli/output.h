// SPDX-License-Identifier: Apache-2.0
// Output files of the commands: written by the library's one save routine
// (detail::WriteFileAtomically, lib/formats/file_io.h): an unnamed temporary in the destination's
// folder, fsync'ed and renamed over the destination when complete, so a failure, an interrupt or a
// kill leaves the old file (or none) and nothing else. A symbolic link is followed (the file it
// points to is replaced, as `sort -o` does); a device or FIFO (`-o /dev/stdout`, a named pipe) is
// streamed into.
#ifndef SIMDBLOOM_CLI_OUTPUT_H_
#define SIMDBLOOM_CLI_OUTPUT_H_

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace simdbloom {
namespace cli {

// Checks, before any work, that a file can be created at `path` (its folder exists and is
// writable; through a symbolic link, the folder of the file it points to), so a long build does
// not fail at its end. Throws CliError (exit 1).
void CheckWritableDestination(const std::string& path);

// Refuses an output that is one of the inputs (same device and inode, so also through symbolic
// and hard links; "-" is standard input): writing it would destroy the input. Throws CliError
// (exit 2) "CMD: output OUT is also the input IN"; nothing is read or written.
void CheckOutputIsNoInput(const std::string& cmd, const std::string& out,
                          const std::vector<std::string>& inputs);

// Writes `path` atomically (see above). Throws CliError (exit 1) naming `path` and the reason on
// any failure (simdbloom::Error from `write` included).
void SaveAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_OUTPUT_H_
