// SPDX-License-Identifier: Apache-2.0
// Thrift compact protocol reader for Parquet footers (see parquet_footer.h).
#include "lib/cli/parquet_footer.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>

#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace cli {
namespace {

// Thrift compact type ids.
enum : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};
constexpr int kMaxDepth = 32;

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n), begin_(p) {}
  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

  uint8_t Byte() {
    if (p_ == end_) Fail("footer ends inside a value");
    return *p_++;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = Byte();
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Fail("varint longer than 10 bytes");
  }
  int64_t Zigzag() {
    const uint64_t v = Varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  int32_t I32() {
    const int64_t v = Zigzag();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      Fail("i32 field out of range");
    }
    return static_cast<int32_t>(v);
  }
  std::string Binary() {
    const uint64_t n = Varint();
    if (n > left()) Fail("string length past the end of the footer");
    std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return s;
  }
  // Reads a field header; returns false at STOP. `id` carries the previous field id in and the
  // new one out (compact protocol field ids are deltas).
  bool Field(int16_t& id, uint8_t& type) {
    const uint8_t b = Byte();
    type = b & 0x0f;
    if (type == kStop) return false;
    const uint8_t delta = b >> 4;
    if (delta != 0) {
      id = static_cast<int16_t>(id + delta);
    } else {
      const int64_t v = Zigzag();
      if (v < std::numeric_limits<int16_t>::min() || v > std::numeric_limits<int16_t>::max()) {
        Fail("field id out of range");
      }
      id = static_cast<int16_t>(v);
    }
    if (type > kStruct) Fail("unknown Thrift type " + std::to_string(type));
    return true;
  }
  // A list or set header: element count (checked: every element takes at least one byte) and
  // element type.
  uint64_t ListHeader(uint8_t& elem) {
    const uint8_t b = Byte();
    elem = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15) n = Varint();
    if (n > left()) Fail("list of " + std::to_string(n) + " elements past the end of the footer");
    if (n > 0 && (elem == kStop || elem > kStruct)) Fail("bad list element type");
    return n;
  }
  // A list header whose elements must be of type `want` (else Fail("WHAT")): the element count.
  uint64_t ListOf(uint8_t want, const char* what) {
    uint8_t elem;
    const uint64_t n = ListHeader(elem);
    if (n > 0 && elem != want) Fail(what);
    return n;
  }
  void Skip(uint8_t type, int depth) {
    if (depth > kMaxDepth) Fail("Thrift nesting deeper than 32");
    switch (type) {
      case kTrue:
      case kFalse:
        return;
      case kI8:
        Byte();
        return;
      case kI16:
      case kI32:
      case kI64:
        Varint();
        return;
      case kDouble:
        if (left() < 8) Fail("footer ends inside a double");
        p_ += 8;
        return;
      case kBinary: {
        const uint64_t n = Varint();
        if (n > left()) Fail("string length past the end of the footer");
        p_ += n;
        return;
      }
      case kList:
      case kSet: {
        uint8_t elem;
        const uint64_t n = ListHeader(elem);
        for (uint64_t i = 0; i < n; ++i) {
          if (elem == kTrue || elem == kFalse) {
            Byte();  // booleans inside collections are one byte each
          } else {
            Skip(elem, depth + 1);
          }
        }
        return;
      }
      case kMap: {
        const uint64_t n = Varint();
        if (n == 0) return;
        if (n > left()) Fail("map past the end of the footer");
        const uint8_t kv = Byte();
        const uint8_t kt = kv >> 4, vt = kv & 0x0f;
        if (kt == kStop || kt > kStruct || vt == kStop || vt > kStruct) Fail("bad map types");
        for (uint64_t i = 0; i < n; ++i) {
          for (const uint8_t t : {kt, vt}) {
            if (t == kTrue || t == kFalse) {
              Byte();
            } else {
              Skip(t, depth + 1);
            }
          }
        }
        return;
      }
      case kStruct: {
        int16_t id = 0;
        uint8_t t;
        while (Field(id, t)) Skip(t, depth + 1);
        return;
      }
      default:
        Fail("unknown Thrift type " + std::to_string(type));
    }
  }
  [[noreturn]] void Fail(const std::string& what) const {
    throw ParquetError("bad footer (Thrift compact) at byte " + std::to_string(consumed()) + ": " +
                       what);
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
};

bool IsInt(uint8_t t) { return t == kI8 || t == kI16 || t == kI32 || t == kI64; }

