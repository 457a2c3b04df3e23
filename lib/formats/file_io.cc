// SPDX-License-Identifier: Apache-2.0
// The one save routine of every filter kind, the C API, Python and the command line (file_io.h):
// a file is replaced by a rename, never rewritten in place.
#include "lib/formats/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <random>
#include <streambuf>
#include <vector>

#include "lib/core/key_source.h"
#include "lib/core/layout.h"

namespace simdbloom {
namespace detail {
namespace {

[[noreturn]] void IoError(const std::string& who, const std::string& what, const std::string& path,
                          int err) {
  throw Error(ErrorCode::kIo, who + ": " + what + " " + path + ": " + std::strerror(err));
}

// An ostream's buffer over a file descriptor that remembers the first write error's errno (an
// ostream only keeps badbit). Writes of a buffer or more go straight to the descriptor.
class FdBuf final : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buf_(1 << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return error_; }
  bool Flush() { return sync() == 0; }

 protected:
  int_type overflow(int_type ch) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < static_cast<std::streamsize>(epptr() - pptr())) {
      std::memcpy(pptr(), s, static_cast<size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    if (!Drain() || !WriteAll(s, static_cast<size_t>(n))) return 0;
    return n;
  }
  int sync() override { return Drain() ? 0 : -1; }

 private:
  bool Drain() {
    const size_t n = static_cast<size_t>(pptr() - pbase());
    const bool ok = WriteAll(pbase(), n);
    setp(buf_.data(), buf_.data() + buf_.size());
    return ok;
  }
  bool WriteAll(const char* p, size_t n) {
    if (error_ != 0) return false;
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error_ = w < 0 ? errno : EIO;
        return false;
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return true;
  }

  int fd_;
  std::vector<char> buf_;
  int error_ = 0;
};

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  // close() that reports the error (NFS reports a failed write there).
  int Close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd);
  }

 private:
  int fd_;
};

// Runs `write` into `fd` and makes the bytes durable; throws kIo naming `path` and the errno text.
void WriteAndSync(int fd, const std::string& path, const std::string& who,
                  const std::function<void(std::ostream&)>& write) {
  FdBuf buf(fd);
  std::ostream out(&buf);
  try {
    write(out);
  } catch (const Error& e) {
    // A save that stopped on its stream's badbit reports kIo: the errno says why.
    if (e.code() != ErrorCode::kIo || buf.error() == 0) throw;
  }
  out.flush();
  if (buf.error() != 0) IoError(who, "cannot write", path, buf.error());
  if (!out || !buf.Flush()) IoError(who, "cannot write", path, buf.error() ? buf.error() : EIO);
  // A pipe or a terminal cannot be synced (EINVAL/EROFS): only a real failure counts.
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    IoError(who, "cannot write", path, errno);
  }
}

// The final target of `path` through symbolic links (as `sort -o LINK` writes the file the link
// points to). A dangling link gives the path it points to; a loop is ELOOP.
std::string ResolveLinksImpl(std::string path, const std::string& who) {
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    if (hops == 40) IoError(who, "cannot create", path, ELOOP);
    std::vector<char> target(PATH_MAX + 1);
    const ssize_t n = ::readlink(path.c_str(), target.data(), PATH_MAX);
    if (n < 0) IoError(who, "cannot create", path, errno);
    std::string next(target.data(), static_cast<size_t>(n));
    if (next.empty() || next[0] != '/') {
      const size_t slash = path.rfind('/');
      if (slash != std::string::npos) next = path.substr(0, slash + 1) + next;
    }
    path = std::move(next);
  }
}

std::string TempName(const std::string& base) {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(::getpid())
                                                                       << 32);
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%016llx", static_cast<unsigned long long>(rng()));
  // At most 200 bytes of the name: the temporary must fit NAME_MAX (255) where the target does.
  // Appended piece by piece: GCC 12 at -O2 -std=c++20 reports a false -Wrestrict on
  // `"." + std::string` (an insert at the front).
  std::string name = ".";
  name.append(base, 0, 200);
  name += ".tmp.";
  name += suffix;
  return name;
}

