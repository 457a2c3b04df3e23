// SPDX-License-Identifier: Apache-2.0
// Atomic filter files (see output.h).
#include "lib/cli/output.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "lib/cli/error.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {
namespace {

// The temporary file being written, removed by the signal handler (unlink is async-signal-safe).
char g_temp_path[4096];
volatile sig_atomic_t g_temp_active = 0;

extern "C" void RemoveTempAndDie(int sig) {
  if (g_temp_active) ::unlink(g_temp_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

class TempGuard {
 public:
  explicit TempGuard(const std::string& path) {
    std::snprintf(g_temp_path, sizeof(g_temp_path), "%s", path.c_str());
    g_temp_active = 1;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) old_[Index(sig)] = ::signal(sig, RemoveTempAndDie);
  }
  ~TempGuard() {
    if (g_temp_active) ::unlink(g_temp_path);
    g_temp_active = 0;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, old_[Index(sig)]);
  }
  void Committed() { g_temp_active = 0; }

 private:
  static int Index(int sig) { return sig == SIGINT ? 0 : sig == SIGTERM ? 1 : 2; }
  sighandler_t old_[3];
};

}  // namespace

void CheckWritableDestination(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (path.empty() || slash == path.size() - 1) {
    throw CliError(kExitUsage, "'" + path + "' is not a file name");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw CliError(kExitFailure, ErrnoMessage(path, "cannot create", errno));
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw CliError(kExitFailure, path + ": is a directory");
  }
}

void SaveAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) throw CliError(kExitUsage, path + ": not a file name");
  std::string tmpl = (slash == std::string::npos ? "" : dir) + "." + base + ".tmp.XXXXXX";
  if (tmpl.size() >= sizeof(g_temp_path)) throw CliError(kExitUsage, path + ": path too long");
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot create", errno));
  const std::string temp(name.data());
  TempGuard guard(temp);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  const int chmod_rc = ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  if (chmod_rc != 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot create", errno));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw CliError(kExitFailure, path + ": cannot write");
    try {
      write(out);
    } catch (const Error& e) {
      throw CliError(kExitFailure, path + ": write failed: " + e.what());
    }
    out.close();
    if (!out) throw CliError(kExitFailure, path + ": write failed (disk full?)");
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    throw CliError(kExitFailure, ErrnoMessage(path, "cannot rename the finished file onto", errno));
  }
  guard.Committed();
}

}  // namespace cli
}  // namespace simdbloom
