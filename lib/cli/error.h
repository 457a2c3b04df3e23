// SPDX-License-Identifier: Apache-2.0
// The command's error type: a message (one line, naming the file and the problem) and the exit
// code it ends the process with (kExitUsage = 2, kExitFailure = 1; see help.h's exit status text).
#ifndef SIMDBLOOM_CLI_ERROR_H_
#define SIMDBLOOM_CLI_ERROR_H_

#include <stdexcept>
#include <string>

namespace simdbloom {
namespace cli {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

class CliError : public std::runtime_error {
 public:
  CliError(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

// "PATH: what" with errno's text: the usual shape of a file error.
std::string ErrnoMessage(const std::string& path, const char* what, int err);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_ERROR_H_