// The named temporary of a save in progress (the fallback without O_TMPFILE), for a signal
// handler to remove: its directory's descriptor and its name. One at a time, process-wide.
std::atomic<int> g_pending_claimed{0};
volatile sig_atomic_t g_pending_dir = -1;
char g_pending_name[256];

// Claims the slot for `name` in directory `dir` (false if another save holds it).
bool ClaimPending(int dir, const std::string& name) {
  int expected = 0;
  if (name.size() >= sizeof(g_pending_name) ||
      !g_pending_claimed.compare_exchange_strong(expected, 1)) {
    return false;
  }
  std::memcpy(g_pending_name, name.c_str(), name.size() + 1);
  g_pending_dir = dir;
  return true;
}
void ReleasePending() {
  g_pending_dir = -1;
  g_pending_claimed.store(0);
}

// The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name, else -1.
// Writing there goes through the caller's own descriptor, at its offset (as a shell redirect).
int NamedDescriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const size_t n = std::strlen(prefix);
    if (path.compare(0, n, prefix) != 0 || path.size() == n || path.size() > n + 9) continue;
    int fd = 0;
    for (size_t i = n; i < path.size(); ++i) {
      if (path[i] < '0' || path[i] > '9') return -1;
      fd = fd * 10 + (path[i] - '0');
    }
    return fd;
  }
  return -1;
}

}  // namespace

void CheckViewBytes(const std::string& who, const uint8_t* data, size_t size) {
  if (data == nullptr) Invalid(who + ": null data");
  if (reinterpret_cast<uintptr_t>(data) % 64 != 0) {
    Invalid(who + ": data must be 64-byte aligned (mmap gives page alignment)");
  }
  CheckExtent(who.c_str(), "bytes", data, size, 1);
}

std::string SaveTarget(const std::string& path, const std::string& who) {
  return ResolveLinksImpl(path, who);
}

void RemovePendingSaveTemporary() noexcept {
  const int dir = g_pending_dir;
  if (dir >= 0) ::unlinkat(dir, g_pending_name, 0);
}

