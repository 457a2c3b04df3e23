// SPDX-License-Identifier: Apache-2.0
#include "lib/formats/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

std::shared_ptr<const MappedFile> MappedFile::Open(const std::string& path,
                                                   const std::string& who) {
  auto fail = [&](const char* what, int err) {
    throw Error(ErrorCode::kIo,
                who + ": cannot " + what + " " + path + " (" + std::strerror(err) + ")");
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) fail("open", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    fail("stat", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::kIo, who + ": " + path + " is not a regular file (a mapping needs one)");
  }
  const auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    // A file of /proc or /sys says size 0 yet has bytes: there is nothing to map. (A truly empty
    // file maps to size 0 for the caller's "truncated header".)
    char c;
    if (::read(fd, &c, 1) > 0) {
      ::close(fd);
      throw Error(ErrorCode::kIo, who + ": " + path +
                                      " is not a regular file (its size is 0 but it has bytes, "
                                      "as in /proc: a mapping needs a regular file)");
    }
  }
  void* p = nullptr;
  if (size != 0) {
    p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      fail("map", err);
    }
  }
  ::close(fd);  // the mapping keeps the file
  try {
    return std::shared_ptr<const MappedFile>(new MappedFile(static_cast<const uint8_t*>(p), size));
  } catch (...) {
    if (p != nullptr) ::munmap(p, size);
    throw Error(ErrorCode::kOutOfMemory, who + ": out of memory");
  }
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace detail
}  // namespace simdbloom
