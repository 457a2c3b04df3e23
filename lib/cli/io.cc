// SPDX-License-Identifier: Apache-2.0
// Block reads and line cutting for the command (see io.h).
#include "lib/cli/io.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "lib/cli/error.h"

#if defined(__SSE2__) && !defined(SIMDBLOOM_CLI_PORTABLE)
#include <emmintrin.h>
#endif

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

namespace {

// Delimiters in [p, p + n).
uint64_t CountNewlines(const char* p, size_t n, char delim) {
  uint64_t count = 0;
  size_t i = 0;
#if defined(__SSE2__) && !defined(SIMDBLOOM_CLI_PORTABLE)
  // Byte counters (a compare gives -1 per match) summed into u64 lanes every 255 rounds.
  const __m128i nl = _mm_set1_epi8(delim), zero = _mm_setzero_si128();
  while (i + 16 <= n) {
    __m128i acc = zero;
    const size_t rounds = std::min<size_t>(255, (n - i) / 16);
    for (size_t r = 0; r < rounds; ++r, i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
    }
    const __m128i sums = _mm_sad_epu8(acc, zero);
    count += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < n; ++i) count += p[i] == delim;
  return count;
}

}  // namespace

uint64_t CountLines(const std::string& path, char delim) {
  const int fd = OpenInput(path);
  uint64_t lines = 0;
  char last = delim;
  struct stat st;
  try {
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      // Mapped 4 MiB at a time (no copy; one window resident).
      const auto size = static_cast<uint64_t>(st.st_size);
      constexpr uint64_t kWindow = uint64_t{4} << 20;
      for (uint64_t off = 0; off < size; off += kWindow) {
        const auto len = static_cast<size_t>(std::min(kWindow, size - off));
        void* m = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
                         static_cast<off_t>(off));
        if (m == MAP_FAILED) throw CliError(kExitFailure, ErrnoMessage(path, "cannot map", errno));
        ::madvise(m, len, MADV_SEQUENTIAL);
        lines += CountNewlines(static_cast<const char*>(m), len, delim);
        last = static_cast<const char*>(m)[len - 1];
        ::munmap(m, len);
      }
    } else {
      constexpr size_t kBlock = size_t{1} << 20;
      std::vector<char> buf(kBlock);
      for (;;) {
        const size_t n = ReadSome(fd, buf.data(), kBlock, path);
        if (n == 0) break;
        lines += CountNewlines(buf.data(), n, delim);
        last = buf[n - 1];
      }
    }
  } catch (...) {
    if (fd != 0) ::close(fd);
    throw;
  }
  if (fd != 0) ::close(fd);
  return lines + (last != delim ? 1 : 0);
}

namespace {

// Bit i set iff p[i] == delim ('\n' or '\0'), for the 64 bytes at p (all readable).
#if defined(__SSE2__) && !defined(SIMDBLOOM_CLI_PORTABLE)
inline uint64_t NewlineMask(const char* p, char delim) {
  const __m128i nl = _mm_set1_epi8(delim);
  uint64_t m = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    m |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl))))
         << (16 * i);
  }
  return m;
}
#else
// Portable form (aarch64 and others); compilers vectorize the compare.
inline uint64_t NewlineMask(const char* p, char delim) {
  uint64_t m = 0;
  for (int i = 0; i < 64; ++i) m |= static_cast<uint64_t>(p[i] == delim) << i;
  return m;
}
#endif

#if defined(__GNUC__)
#define SIMDBLOOM_CLI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SIMDBLOOM_CLI_UNLIKELY(x) (x)
#endif

inline unsigned LowestBit(uint64_t m) { return static_cast<unsigned>(__builtin_ctzll(m)); }

// The mapped file being read, for the SIGBUS handler: a file that shrinks under its mapping
// ends the process with a message instead of a crash.
char g_mapped_path[1024];
volatile sig_atomic_t g_failure_status = kExitFailure;

extern "C" void OnSigbus(int) {
  const char head[] = "simdbloom: ";
  const char tail[] = ": the file shrank while it was being read\n";
  (void)!::write(2, head, sizeof(head) - 1);
  (void)!::write(2, g_mapped_path, std::strlen(g_mapped_path));
  (void)!::write(2, tail, sizeof(tail) - 1);
  ::_exit(g_failure_status);
}

