// SPDX-License-Identifier: Apache-2.0
// Output files (see output.h).
#include "lib/cli/output.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "lib/cli/error.h"
#include "lib/formats/file_io.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {

void CheckWritableDestination(const std::string& path) {
  if (path.empty() || path.back() == '/') {
    throw CliError(kExitUsage, "'" + path + "' is not a file name");
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw CliError(kExitFailure, path + ": is a directory");
    if (!S_ISREG(st.st_mode)) return;  // a device or FIFO: opened when written
  }
  // The folder that will hold the file: the link's target's when `path` is a symbolic link (as
  // the save resolves it, dangling links included).
  std::string target;
  try {
    target = detail::SaveTarget(path, "simdbloom");
  } catch (const Error&) {
    throw CliError(kExitFailure, ErrnoMessage(path, "cannot create", ELOOP));
  }
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw CliError(kExitFailure, ErrnoMessage(path, "cannot create", errno));
  }
  // An existing file is replaced only where it could be rewritten (the save refuses otherwise).
  if (::stat(target.c_str(), &st) == 0 && ::access(target.c_str(), W_OK) != 0) {
    throw CliError(kExitFailure, ErrnoMessage(path, "cannot write", errno));
  }
}

void CheckOutputIsNoInput(const std::string& cmd, const std::string& out,
                          const std::vector<std::string>& inputs) {
  struct stat o;
  if (::stat(out.c_str(), &o) != 0 || !S_ISREG(o.st_mode)) return;  // new, or a device/FIFO
  for (const auto& in : inputs) {
    struct stat i;
    const int rc = in == "-" ? ::fstat(0, &i) : ::stat(in.c_str(), &i);
    if (rc == 0 && i.st_dev == o.st_dev && i.st_ino == o.st_ino) {
      throw CliError(kExitUsage, cmd + ": output " + out + " is also the input " +
                                     (in == "-" ? std::string("(stdin)") : in) +
                                     ": nothing written");
    }
  }
}

void SaveAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  try {
    detail::WriteFileAtomically(path, "simdbloom", write);
  } catch (const Error& e) {
    // "simdbloom: cannot write PATH: why" without the library's prefix: main prints "simdbloom: ".
    std::string what = e.what();
    if (what.rfind("simdbloom: ", 0) == 0) what = what.substr(11);
    throw CliError(kExitFailure, what);
  }
}

}  // namespace cli
}  // namespace simdbloom