// Reads the fields of a struct at `depth`: read(id, type) reads those it knows and says so
// (true); the others are skipped.
template <class Read>
void ReadFields(Reader& r, int depth, const Read& read) {
  int16_t id = 0;
  uint8_t t;
  while (r.Field(id, t)) {
    if (!read(id, t)) r.Skip(t, depth + 1);
  }
}

ParquetColumnChunk ParseColumnMetaData(Reader& r, int depth) {
  ParquetColumnChunk c;
  ReadFields(r, depth, [&](int16_t id, uint8_t t) {
    if (id == 1 && t == kI32) {
      const int32_t v = r.I32();
      c.type = v >= 0 && v <= 7 ? static_cast<ParquetType>(v) : ParquetType::kUnknown;
      return true;
    }
    if (id == 3 && t == kList) {
      const uint64_t n = r.ListOf(kBinary, "path_in_schema is not a list of strings");
      for (uint64_t i = 0; i < n; ++i) {
        if (i > 0) c.path += '.';
        c.path += r.Binary();
      }
      return true;
    }
    if (id == 14 && IsInt(t)) {
      c.bloom_offset = r.Zigzag();
      if (c.bloom_offset < 0) r.Fail("negative bloom_filter_offset");
      return true;
    }
    if (id == 15 && IsInt(t)) {
      c.bloom_length = r.I32();
      if (c.bloom_length < 0) r.Fail("negative bloom_filter_length");
      return true;
    }
    return false;
  });
  return c;
}

ParquetColumnChunk ParseColumnChunk(Reader& r, int depth) {
  ParquetColumnChunk c;
  bool external = false;
  ReadFields(r, depth, [&](int16_t id, uint8_t t) {
    if (id == 1 && t == kBinary) {
      external = !r.Binary().empty();  // data (and filter) in another file: not followed
      return true;
    }
    if (id == 3 && t == kStruct) {
      c = ParseColumnMetaData(r, depth + 1);
      return true;
    }
    return false;
  });
  if (external) c.bloom_offset = -1;
  return c;
}

ParquetRowGroup ParseRowGroup(Reader& r, int depth) {
  ParquetRowGroup g;
  ReadFields(r, depth, [&](int16_t id, uint8_t t) {
    if (id == 1 && t == kList) {
      const uint64_t n = r.ListOf(kStruct, "row group columns are not structs");
      for (uint64_t i = 0; i < n; ++i) g.columns.push_back(ParseColumnChunk(r, depth + 1));
      return true;
    }
    if (id == 3 && IsInt(t)) {
      g.num_rows = r.Zigzag();
      return true;
    }
    return false;
  });
  return g;
}

uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

const char* ParquetTypeName(ParquetType t) {
  // Parquet's physical type ids 0..7, in order (ParquetType).
  static constexpr const char* kNames[] = {
      "BOOLEAN", "INT32",  "INT64",      "INT96",
      "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  static_assert(std::size(kNames) == static_cast<size_t>(ParquetType::kFixedLenByteArray) + 1,
                "kNames lacks a ParquetType");
  const auto i = static_cast<size_t>(static_cast<uint32_t>(t));
  return i < std::size(kNames) ? kNames[i] : "unknown type";
}

ParquetFooter ParseFileMetaData(const uint8_t* data, size_t size) {
  Reader r(data, size);
  ParquetFooter f;
  ReadFields(r, 0, [&](int16_t id, uint8_t t) {
    if (id == 3 && IsInt(t)) {
      f.num_rows = r.Zigzag();
      return true;
    }
    if (id == 4 && t == kList) {
      const uint64_t n = r.ListOf(kStruct, "row_groups is not a list of structs");
      for (uint64_t i = 0; i < n; ++i) f.row_groups.push_back(ParseRowGroup(r, 1));
      return true;
    }
    return false;
  });
  return f;
}

ParquetFooter ReadFooter(const ParquetSource& file) {
  const uint64_t size = file.size();
  if (size < 12) throw ParquetError("not a Parquet file: " + std::to_string(size) + " bytes");
  uint8_t head[4], tail[8];
  file.Read(0, 4, head);
  file.Read(size - 8, 8, tail);
  if (std::memcmp(tail + 4, "PARE", 4) == 0) {
    throw ParquetError("encrypted footer (PARE): not supported");
  }
  if (std::memcmp(head, "PAR1", 4) != 0 || std::memcmp(tail + 4, "PAR1", 4) != 0) {
    throw ParquetError("not a Parquet file (no PAR1 magic at both ends)");
  }
  const uint32_t len = LoadLe32(tail);
  if (len > size - 12) {
    throw ParquetError("footer length " + std::to_string(len) + " is past the file (" +
                       std::to_string(size) + " bytes)");
  }
  if (len > (uint32_t{256} << 20)) throw ParquetError("footer larger than 256 MiB");
  std::vector<uint8_t> footer(len);
  file.Read(size - 8 - len, len, footer.data());
  return ParseFileMetaData(footer.data(), footer.size());
}

