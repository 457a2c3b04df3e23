// SPDX-License-Identifier: Apache-2.0
// Input for the command: regular files are mapped 4 MiB window by window (MAP_POPULATE, one window
// mapped at a time, no copy), pipes and terminals read with read(2) into one reusable 4 MiB buffer;
// either is cut into lines 64 bytes at a time (SSE2 compare + bit scan on x86, a portable loop
// elsewhere). Memory is one window (grown only for a single line longer than it) plus one batch of
// line views; nothing depends on the input's size. A mapped file that shrinks while it is read
// ends the process with a message and the failure status (SIGBUS handler; 1, or what
// SetFailureStatus set), not a crash.
#ifndef SIMDBLOOM_CLI_IO_H_
#define SIMDBLOOM_CLI_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simdbloom {
namespace cli {

// The exit status of a failure the SIGBUS handler reports (a file that shrank while mapped): 1 by
// default; query sets 2 (its 1 means "no line matched").
void SetFailureStatus(int status);

// The longest key (line) any LineReader accepts, in bytes: --max-key-bytes, 256 MiB by default. A
// longer line is CliError(2) naming the input, so an endless line (/dev/zero) cannot take all
// memory: a reader holds at most about this much (twice it for a mapped file's window).
constexpr uint64_t kDefaultMaxKeyBytes = uint64_t{256} << 20;
void SetMaxKeyBytes(uint64_t bytes);

// "-" names stdin. Returns the byte size of a regular file, -1 for anything else (pipe, terminal,
// character device). Throws CliError (exit 1) for a missing or unreadable path.
int64_t RegularFileSize(const std::string& path);

// Number of lines of a regular file (`delim`-terminated, plus a final unterminated one), read in
// blocks: about the cost of `wc -l`. Throws CliError for read errors.
uint64_t CountLines(const std::string& path, char delim = '\n');

// One input, read block by block. Lines end at `delim` ('\n', or '\0' for -z/--null; not part of
// the key); a trailing '\r' stays in the key unless strip_cr. A final line without the delimiter
// is a key; an empty file has no keys.
class LineReader {
 public:
  // Opens `path` ("-" = stdin). Throws CliError naming the path if it cannot be opened or is a
  // directory. block_bytes 0: 4 MiB (or SIMDBLOOM_CLI_BLOCK_BYTES, for tests).
  LineReader(const std::string& path, bool strip_cr, size_t block_bytes = 0, char delim = '\n');
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Replaces `lines` with the next lines (at most max_lines, at least 1 unless the input is
  // finished); the views stay valid until the next call. Returns false at the end of input.
  // Throws CliError on a read error.
  bool Next(std::vector<std::string_view>& lines, size_t max_lines);
  // Limits a mapped regular file to the lines that start in [begin, limit) (a line that starts
  // before limit is read to its end), for readers that share a file among threads. Call before
  // the first Next. Throws CliError if the input is not a mapped regular file or begin is past it.
  void SetRange(uint64_t begin, uint64_t limit);
  // Whether the input is a regular file read through mappings (SetRange works).
  bool mapped() const noexcept { return mapped_; }
  uint64_t file_size() const noexcept { return file_size_; }
  // Bytes of the input consumed so far (the lines handed out, with their newlines).
  uint64_t bytes_done() const noexcept { return bytes_done_; }
  const std::string& path() const noexcept { return path_; }

 private:
  // Makes more input follow the unconsumed tail [pos_, end_) (moved or remapped so it stays
  // contiguous); false at the end of input.
  bool Fill();
  bool FillMapped();
  bool NextImpl(std::vector<std::string_view>& lines, size_t max_lines);
  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool strip_cr_ = false;
  char delim_ = '\n';
  bool eof_ = false;
  bool done_ = false;        // the range's last line was handed out
  bool skip_first_ = false;  // the range starts inside a line: drop that part
  uint64_t limit_ = UINT64_MAX;
  bool mapped_ = false;
  const char* data_ = nullptr;  // the bytes [0, end_) being cut: buf_ or the mapped window
  char* buf_ = nullptr;         // read(2) mode
  size_t cap_ = 0;
  void* map_base_ = nullptr;  // mmap mode: file bytes [map_off_, map_off_ + map_len_)
  size_t map_len_ = 0;
  uint64_t map_off_ = 0;
  uint64_t file_size_ = 0;
  size_t window_ = 0;
  size_t pos_ = 0;  // first unconsumed byte
  size_t end_ = 0;  // one past the last byte read
  uint64_t bytes_done_ = 0;
};

// Buffered writer to a file descriptor (stdout): write(2) in 1 MiB chunks, no stdio. Line() ends
// each key with `delim` ('\n', or '\0' for -z/--null).
class Writer {
 public:
  explicit Writer(int fd, char delim = '\n') : fd_(fd), delim_(delim) { buf_.reserve(kCapacity); }
  ~Writer();
  void Line(std::string_view s) {
    if (buf_.size() + s.size() + 1 > kCapacity) Flush();
    if (s.size() + 1 > kCapacity) {
      WriteAll(s.data(), s.size());
      WriteAll(&delim_, 1);
      return;
    }
    buf_.append(s.data(), s.size());
    buf_.push_back(delim_);
  }
  void Text(std::string_view s) {
    if (buf_.size() + s.size() > kCapacity) Flush();
    if (s.size() > kCapacity) return WriteAll(s.data(), s.size());
    buf_.append(s.data(), s.size());
  }
  // Throws CliError (exit 1) if the descriptor fails (e.g. disk full).
  void Flush();

 private:
  static constexpr size_t kCapacity = size_t{1} << 20;
  void WriteAll(const char* p, size_t n);
  int fd_;
  char delim_;
  std::string buf_;
};

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_IO_H_