void WriteFileAtomically(const std::string& path, const std::string& who,
                         const std::function<void(std::ostream&)>& write) {
  if (path.empty()) throw Error(ErrorCode::kIo, who + ": empty file name");
  // A device, a FIFO, a socket or a descriptor name (/dev/stdout, a named pipe) is streamed
  // into: there is nothing to replace, and a reader may be waiting on it.
  struct stat st;
  const int named = NamedDescriptor(path);
  if (named >= 0 ||
      (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
    Fd fd(named >= 0 ? ::fcntl(named, F_DUPFD_CLOEXEC, 3)
                     : ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) IoError(who, "cannot open", path, errno);
    WriteAndSync(fd.get(), path, who, write);
    if (fd.Close() != 0) IoError(who, "cannot write", path, errno);
    return;
  }
  const std::string target = SaveTarget(path, who);
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) IoError(who, "cannot write", path, EISDIR);
  // Replacing needs what rewriting would: write permission on the file (a read-only file stays).
  if (exists && ::access(target.c_str(), W_OK) != 0) IoError(who, "cannot write", path, errno);
  const size_t slash = target.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : target.substr(0, slash);
  const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") IoError(who, "cannot write", path, EISDIR);
  // The directory: readable for its fsync, or (write-only directories, mode -wx) by O_PATH, which
  // serves the *at calls but cannot be synced.
  Fd dirfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  const bool dir_syncable = dirfd.get() >= 0;
  if (!dir_syncable) dirfd.Reset(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dirfd.get() < 0) IoError(who, "cannot create", path, errno);
  auto sync_dir = [&] {
    if (dir_syncable && ::fsync(dirfd.get()) != 0) {
      IoError(who, "cannot sync the directory of", path, errno);
    }
  };
  // The new file gets the old one's permission bits, else 0666 less the umask (as open(2)).
  const mode_t mode = exists ? (st.st_mode & 07777) : 0666;

  // Preferred: an unnamed file (O_TMPFILE) that gets a name only once it is complete, so a kill
  // at any moment leaves nothing behind. /proc/self/fd names it for linkat without privileges.
  // SIMDBLOOM_SAVE_NAMED_TEMPORARY=1 (tests only) takes the named temporary's path as a file
  // system without O_TMPFILE does, so that its cleanup is tested without root.
  std::string temp;  // a named temporary, while one exists
  bool claimed = false;  // temp is in the signal handler's slot (ClaimPending)
  const char* force_named = std::getenv("SIMDBLOOM_SAVE_NAMED_TEMPORARY");
  Fd fd(::access("/proc/self/fd", X_OK) == 0 &&
                !(force_named != nullptr && std::strcmp(force_named, "1") == 0)
            ? ::openat(dirfd.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode)
            : -1);
  const bool unnamed = fd.get() >= 0;
  if (!unnamed) {
    // The file system has no O_TMPFILE: a named temporary beside the target, removed on error.
    // The name is claimed for the signal handler before the file exists, so no moment has the
    // file but not the claim (a signal there left it behind).
    for (int tries = 0; tries < 100 && fd.get() < 0; ++tries) {
      temp = TempName(base);
      claimed = ClaimPending(dirfd.get(), temp);
      fd.Reset(::openat(dirfd.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode));
      if (fd.get() < 0) {
        const int err = errno;
        if (claimed) ReleasePending();
        claimed = false;
        if (err != EEXIST) {
          temp.clear();
          IoError(who, "cannot create", path, err);
        }
      }
    }
    if (fd.get() < 0) {
      temp.clear();
      IoError(who, "cannot create", path, EEXIST);
    }
  }
  // Removes the named temporary on every error path (and lets a signal handler do so meanwhile).
  struct Cleanup {
    int dir;
    std::string* name;
    bool claimed = false;
    ~Cleanup() {
      if (!name->empty()) ::unlinkat(dir, name->c_str(), 0);
      if (claimed) ReleasePending();
    }
  } cleanup{dirfd.get(), &temp, claimed};

  if (exists) {
    // The old file's owner and group where the caller may set them (root, or its own group);
    // ACLs and extended attributes are not copied.
    (void)::fchown(fd.get(), st.st_uid, st.st_gid);
  }

  if (exists) (void)::fchmod(fd.get(), mode);  // open(2) applied the umask to the old bits
  WriteAndSync(fd.get(), path, who, write);

  if (unnamed) {
    char proc[64];
    std::snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd.get());
    // No old file: the link itself publishes it, with no moment where a temporary name exists.
    if (!exists && ::linkat(AT_FDCWD, proc, dirfd.get(), base.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      if (fd.Close() != 0) IoError(who, "cannot write", path, errno);
      sync_dir();
      return;
    }
    // Else a temporary name for the complete file, renamed over the target at once (the one
    // window where a kill leaves a file behind: between two system calls).
    for (int tries = 0; tries < 100; ++tries) {
      const std::string name = TempName(base);
      const bool named_claimed = ClaimPending(dirfd.get(), name);  // before the name exists
      if (::linkat(AT_FDCWD, proc, dirfd.get(), name.c_str(), AT_SYMLINK_FOLLOW) == 0) {
        temp = name;
        cleanup.claimed = named_claimed;
        break;
      }
      const int err = errno;
      if (named_claimed) ReleasePending();
      if (err != EEXIST) IoError(who, "cannot create", path, err);
    }
    if (temp.empty()) IoError(who, "cannot create", path, EEXIST);
  }
  // Renamed right after it was named (the file still open: a close between the two widened the
  // window a kill can leave the temporary in), then closed; the bytes were fsync'ed already.
  if (::renameat(dirfd.get(), temp.c_str(), dirfd.get(), base.c_str()) != 0) {
    IoError(who, "cannot replace", path, errno);
  }
  temp.clear();  // renamed: nothing to remove
  if (fd.Close() != 0) IoError(who, "cannot write", path, errno);
  sync_dir();
}

}  // namespace detail
}  // namespace simdbloom
