// SPDX-License-Identifier: Apache-2.0
// Parquet footers: just enough of the Thrift compact protocol to walk FileMetaData -> row_groups
// -> columns -> meta_data (path_in_schema, type, bloom_filter_offset/length), and to read each
// row group's split-block Bloom filter through Filter::from_parquet. Everything read from the file
// is untrusted: lengths, offsets, list sizes and nesting are checked against the bytes present, and
// any inconsistency is a ParquetError (never a crash or an over-read; fuzzed by
// tests/fuzz/fuzz_parquet.cc).
#ifndef SIMDBLOOM_CLI_PARQUET_FOOTER_H_
#define SIMDBLOOM_CLI_PARQUET_FOOTER_H_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace simdbloom {
class Filter;
enum class KeyType : uint8_t;
namespace cli {

class ParquetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parquet physical types (parquet.thrift, enum Type).
enum class ParquetType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
  kUnknown = -1,
};
const char* ParquetTypeName(ParquetType t);

struct ParquetColumnChunk {
  std::string path;  // path_in_schema joined with '.'
  ParquetType type = ParquetType::kUnknown;
  int64_t bloom_offset = -1;  // -1: no Bloom filter
  int32_t bloom_length = -1;  // -1: not recorded (the header says how long the filter is)
};

struct ParquetRowGroup {
  int64_t num_rows = 0;
  std::vector<ParquetColumnChunk> columns;
};

struct ParquetFooter {
  int64_t num_rows = 0;
  std::vector<ParquetRowGroup> row_groups;
};

// Random access to a Parquet file's bytes.
class ParquetSource {
 public:
  virtual ~ParquetSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly n bytes at offset (the caller has checked offset + n <= size()); throws
  // ParquetError on a short read.
  virtual void Read(uint64_t offset, size_t n, uint8_t* out) const = 0;
};

// Parses the FileMetaData Thrift struct held in [data, data + size). O(size), allocates the
// result. Throws ParquetError.
ParquetFooter ParseFileMetaData(const uint8_t* data, size_t size);

// Checks the magic at both ends, reads the footer length and the footer, and parses it. Footers
// above 256 MiB are refused. Throws ParquetError.
ParquetFooter ReadFooter(const ParquetSource& file);

// What the Bloom filter of a column of `type` holds (the library's KeyType, FORMAT.md "Keys"):
// INT32 -> kInt32, INT64 -> kInt64, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY -> kBytes. Throws
// ParquetError naming the type for any other (BOOLEAN, INT96, FLOAT, DOUBLE: not probed).
KeyType ParquetKeyType(ParquetType type);

// Reads the Bloom filter of `chunk` (which must have one): its BloomFilterHeader, then the
// bitset, every offset and length checked against the file; the filter holds the column's key
// type (ParquetKeyType). Throws ParquetError, and simdbloom::Error(kFormat) from
// Filter::from_parquet for a malformed filter header.
Filter ReadBloomFilter(const ParquetSource& file, const ParquetColumnChunk& chunk);

// A value to probe a column of `type` with, from the command line: for INT32 and INT64 a decimal
// integer (an optional sign, digits; -2^63 .. 2^64 - 1), probed by value as the library's
// integers (an INT32 column's filter answers a value outside -2^31 .. 2^32 - 1 absent); for
// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY the text's bytes. Throws ParquetError for a value that is
// not an integer of an integer column, and as ParquetKeyType for other types.
struct ParquetValue {
  bool integer = false;
  bool negative = false;  // integer: `bits` is an int64_t's (else a uint64_t's)
  uint64_t bits = 0;
  std::string bytes;  // not integer
};
ParquetValue ParseParquetValue(ParquetType type, const std::string& value);

// Whether the filter may hold the value. Throws the library's KeyTypeError if they differ in kind.
bool ParquetContains(const Filter& filter, const ParquetValue& value);

}  // namespace cli
}  // namespace simdbloom

#endif  // SIMDBLOOM_CLI_PARQUET_FOOTER_H_