Filter ReadBloomFilter(const ParquetSource& file, const ParquetColumnChunk& chunk) {
  const uint64_t size = file.size();
  const auto offset = static_cast<uint64_t>(chunk.bloom_offset);
  if (chunk.bloom_offset < 4 || offset >= size) {
    throw ParquetError("bloom_filter_offset " + std::to_string(chunk.bloom_offset) +
                       " is outside the file (" + std::to_string(size) + " bytes)");
  }
  uint64_t total;
  if (chunk.bloom_length > 0) {
    total = static_cast<uint64_t>(chunk.bloom_length);
    if (total > size - offset) {
      throw ParquetError("bloom filter at " + std::to_string(offset) + " of " +
                         std::to_string(total) + " bytes runs past the file");
    }
  } else {
    // No length recorded: the header says how long the bitset is.
    uint8_t head[64];
    const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof(head), size - offset));
    file.Read(offset, n, head);
    Reader r(head, n);
    int64_t num_bytes = -1;
    ReadFields(r, 0, [&](int16_t id, uint8_t t) {
      if (id != 1 || t != kI32) return false;
      num_bytes = r.I32();
      return true;
    });
    if (num_bytes <= 0) throw ParquetError("bloom filter header without a positive numBytes");
    total = r.consumed() + static_cast<uint64_t>(num_bytes);
    if (total > size - offset) {
      throw ParquetError("bloom filter at " + std::to_string(offset) + " of " +
                         std::to_string(total) + " bytes runs past the file");
    }
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(total));
  file.Read(offset, bytes.size(), bytes.data());
  return Filter::from_parquet(bytes.data(), bytes.size(), nullptr, ParquetKeyType(chunk.type));
}

KeyType ParquetKeyType(ParquetType type) {
  switch (type) {
    case ParquetType::kInt32:
      return KeyType::kInt32;
    case ParquetType::kInt64:
      return KeyType::kInt64;
    case ParquetType::kByteArray:
    case ParquetType::kFixedLenByteArray:
      return KeyType::kBytes;
    default:
      throw ParquetError(std::string("the column's type is ") + ParquetTypeName(type) +
                         ": simdbloom probes columns of INT32, INT64, BYTE_ARRAY and "
                         "FIXED_LEN_BYTE_ARRAY");
  }
}

ParquetValue ParseParquetValue(ParquetType type, const std::string& value) {
  ParquetValue v;
  if (ParquetKeyType(type) == KeyType::kBytes) {
    v.bytes = value;
    return v;
  }
  // A decimal integer: [+-]digits, nothing else (no spaces, no 0x, no exponent).
  const char* p = value.c_str();
  const bool sign = *p == '-' || *p == '+';
  v.negative = *p == '-';
  const char* digits = p + (sign ? 1 : 0);
  bool ok = *digits != '\0';
  for (const char* c = digits; ok && *c != '\0'; ++c) ok = *c >= '0' && *c <= '9';
  if (ok) {
    errno = 0;
    if (v.negative) {
      const long long x = std::strtoll(p, nullptr, 10);
      ok = errno != ERANGE;
      v.bits = static_cast<uint64_t>(static_cast<int64_t>(x));
    } else {
      const unsigned long long x = std::strtoull(digits, nullptr, 10);
      ok = errno != ERANGE;
      v.bits = static_cast<uint64_t>(x);
    }
  }
  if (!ok) {
    throw ParquetError("value '" + value + "' is not an integer (-9223372036854775808 .. " +
                       "18446744073709551615), and the column is " + ParquetTypeName(type));
  }
  v.integer = true;
  return v;
}

bool ParquetContains(const Filter& filter, const ParquetValue& value) {
  if (!value.integer) return filter.contains(std::string_view(value.bytes));
  return value.negative ? filter.contains(static_cast<int64_t>(value.bits))
                        : filter.contains(value.bits);
}

}  // namespace cli
}  // namespace simdbloom
