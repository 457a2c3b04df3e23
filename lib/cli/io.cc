// Block reads and line cutting for the command (see io.h).
#include "lib/cli/io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "lib/cli/error.h"

namespace simdbloom {
namespace cli {

std::string ErrnoMessage(const std::string& path, const char* what, int err) {
  return path + ": " + what + ": " + std::strerror(err);
}

namespace {

std::string Shown(const std::string& path) { return path == "-" ? "(stdin)" : path; }

int OpenInput(const std::string& path) {
  if (path == "-") return 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw CliError(kExitFailure, path + ": is a directory, not a file of lines");
  }
  return fd;
}

// read(2) that retries on EINTR; throws on error.
size_t ReadSome(int fd, char* p, size_t n, const std::string& path) {
  for (;;) {
    const ssize_t r = ::read(fd, p, n);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno != EINTR)
      throw CliError(kExitFailure, ErrnoMessage(Shown(path), "read error", errno));
  }
}

}  // namespace

int64_t RegularFileSize(const std::string& path) {
  struct stat st;
  if (path == "-") {
    if (::fstat(0, &st) != 0) return -1;
  } else if (::stat(path.c_str(), &st) != 0) {
    throw CliError(kExitFailure, ErrnoMessage(path, "cannot open", errno));
  }
  if (S_ISDIR(st.st_mode)) throw CliError(kExitFailure, path + ": is a directory");
  return S_ISREG(st.st_mode) ? static_cast<int64_t>(st.st_size) : -1;
}

uint64_t CountLines(const std::string& path) {
  const int fd = OpenInput(path);
  constexpr size_t kBlock = size_t{1} << 20;
  std::vector<char> buf(kBlock);
  uint64_t lines = 0;
  char last = '\n';
  try {
    for (;;) {
      const size_t n = ReadSome(fd, buf.data(), kBlock, path);
      if (n == 0) break;
      const char* p = buf.data();
      const char* end = p + n;
      while ((p = static_cast<const char*>(std::memchr(p, '\n', end - p))) != nullptr) {
        ++lines;
        ++p;
      }
      last = buf[n - 1];
    }
  } catch (...) {
    if (fd != 0) ::close(fd);
    throw;
  }
  if (fd != 0) ::close(fd);
  return lines + (last != '\n' ? 1 : 0);
}

LineReader::LineReader(const std::string& path, bool strip_cr, size_t block_bytes)
    : path_(path), strip_cr_(strip_cr), cap_(block_bytes) {
  fd_ = OpenInput(path);
  owns_fd_ = fd_ != 0;
  buf_ = static_cast<char*>(std::malloc(cap_));
  if (buf_ == nullptr) {
    if (owns_fd_) ::close(fd_);
    throw std::bad_alloc();
  }
}

LineReader::~LineReader() {
  if (owns_fd_) ::close(fd_);
  std::free(buf_);
}

bool LineReader::Fill() {
  if (eof_) return false;
  if (pos_ > 0) {  // keep the unconsumed tail (a partial line) at the front
    std::memmove(buf_, buf_ + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == cap_) {  // one line longer than the buffer: grow (memory follows the longest line)
    char* bigger = static_cast<char*>(std::realloc(buf_, cap_ * 2));
    if (bigger == nullptr) throw std::bad_alloc();
    buf_ = bigger;
    cap_ *= 2;
  }
  const size_t n = ReadSome(fd_, buf_ + end_, cap_ - end_, path_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool LineReader::Next(std::vector<std::string_view>& lines, size_t max_lines) {
  lines.clear();
  size_t scan = pos_;  // bytes before `scan` hold no newline of the current partial line
  while (lines.size() < max_lines) {
    const char* nl = static_cast<const char*>(std::memchr(buf_ + scan, '\n', end_ - scan));
    if (nl == nullptr) {
      if (!lines.empty()) break;  // hand these out before moving the buffer
      const size_t scanned = scan - pos_;
      if (Fill()) {
        scan = pos_ + scanned;
        continue;
      }
      if (pos_ == end_) return false;  // end of input, nothing left
      nl = buf_ + end_;                // final line without a newline
    }
    const char* begin = buf_ + pos_;
    size_t len = static_cast<size_t>(nl - begin);
    const size_t consumed = len + (nl < buf_ + end_ ? 1 : 0);
    if (strip_cr_ && len > 0 && begin[len - 1] == '\r') --len;
    lines.emplace_back(begin, len);
    pos_ += consumed;
    bytes_done_ += consumed;
    scan = pos_;
  }
  return true;
}

Writer::~Writer() {
  try {
    Flush();
  } catch (...) {
    // Destructors do not throw; callers that care call Flush() first.
  }
}

void Writer::Flush() {
  if (buf_.empty()) return;
  try {
    WriteAll(buf_.data(), buf_.size());
  } catch (...) {
    buf_.clear();  // a failed write is reported once, not retried by ~Writer
    throw;
  }
  buf_.clear();
}

void Writer::WriteAll(const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw CliError(kExitFailure, ErrnoMessage("(stdout)", "write error", errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

}  // namespace cli
}  // namespace simdbloom
