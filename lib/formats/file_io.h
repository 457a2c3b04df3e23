// SPDX-License-Identifier: Apache-2.0
// Internal: what the file formats of Filter, CountingFilter, ScalableFilter, SpatialFilter and the
// shifting set filters share: little-endian fields (FORMAT.md: every integer is little-endian,
// whatever the host) and files opened for save_file/load_file with the same errors. (The header
// fields every kind shares: lib/formats/kinds.h.)
#ifndef SIMDBLOOM_LIB_FORMATS_FILE_IO_H_
#define SIMDBLOOM_LIB_FORMATS_FILE_IO_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <utility>

#include "kernels/scalar/hash.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

inline void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{p[i]} << (8 * i);
  return v;
}
inline uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

// The bytes a view() is made over: not null, 64-byte aligned (mmap gives page alignment), `size`
// bytes within the address space; else Error(kInvalidArgument) "WHO: ...". O(1).
void CheckViewBytes(const std::string& who, const uint8_t* data, size_t size);

// The one save routine (file_io.cc), for every kind, the C API, Python and the command line.
// `write` streams the file's bytes; they go to an unnamed temporary file in the target's directory
// (O_TMPFILE; where the file system lacks it, or the environment variable
// SIMDBLOOM_SAVE_NAMED_TEMPORARY is 1 (for tests), a named temporary `.NAME.tmp.<hex>` removed on
// every error path), are fsync'ed, then renamed over `path`, and the directory is fsync'ed. A
// failure before the rename (a full disk, RLIMIT_FSIZE, a write error, an exception from `write`)
// leaves `path` byte-identical and no temporary, and is Error(kIo) "WHO: cannot write PATH: <errno
// text>"; a failure of the directory's fsync after it reports kIo with the new file in place. A
// kill at any moment leaves the old file (or none); with a named temporary, a kill by an uncaught
// signal can leave it (the command line removes it on SIGINT/SIGTERM/SIGHUP, see
// RemovePendingSaveTemporary), and with O_TMPFILE only a kill between the two system calls that
// name and rename a replacement can (back to back: the file is closed after the rename; a close
// that fails then reports kIo with the new file in place). What such a kill leaves is the
// complete new file under its temporary name.
// What a replacement changes: the file gets a new inode, so hard links to the old one keep the old
// bytes, and a process that maps the old file keeps reading them (no SIGBUS). It keeps the old
// permission bits, and its owner and group where the caller may set them (root, or a group the
// caller is in); ACLs and extended attributes are not copied. It needs write permission on the
// file (a read-only file is refused, as a rewrite would be) and on its directory (refused
// otherwise, with the old file intact). A file that is a mount point of its own (a single-file
// bind mount) cannot be renamed over: EBUSY, the old file intact.
// Symbolic links are followed: the file a link points to is replaced and the link kept. A path
// that names a device or a FIFO, or /dev/stdout, /dev/stderr, /dev/fd/N, is written in place
// instead (a FIFO's open waits for a reader, as open(2) does); a socket cannot be opened (ENXIO).
// Cost: one pass over the bytes through a 64 KiB buffer, two fsyncs, and room for the new file
// beside the old one until the rename.

void WriteFileAtomically(const std::string& path, const std::string& who,
                         const std::function<void(std::ostream&)>& write);

// The file a save of `path` replaces: `path` with its symbolic links followed (a dangling link
// gives the path it points to). Throws kIo for a link loop.
std::string SaveTarget(const std::string& path, const std::string& who);

// Removes the named temporary of the save in progress, if any (the fallback without O_TMPFILE):
// async-signal-safe, for a handler of SIGINT/SIGTERM/SIGHUP that then re-raises the signal.
void RemovePendingSaveTemporary() noexcept;

// save_file: `save(std::ostream&)` into `path`, atomically as above. Errors are kIo and start
// with `who` ("Filter::save_file" style prefixes are the caller's).
template <class SaveFn>
void SaveFile(const std::string& path, const std::string& who, SaveFn&& save) {
  WriteFileAtomically(path, who, std::forward<SaveFn>(save));
}

// load_file: `load(std::istream&)` over `path`. A directory opens as an ifstream (on Linux) and
// only fails when read: it is refused up front, as an I/O error like any path that names no
// readable file; an I/O error while reading names the path. Format errors pass through.
template <class LoadFn>
auto LoadFile(const std::string& path, const std::string& who, LoadFn&& load)
    -> decltype(load(std::declval<std::istream&>())) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error(ErrorCode::kIo, who + ": " + path + " is a directory");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;  // set by the open(2) under the stream
    throw Error(ErrorCode::kIo, who + ": cannot open " + path +
                                    (err != 0 ? std::string(": ") + std::strerror(err) : ""));
  }
  try {
    return std::forward<LoadFn>(load)(in);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kIo) throw;
    throw Error(ErrorCode::kIo, who + ": cannot read " + path);
  }
}

}  // namespace detail
}  // namespace simdbloom