size_t PageSize() {
  const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<size_t>(p) : 4096;
}

}  // namespace

void SetFailureStatus(int status) { g_failure_status = status; }

namespace {
uint64_t g_max_key_bytes = kDefaultMaxKeyBytes;

[[noreturn]] void KeyTooLong(const std::string& path) {
  throw CliError(kExitUsage, Shown(path) + ": a key longer than " +
                                 std::to_string(g_max_key_bytes) +
                                 " bytes (--max-key-bytes N raises the limit)");
}
}  // namespace

void SetMaxKeyBytes(uint64_t bytes) { g_max_key_bytes = bytes; }

size_t DefaultBlockBytes() {
  // SIMDBLOOM_CLI_BLOCK_BYTES (tests only): small blocks put window and buffer edges inside
  // small inputs.
  const char* env = std::getenv("SIMDBLOOM_CLI_BLOCK_BYTES");
  const long long v = env != nullptr ? std::atoll(env) : 0;
  return v >= 16 ? static_cast<size_t>(v) : size_t{4} << 20;
}

LineReader::LineReader(const std::string& path, bool strip_cr, size_t block_bytes, char delim)
    : path_(path), strip_cr_(strip_cr), delim_(delim) {
  if (block_bytes == 0) block_bytes = DefaultBlockBytes();
  cap_ = window_ = block_bytes;
  fd_ = OpenInput(path);
  owns_fd_ = fd_ != 0;
  struct stat st;
  if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    // A regular file is mapped window by window (no copy into a buffer, only one window resident).
    mapped_ = true;
    file_size_ = static_cast<uint64_t>(st.st_size);
    std::snprintf(g_mapped_path, sizeof(g_mapped_path), "%s", path.c_str());
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = OnSigbus;
    ::sigaction(SIGBUS, &sa, nullptr);
    return;
  }
  buf_ = static_cast<char*>(std::malloc(cap_));
  if (buf_ == nullptr) {
    if (owns_fd_) ::close(fd_);
    throw std::bad_alloc();
  }
  data_ = buf_;
}

LineReader::~LineReader() {
  if (map_base_ != nullptr) ::munmap(map_base_, map_len_);
  if (owns_fd_) ::close(fd_);
  std::free(buf_);
}

