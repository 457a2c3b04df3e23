// SPDX-License-Identifier: Apache-2.0
// Command-line parsing for the subcommands: options (short or long, with or without a value, in
// any position; "--opt=value" and "--opt value" alike; short flags bundled as "-qz"; "--" ends
// options; "-" alone is a file) and positional arguments. Errors are CliError with exit code 2.
#ifndef SIMDBLOOM_CLI_OPTIONS_H_
#define SIMDBLOOM_CLI_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simdbloom {
namespace cli {

struct OptionSpec {
  const char* long_name;  // without "--"
  char short_name;        // 0 if none
  bool takes_value;
};

class Options {
 public:
  // Parses args (after the subcommand name) against `specs`. Throws CliError(2) for an unknown
  // option or a missing value.
  Options(const std::string& command, const std::vector<std::string>& args,
          const std::vector<OptionSpec>& specs);
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  // How often the option was given (a value option given twice keeps its last value).
  int Times(const std::string& name) const {
    const auto it = times_.find(name);
    return it == times_.end() ? 0 : it->second;
  }
  std::string Str(const std::string& name, const std::string& fallback) const;
  // Every value of a value option, in the order given ("-f A -f B": A, B).
  std::vector<std::string> All(const std::string& name) const {
    const auto it = all_.find(name);
    return it == all_.end() ? std::vector<std::string>() : it->second;
  }
  // The option as the user last spelled it ("-n", "--n", "--threads", "-t"); if not given, as the
  // help spells it: "-n" for an option whose only name is one letter, else "--NAME".
  std::string Typed(const std::string& name) const;
  // Integer option: accepts 1e6-style and k/M/G suffixes (decimal); throws CliError(2) otherwise,
  // saying "too large" beyond 2^64 - 1.
  uint64_t Count(const std::string& name, uint64_t fallback) const;
  // An exact 64-bit integer (a seed): decimal or 0x hex, no sign, no suffix; CliError(2) otherwise.
  uint64_t Exact(const std::string& name, uint64_t fallback) const;
  double Real(const std::string& name, double fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::string command_;
  std::vector<OptionSpec> specs_;
  std::map<std::string, std::string> values_;
  std::map<std::string, int> times_;
  std::map<std::string, std::vector<std::string>> all_;
  std::map<std::string, std::string> typed_;
  std::vector<std::string> positional_;
};

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_OPTIONS_H_
