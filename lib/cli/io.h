// Input for the command: files (or stdin) read in large blocks with read(2) into one reusable
// buffer and cut into lines. Memory is the buffer (4 MiB, grown only for a single line longer
// than it) plus one batch of line views; nothing depends on the input's size.
#ifndef SIMDBLOOM_CLI_IO_H_
#define SIMDBLOOM_CLI_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simdbloom {
namespace cli {

// "-" names stdin. Returns the byte size of a regular file, -1 for anything else (pipe, terminal,
// character device). Throws CliError (exit 1) for a missing or unreadable path.
int64_t RegularFileSize(const std::string& path);

// Number of lines of a regular file ("\n"-terminated, plus a final unterminated one), read in
// blocks with memchr: about the cost of `wc -l`. Throws CliError for read errors.
uint64_t CountLines(const std::string& path);

// One input, read block by block. Lines end at '\n' (not part of the key); a trailing '\r' stays
// in the key unless strip_cr. A final line without '\n' is a key; an empty file has no keys.
class LineReader {
 public:
  // Opens `path` ("-" = stdin). Throws CliError naming the path if it cannot be opened or is a
  // directory.
  LineReader(const std::string& path, bool strip_cr, size_t block_bytes = size_t{4} << 20);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Replaces `lines` with the next lines (at most max_lines, at least 1 unless the input is
  // finished); the views stay valid until the next call. Returns false at the end of input.
  // Throws CliError on a read error.
  bool Next(std::vector<std::string_view>& lines, size_t max_lines);
  // Bytes of the input consumed so far (the lines handed out, with their newlines).
  uint64_t bytes_done() const noexcept { return bytes_done_; }
  const std::string& path() const noexcept { return path_; }

 private:
  bool Fill();  // reads more input after moving the unconsumed tail to the front; false at EOF
  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool strip_cr_ = false;
  bool eof_ = false;
  char* buf_ = nullptr;
  size_t cap_ = 0;
  size_t pos_ = 0;  // first unconsumed byte
  size_t end_ = 0;  // one past the last byte read
  uint64_t bytes_done_ = 0;
};

// Buffered writer to a file descriptor (stdout): write(2) in 1 MiB chunks, no stdio.
class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) { buf_.reserve(kCapacity); }
  ~Writer();
  void Line(std::string_view s) {
    if (buf_.size() + s.size() + 1 > kCapacity) Flush();
    if (s.size() + 1 > kCapacity) {
      WriteAll(s.data(), s.size());
      WriteAll("\n", 1);
      return;
    }
    buf_.append(s.data(), s.size());
    buf_.push_back('\n');
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
  std::string buf_;
};

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_IO_H_