// ---- Payloads whose size a header claims ----
// (Appended, with the includes it needs, to keep it apart from the functions above.)
#include <algorithm>  // NOLINT(build/include_order)
#include <istream>    // NOLINT(build/include_order)
#include <memory>     // NOLINT(build/include_order)
#include <vector>     // NOLINT(build/include_order)

namespace simdbloom {
namespace detail {

// A header of 64 bytes may claim gigabytes that the stream does not hold (a truncated file) or
// holds with a checksum that does not match (a sparse file of zeros, a corrupt one). Every kind's
// load(std::istream&) reads its payload with ReadPayload, which allocates the payload's memory only
// once its bytes have arrived and their checksum matched: what a claim costs before that is one
// piece of kPayloadPiece bytes, or the bytes actually received from a stream that cannot seek.
constexpr uint64_t kPayloadPiece = uint64_t{4} << 20;

// Reads the `size` payload bytes that follow in `in` into the `size` writable bytes dest() returns,
// calling dest() (which allocates them) only once every byte has arrived and their scalar::Checksum
// equals `checksum`.
// - A seekable stream (a file) is measured first: fewer bytes than claimed is truncated, nothing
//   read. It is then read in kPayloadPiece pieces through one buffer to check the checksum, and
//   read again from the same position into dest() and checked again (bytes that changed in between
//   are a mismatch, never half of another payload). The price of the bound: a second read of the
//   payload (from the page cache, for a file) and a second checksum pass.
// - Any other stream (a pipe) is kept as it arrives in pieces of kPayloadPiece bytes, so memory
//   follows the bytes received, never the claim; they are copied into dest() after the check.
// Errors: bad("truncated payload (G of S bytes)") for a stream that ends early,
// bad("payload checksum mismatch"), bad("stream cannot be measured"); `bad` must throw (the kind's
// Error(kFormat)). A stream that fails while reading (badbit) throws Error(kIo, io_what).
template <class BadFn, class DestFn>
void ReadPayload(std::istream& in, uint64_t size, uint64_t checksum, const BadFn& bad,
                 const std::string& io_what, const DestFn& dest) {
  const auto check_io = [&] {
    if (in.bad()) throw Error(ErrorCode::kIo, io_what);
  };
  const auto truncated = [&](uint64_t got) {
    check_io();
    bad("truncated payload (" + std::to_string(got) + " of " + std::to_string(size) + " bytes)");
  };
  // Reads `size` bytes in pieces, calling take(piece, n) after each; false if the stream ended.
  const auto read_pieces = [&](char* buffer, bool advance, auto&& take) {
    for (uint64_t got = 0; got < size;) {
      const uint64_t want = std::min(kPayloadPiece, size - got);
      char* at = advance ? buffer + got : buffer;
      in.read(at, static_cast<std::streamsize>(want));
      const uint64_t n = static_cast<uint64_t>(in.gcount());
      got += n;
      if (n != want) truncated(got);
      take(at, n);
    }
  };
  const std::istream::pos_type start = in.tellg();
  if (start != std::istream::pos_type(-1)) {
    in.seekg(0, std::ios::end);
    const std::istream::pos_type end = in.tellg();
    in.seekg(start);
    if (end == std::istream::pos_type(-1) || !in) bad("stream cannot be measured");
    const uint64_t available = end > start ? static_cast<uint64_t>(end - start) : 0;
    if (available < size) truncated(available);
    {
      std::unique_ptr<char[]> piece(new char[std::max<uint64_t>(1, std::min(kPayloadPiece, size))]);
      scalar::ChecksumStream sum;
      read_pieces(piece.get(), false, [&](const char* p, uint64_t n) { sum.Update(p, n); });
      if (sum.Digest() != checksum) bad("payload checksum mismatch");
    }
    in.seekg(start);
    if (!in) bad("stream cannot be measured");
    char* dst = reinterpret_cast<char*>(dest());
    read_pieces(dst, true, [](const char*, uint64_t) {});
    if (scalar::Checksum(dst, size) != checksum) bad("payload checksum mismatch");
    return;
  }
  std::vector<std::unique_ptr<char[]>> pieces;
  scalar::ChecksumStream sum;
  for (uint64_t got = 0; got < size;) {
    const uint64_t want = std::min(kPayloadPiece, size - got);
    std::unique_ptr<char[]> piece(new char[want]);
    pieces.push_back(std::move(piece));
    in.read(pieces.back().get(), static_cast<std::streamsize>(want));
    const uint64_t n = static_cast<uint64_t>(in.gcount());
    got += n;
    if (n != want) truncated(got);
    sum.Update(pieces.back().get(), n);
  }
  if (sum.Digest() != checksum) bad("payload checksum mismatch");
  char* dst = reinterpret_cast<char*>(dest());
  uint64_t at = 0;
  for (std::unique_ptr<char[]>& piece : pieces) {
    const uint64_t n = std::min(kPayloadPiece, size - at);
    std::memcpy(dst + at, piece.get(), n);
    piece.reset();
    at += n;
  }
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_FORMATS_FILE_IO_H_
