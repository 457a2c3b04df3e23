// SPDX-License-Identifier: Apache-2.0
// Command-line parsing (see options.h).
#include "lib/cli/options.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "lib/cli/error.h"

namespace simdbloom {
namespace cli {

Options::Options(const std::string& command, const std::vector<std::string>& args,
                 const std::vector<OptionSpec>& specs)
    : command_(command), specs_(specs) {
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (options_done || a.size() < 2 || a[0] != '-') {
      positional_.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    const OptionSpec* spec = nullptr;
    std::string value, typed;
    bool has_inline = false;
    if (a[1] == '-') {
      std::string name = a.substr(2);
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_inline = true;
      }
      for (const auto& s : specs) {
        if (name == s.long_name) spec = &s;
      }
      typed = "--" + name;
    } else {
      // "-q", "-n1000", and flags bundled as getopt takes them: "-qz", "-zn1000", "-zn 1000".
      for (size_t j = 1;; ++j) {
        spec = nullptr;
        for (const auto& s : specs) {
          if (s.short_name != 0 && a[j] == s.short_name) spec = &s;
        }
        typed = std::string("-") + a[j];
        if (spec == nullptr || j + 1 == a.size()) break;
        if (spec->takes_value) {
          value = a.substr(j + 1);  // the rest of the argument is its value
          has_inline = true;
          break;
        }
        // A flag, and more options follow.
        values_[spec->long_name] = "";
        ++times_[spec->long_name];
        typed_[spec->long_name] = typed;
      }
    }
    if (spec == nullptr) {
      // In a bundle ("-qx") the letter that is unknown, and where.
      const std::string what =
          a[1] == '-' || typed == a ? "'" + a + "'" : "'" + typed + "' (in '" + a + "')";
      throw CliError(kExitUsage, command_ + ": unknown option " + what + " (see simdbloom " +
                                     command_ + " --help)");
    }
    if (spec->takes_value && !has_inline) {
      if (i + 1 >= args.size()) {
        throw CliError(kExitUsage, command_ + ": option " + typed + " needs a value");
      }
      value = args[++i];
    } else if (!spec->takes_value && has_inline) {
      throw CliError(kExitUsage, command_ + ": option " + typed + " takes no value");
    }
    values_[spec->long_name] = value;
    if (spec->takes_value) all_[spec->long_name].push_back(value);
    ++times_[spec->long_name];
    typed_[spec->long_name] = typed;
  }
}

std::string Options::Typed(const std::string& name) const {
  const auto it = typed_.find(name);
  if (it != typed_.end()) return it->second;
  for (const auto& s : specs_) {
    if (name == s.long_name && name.size() == 1 && s.short_name == name[0]) return "-" + name;
  }
  return "--" + name;
}

std::string Options::Str(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

uint64_t Options::Exact(const std::string& name, uint64_t fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  char* end = nullptr;
  errno = 0;
  // Decimal, or hex after 0x: never octal (a leading 0 is decimal, as the help says).
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const unsigned long long v = std::strtoull(s.c_str() + (hex ? 2 : 0), &end, hex ? 16 : 10);
  if (s.empty() || !std::isxdigit(static_cast<unsigned char>(s[hex ? 2 : 0])) || *end != '\0' ||
      errno == ERANGE || (!hex && !std::isdigit(static_cast<unsigned char>(s[0])))) {
    throw CliError(kExitUsage,
                   command_ + ": " + Typed(name) +
                       (errno == ERANGE ? " is too large (at most 18446744073709551615), got '"
                                        : " needs a 64-bit integer (decimal or 0x "
                                          "hex), got '") +
                       s + "'");
  }
  return v;
}

uint64_t Options::Count(const std::string& name, uint64_t fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  const auto bad = [&](const char* what) {
    throw CliError(kExitUsage, command_ + ": " + Typed(name) + what + ", got '" + s + "'");
  };
  // Plain digits are read exactly (a double has 53 bits); 1e6, 2.5M and the like as a double.
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
    errno = 0;
    const unsigned long long exact = std::strtoull(s.c_str(), nullptr, 10);
    if (errno == ERANGE) bad(" is too large (at most 18446744073709551615)");
    return exact;
  }
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() && *end != '\0' && end[1] == '\0') {
    switch (*end) {
      case 'k':
      case 'K':
        v *= 1e3, ++end;
        break;
      case 'M':
        v *= 1e6, ++end;
        break;
      case 'G':
        v *= 1e9, ++end;
        break;
      default:
        break;
    }
  }
  if (s.empty() || end == s.c_str() || *end != '\0' || !(v >= 0) || v != std::floor(v)) {
    bad(" needs a whole number");
  }
  if (v >= 18446744073709551616.0) bad(" is too large (at most 18446744073709551615)");
  return static_cast<uint64_t>(v);
}

double Options::Real(const std::string& name, double fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || !std::isfinite(v)) {
    throw CliError(kExitUsage,
                   command_ + ": " + Typed(name) + " needs a number, got '" + it->second + "'");
  }
  return v;
}

}  // namespace cli
}  // namespace simdbloom
