// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): a read-only memory mapping of a whole file, for Filter::map_file and
// CountingFilter::map_file. The mapping lives as long as its last shared_ptr (the filter made over
// it, and its moves).
#ifndef SIMDBLOOM_LIB_FORMATS_MAPPED_FILE_H_
#define SIMDBLOOM_LIB_FORMATS_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace simdbloom {
namespace detail {

class MappedFile {
 public:
  // Maps `path` read-only (PROT_READ, MAP_PRIVATE): page-aligned, so 64-byte aligned. Throws
  // Error(kIo) "WHO: cannot open PATH (reason)" for a path that is missing, unreadable, a
  // directory or not a regular file, or when mmap fails; an empty file maps to size 0 (data
  // nullptr), for the caller's format check to refuse. Cost: open, fstat, mmap: O(1), no page read.
  static std::shared_ptr<const MappedFile> Open(const std::string& path, const std::string& who);
  // Open, then a file shorter than a 64-byte header refused by bad("truncated header (N bytes)")
  // (the kind's Error(kFormat); it must throw).
  static std::shared_ptr<const MappedFile> OpenWithHeader(const std::string& path,
                                                          const std::string& who,
                                                          void (*bad)(const std::string& what)) {
    std::shared_ptr<const MappedFile> file = Open(path, who);
    if (file->size() < 64) bad("truncated header (" + std::to_string(file->size()) + " bytes)");
    return file;
  }
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const noexcept { return data_; }
  size_t size() const noexcept { return size_; }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_FORMATS_MAPPED_FILE_H_
