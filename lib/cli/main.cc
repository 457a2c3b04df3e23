// SPDX-License-Identifier: Apache-2.0
// simdbloom: the command-line tool. This file reads the command's name and dispatches: help,
// version, then one of the commands of lib/cli/commands/ (one file each). Keys are lines of text,
// streamed in large blocks through the library's bulk calls (stream.h, io.h).
#include <errno.h>
#include <signal.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "lib/cli/commands/commands.h"
#include "lib/cli/error.h"
#include "lib/cli/help.h"
#include "lib/cli/io.h"
#include "lib/formats/file_io.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {
namespace {

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
  return Parquet(args);  // "parquet": FindHelp knows no other name
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