bool LineReader::Fill() {
  if (mapped_) return FillMapped();
  if (eof_) return false;
  if (pos_ > 0) {  // keep the unconsumed tail (a partial line) at the front
    std::memmove(buf_, buf_ + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  if (end_ == cap_) {  // one line longer than the buffer: grow (memory follows the longest line)
    // The buffer holds a key and its delimiter: a key of g_max_key_bytes fits, a longer one not.
    if (cap_ > g_max_key_bytes) KeyTooLong(path_);
    const size_t grown =
        static_cast<size_t>(std::min<uint64_t>(uint64_t{cap_} * 2, g_max_key_bytes + 1));
    char* bigger = static_cast<char*>(std::realloc(buf_, grown));
    if (bigger == nullptr) throw std::bad_alloc();
    buf_ = bigger;
    cap_ = grown;
  }
  data_ = buf_;
  const size_t n = ReadSome(fd_, buf_ + end_, cap_ - end_, path_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool LineReader::FillMapped() {
  const uint64_t mapped_end = map_off_ + end_;
  if (mapped_end >= file_size_) return false;
  const uint64_t first = map_off_ + pos_;                       // first unconsumed byte of the file
  if (mapped_end - first > g_max_key_bytes) KeyTooLong(path_);  // a line with no end in sight
  const uint64_t start = first & ~static_cast<uint64_t>(PageSize() - 1);
  uint64_t len = std::min<uint64_t>(window_, file_size_ - start);
  while (start + len <= mapped_end) {  // a line longer than the window: map more of it
    window_ *= 2;
    len = std::min<uint64_t>(window_, file_size_ - start);
  }
  if (map_base_ != nullptr) ::munmap(map_base_, map_len_);
  map_base_ = nullptr;
  void* p = ::mmap(nullptr, static_cast<size_t>(len), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_,
                   static_cast<off_t>(start));
  if (p == MAP_FAILED) throw CliError(kExitFailure, ErrnoMessage(path_, "cannot map", errno));
  ::madvise(p, static_cast<size_t>(len), MADV_SEQUENTIAL);
  map_base_ = p;
  map_len_ = static_cast<size_t>(len);
  map_off_ = start;
  data_ = static_cast<const char*>(p);
  pos_ = static_cast<size_t>(first - start);
  end_ = map_len_;
  return true;
}

void LineReader::SetRange(uint64_t begin, uint64_t limit) {
  if (!mapped_ || map_base_ != nullptr || begin >= file_size_) {
    throw CliError(kExitFailure, path_ + ": internal error: bad line range");
  }
  map_off_ = begin;
  limit_ = limit;
  if (begin > 0) {
    char before = delim_;
    if (::pread(fd_, &before, 1, static_cast<off_t>(begin - 1)) != 1) {
      throw CliError(kExitFailure, ErrnoMessage(path_, "read error", errno));
    }
    skip_first_ = before != delim_;  // that line belongs to the range before
  }
}

bool LineReader::Next(std::vector<std::string_view>& lines, size_t max_lines) {
  if (skip_first_) {
    skip_first_ = false;
    if (!NextImpl(lines, 1)) return false;
  }
  return NextImpl(lines, max_lines);
}

bool LineReader::NextImpl(std::vector<std::string_view>& lines, size_t max_lines) {
  // The views are written through a raw pointer into a vector kept at max_lines entries between
  // calls (only the tail past the previous batch is re-initialized), and the state lives in
  // locals: this loop runs once per line.
  if (lines.size() != max_lines) lines.resize(max_lines);
  std::string_view* out = lines.data();
  size_t n = 0;
  if (done_) {
    lines.resize(0);
    return false;
  }
  const bool strip = strip_cr_;
  const char delim = delim_;
  const uint64_t max_key = g_max_key_bytes;
  const char* data = data_;
  size_t start = pos_;  // pos_ when this call began (bytes_done_ counts from it)
  size_t line = pos_;   // start of the current line
  size_t chunk = pos_;  // next byte to look at
  // Lines starting at or after `stop` (an index into data_) belong to the next range. A window
  // mapped past the limit (the line after the range's last one is longer than the window) has
  // no line of the range left: 0, not a wrapped difference.
  auto stop_index = [&] {
    if (limit_ == UINT64_MAX) return SIZE_MAX;
    return limit_ <= map_off_ ? size_t{0} : static_cast<size_t>(limit_ - map_off_);
  };
  size_t stop = stop_index();
  bool full = false;
  // Hands out the line ending at `nl`; false when the batch is full or the range is done.
  auto emit = [&](size_t nl) {
    if (SIMDBLOOM_CLI_UNLIKELY(line >= stop)) {
      done_ = true;
      return false;
    }
    size_t len = nl - line;
    if (SIMDBLOOM_CLI_UNLIKELY(len > max_key)) KeyTooLong(path_);
    if (strip && len > 0 && data[line + len - 1] == '\r') --len;
    out[n++] = std::string_view(data + line, len);
    line = nl + 1;
    return n < max_lines;
  };
  for (;;) {
    if (chunk + 64 <= end_) {
      uint64_t m = NewlineMask(data + chunk, delim);
      while (m != 0) {
        if (!emit(chunk + LowestBit(m))) {
          full = true;
          break;
        }
        m &= m - 1;
      }
      if (full) break;
      chunk += 64;
      continue;
    }
    const void* nl = chunk < end_ ? std::memchr(data + chunk, delim, end_ - chunk) : nullptr;
    if (nl != nullptr) {
      if (!emit(static_cast<size_t>(static_cast<const char*>(nl) - data))) break;
      chunk = line;
      continue;
    }
    if (n > 0) break;    // hand these out before the buffer moves
    if (line >= stop) {  // the next line belongs to the next range: do not map it
      done_ = true;
      break;
    }
    const size_t scanned = end_ - pos_;
    const bool more = Fill();  // [pos_, end_) is the same partial line, maybe moved
    data = data_;
    start = line = pos_;
    stop = stop_index();
    if (more) {
      chunk = pos_ + scanned;
      continue;
    }
    if (pos_ == end_) {  // end of input
      lines.resize(0);
      return false;
    }
    emit(end_);              // a final line without a newline (n is 0 here)
    if (n > 0) line = end_;  // emit set line past it; unless the range had ended
    break;
  }
  lines.resize(n);
  if (n == 0) return false;  // the range ended before any line
  bytes_done_ += line - start;
  pos_ = line;
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
