// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the `simdbloom parquet` footer reader (lib/cli/parquet_footer.cc): the
// input is a whole Parquet file held in memory. Reading its footer, every column chunk's Bloom
// filter and probing it must either work or throw ParquetError / simdbloom::Error; never crash,
// hang or read out of bounds (ASan/UBSan). Built by cmake/fuzz.sh.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lib/cli/parquet_footer.h"
#include "simdbloom/simdbloom.hpp"

namespace {

class MemorySource : public simdbloom::cli::ParquetSource {
 public:
  MemorySource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t size() const override { return size_; }
  void Read(uint64_t offset, size_t n, uint8_t* out) const override {
    // The reader promises offset + n <= size(); a broken promise is a finding.
    if (offset > size_ || n > size_ - offset) std::abort();
    if (n > 0) std::memcpy(out, data_ + offset, n);
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simdbloom::cli;
  const MemorySource file(data, size);
  try {
    const ParquetFooter footer = ReadFooter(file);
    for (const auto& group : footer.row_groups) {
      for (const auto& chunk : group.columns) {
        if (chunk.bloom_offset < 0) continue;
        try {
          const simdbloom::Filter f = ReadBloomFilter(file, chunk);
          // A value of the column's type (the filter holds it: ParquetKeyType).
          (void)ParquetContains(f, ParseParquetValue(chunk.type, "12"));
        } catch (const ParquetError&) {
        } catch (const simdbloom::Error&) {
        }
      }
    }
  } catch (const ParquetError&) {
    // The documented outcome for a malformed file.
  }
  // The Thrift parser alone, over the raw bytes (no magic or length framing in the way).
  try {
    (void)ParseFileMetaData(data, size);
  } catch (const ParquetError&) {
  }
  return 0;
}
