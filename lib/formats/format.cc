// SPDX-License-Identifier: Apache-2.0
// Persistence: the simdbloom file format (lib/FORMAT.md, "File format") and Parquet's split block
// Bloom filter form. Every field of untrusted input is validated before it is used; reads never
// go past the given size.

#include <algorithm>
#include <cstring>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "kernels/scalar/hash.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/formats/file_io.h"
#include "lib/formats/kinds.h"
#include "lib/formats/mapped_file.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

using detail::GetU32, detail::GetU64, detail::PutU32, detail::PutU64;  // file_io.h

constexpr size_t kHeaderSize = 64;
constexpr uint32_t kFormatVersion = detail::FileKindOf(detail::FileKindId::kPlain).version;
using detail::kHashMurmur3, detail::kHashXxh3, detail::kHashXxh64;  // kinds.h

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "not a valid simdbloom filter: " + what);
}

// A stream whose read failed (badbit: e.g. EISDIR, EIO) is an I/O error, not short input.
void CheckReadable(const std::istream& in) {
  if (in.bad()) throw Error(ErrorCode::kIo, "load: the stream failed while reading");
}

uint8_t HashIdOf(Layout layout) {
  if (detail::InfoOf(layout)->murmur128) return kHashMurmur3;
  return detail::UsesXxh64(layout) ? kHashXxh64 : kHashXxh3;
}

// The fields of a header, validated.
struct Header {
  Layout layout;
  uint32_t k;
  uint64_t num_blocks;
  uint64_t seed;
  uint64_t inserted;
  uint64_t checksum;
  uint64_t payload_bytes;
  KeyType key_type;
};

void EncodeHeader(const Filter& f, uint64_t checksum, uint8_t* h) {
  detail::BeginHeader(h, detail::FileKindId::kPlain, kFormatVersion);
  h[16] = static_cast<uint8_t>(f.layout());
  h[17] = HashIdOf(f.layout());
  h[18] = static_cast<uint8_t>(f.key_type());
  PutU32(h + 20, f.num_hashes());
  PutU64(h + 24, f.num_blocks());
  PutU64(h + 32, f.seed());
  PutU64(h + 40, f.inserted_count());
  detail::SealHeader(h, checksum);
}

// Validates the 64 header bytes (not the payload); `available` = bytes that follow the header.
Header DecodeHeader(const uint8_t* h, uint64_t available) {
  detail::CheckHeaderStart(h, detail::FileKindId::kPlain, /*header_checksum=*/true, Bad);
  Header out;
  out.layout = static_cast<Layout>(h[16]);
  if (!detail::KnownLayout(out.layout)) Bad("unknown layout " + std::to_string(h[16]));
  if (h[17] != HashIdOf(out.layout)) Bad("hash id " + std::to_string(h[17]) + " for this layout");
  if (!detail::KeyTypeFromByte(h[18], &out.key_type)) Bad("key type " + std::to_string(h[18]));
  if (h[19] != 0) Bad("reserved byte is not zero");
  out.k = GetU32(h + 20);
  if (out.k < detail::MinK(out.layout) || out.k > detail::MaxK(out.layout)) {
    Bad("k = " + std::to_string(out.k) + " for " + layout_name(out.layout));
  }
  out.num_blocks = GetU64(h + 24);
  if (out.num_blocks == 0 || out.num_blocks > detail::kMaxBlocks) {
    Bad("block count " + std::to_string(out.num_blocks));
  }
  out.seed = GetU64(h + 32);
  if (detail::InfoOf(out.layout)->murmur128) {  // Guava's limits (lib/FORMAT.md)
    if (out.num_blocks > detail::kMaxGuavaLongs) {
      Bad("block count " + std::to_string(out.num_blocks) + " for " + layout_name(out.layout));
    }
  }
  out.inserted = GetU64(h + 40);
  out.checksum = GetU64(h + 48);
  out.payload_bytes = out.num_blocks * (block_bits(out.layout) / 8);
  if (out.payload_bytes != available) {
    Bad("payload of " + std::to_string(available) + " bytes, the header needs " +
        std::to_string(out.payload_bytes));
  }
  return out;
}

// ---- Thrift compact protocol, as much as BloomFilterHeader needs ----

class ThriftReader {
 public:
  ThriftReader(const uint8_t* data, size_t size) : p_(data), end_(data + size), begin_(data) {}
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }

  uint8_t Byte() {
    if (p_ == end_) Bad("Parquet header truncated");
    return *p_++;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = Byte();
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Bad("Parquet header: varint too long");
  }
  int64_t Zigzag() {
    const uint64_t v = Varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }
  // Reads a field header: returns false at a struct's stop byte, else the field's id and type.
  bool Field(int16_t* last_id, int16_t* id, int* type) {
    const uint8_t b = Byte();
    if (b == 0) return false;
    *type = b & 0x0F;
    const int delta = b >> 4;
    if (delta != 0) {
      *id = static_cast<int16_t>(*last_id + delta);
    } else {
      const int64_t v = Zigzag();
      if (v < INT16_MIN || v > INT16_MAX) Bad("Parquet header: field id out of range");
      *id = static_cast<int16_t>(v);
    }
    *last_id = *id;
    return true;
  }
  // Skips a value of compact type `type`, nesting at most kMaxDepth deep.
  void Skip(int type, int depth) {
    if (depth > kMaxDepth) Bad("Parquet header nested too deeply");
    switch (type) {
      case 1:  // boolean true
      case 2:  // boolean false
        return;
      case 3:  // byte
        Byte();
        return;
      case 4:  // i16
      case 5:  // i32
      case 6:  // i64
        Varint();
        return;
      case 7:  // double
        for (int i = 0; i < 8; ++i) Byte();
        return;
      case 8: {  // binary
        const uint64_t n = Varint();
        if (n > static_cast<uint64_t>(end_ - p_)) Bad("Parquet header truncated");
        p_ += n;
        return;
      }
      case 9:     // list
      case 10: {  // set
        const uint8_t h = Byte();
        uint64_t n = h >> 4;
        if (n == 15) n = Varint();
        // Every element takes at least one byte: a count beyond the input is a lie, refused
        // before any work (a list of 2^60 booleans must not spin).
        if (n > Remaining()) Bad("Parquet header: collection larger than the input");
        for (uint64_t i = 0; i < n; ++i) SkipElement(h & 0x0F, depth + 1);
        return;
      }
      case 11: {  // map
        const uint64_t n = Varint();
        if (n == 0) return;
        const uint8_t kv = Byte();
        if (n > Remaining() / 2) Bad("Parquet header: map larger than the input");
        for (uint64_t i = 0; i < n; ++i) {
          SkipElement(kv >> 4, depth + 1);
          SkipElement(kv & 0x0F, depth + 1);
        }
        return;
      }
      case 12:
        SkipStruct(depth + 1);
        return;
      default:
        Bad("Parquet header: unknown Thrift type " + std::to_string(type));
    }
  }
  // A collection element: booleans take one byte there (unlike in field headers).
  void SkipElement(int type, int depth) {
    if (type == 1 || type == 2) {
      Byte();
    } else {
      Skip(type, depth);
    }
  }
  uint64_t Remaining() const { return static_cast<uint64_t>(end_ - p_); }
  void SkipStruct(int depth) {
    int16_t last = 0, id;
    int type;
    while (Field(&last, &id, &type)) Skip(type, depth);
  }
  // A union whose member `want` is an empty struct (e.g. BloomFilterAlgorithm.BLOCK): returns
  // whether that member was set, skipping anything else.
  bool UnionWith(int16_t want, int depth) {
    int16_t last = 0, id;
    int type;
    bool found = false;
    while (Field(&last, &id, &type)) {
      if (id == want && type == 12) {
        found = true;
        SkipStruct(depth + 1);
      } else {
        Skip(type, depth + 1);
      }
    }
    return found;
  }

  static constexpr int kMaxDepth = 32;

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* begin_;
};

void PutVarint(std::vector<uint8_t>* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}

}  // namespace

void Filter::save(std::ostream& out) const {
  CheckNotMovedFrom("save");
  uint8_t header[kHeaderSize];
  EncodeHeader(*this, scalar::Checksum(data(), size_bytes()), header);
  detail::WriteHeaderAndPayload(out, header, data(), size_bytes(),
                                "save: the stream failed while writing");
}

void Filter::save_file(const std::string& path) const {
  detail::SaveFile(path, "save_file", [this](std::ostream& out) { save(out); });
}

Filter Filter::load(const uint8_t* data, size_t size) {
  if (data == nullptr && size > 0) detail::Invalid("load: null data with non-zero size");
  detail::CheckExtent("load", "bytes", data, size, 1);
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const Header h = DecodeHeader(data, size - kHeaderSize);
  if (scalar::Checksum(data + kHeaderSize, h.payload_bytes) != h.checksum) {
    Bad("payload checksum mismatch");
  }
  Filter f = FilterAccess::Make(h.layout, h.num_blocks, h.k, h.seed, h.key_type);
  std::memcpy(FilterAccess::Words(f), data + kHeaderSize, h.payload_bytes);
  FilterAccess::SetInserted(f, h.inserted);
  return f;
}

Filter Filter::load(std::istream& in) {
  uint8_t header[kHeaderSize];
  in.read(reinterpret_cast<char*>(header), kHeaderSize);
  CheckReadable(in);
  if (in.gcount() != static_cast<std::streamsize>(kHeaderSize)) {
    Bad("truncated header (" + std::to_string(in.gcount()) + " bytes)");
  }
  // The payload size comes from the (checksummed) header; the stream must then hold exactly it.
  if (std::memcmp(header, detail::MagicOf(detail::FileKindId::kPlain), 8) != 0) Bad("bad magic");
  const uint64_t blocks = GetU64(header + 24);
  const Layout layout = static_cast<Layout>(header[16]);
  const uint64_t expected = detail::KnownLayout(layout) && blocks <= detail::kMaxBlocks
                                ? blocks * (block_bits(layout) / 8)
                                : 0;
  const Header h = DecodeHeader(header, expected);
  // Never allocate what the stream does not hold or what fails its checksum: a 64-byte header may
  // claim gigabytes. The bit array is allocated once the payload has arrived and matched its
  // checksum, read in bounded pieces before that (detail::ReadPayload).
  std::optional<Filter> f;
  detail::ReadPayload(
      in, h.payload_bytes, h.checksum, Bad, "load: the stream failed while reading", [&] {
        f.emplace(FilterAccess::Make(h.layout, h.num_blocks, h.k, h.seed, h.key_type));
        return reinterpret_cast<uint8_t*>(FilterAccess::Words(*f));
      });
  if (in.peek() != std::char_traits<char>::eof()) Bad("trailing bytes after the payload");
  CheckReadable(in);
  FilterAccess::SetInserted(*f, h.inserted);
  return std::move(*f);
}

Filter Filter::load_file(const std::string& path) {
  return detail::LoadFile(path, "load_file", [](std::istream& in) { return load(in); });
}

Filter Filter::view(const uint8_t* data, size_t size, bool verify_checksum) {
  detail::CheckViewBytes("view", data, size);
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const Header h = DecodeHeader(data, size - kHeaderSize);
  if (verify_checksum && scalar::Checksum(data + kHeaderSize, h.payload_bytes) != h.checksum) {
    Bad("payload checksum mismatch");
  }
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here, at construction
  Filter f = FilterAccess::MakeView(h.layout, h.num_blocks, h.k, h.seed, h.key_type,
                                    reinterpret_cast<const uint64_t*>(data + kHeaderSize));
  FilterAccess::SetInserted(f, h.inserted);
  return f;
}

Filter Filter::map_file(const std::string& path, bool verify_checksum) {
  const auto file = detail::MappedFile::OpenWithHeader(path, "map_file", Bad);
  Filter f = view(file->data(), file->size(), verify_checksum);
  FilterAccess::Keep(f, file);
  return f;
}

std::vector<uint8_t> Filter::to_parquet() const {
  CheckNotMovedFrom("to_parquet");
  if (layout_ != Layout::kSplitBlock256 || seed_ != 0) {
    throw Error(ErrorCode::kIncompatible,
                "to_parquet: Parquet filters are split_block256 with seed 0, this one is " +
                    std::string(layout_name(layout_)) + " with seed " + std::to_string(seed_));
  }
  if (size_bytes() > INT32_MAX) {
    throw Error(ErrorCode::kIncompatible, "to_parquet: numBytes must fit Thrift's i32");
  }
  std::vector<uint8_t> out;
  out.reserve(32 + size_bytes());
  out.push_back(0x15);  // field 1 (numBytes), i32
  const int64_t n = static_cast<int64_t>(size_bytes());
  PutVarint(&out, static_cast<uint64_t>((n << 1) ^ (n >> 63)));
  const uint8_t unions[] = {0x1C, 0x1C, 0x00, 0x00,  // 2: algorithm { 1: BLOCK {} }
                            0x1C, 0x1C, 0x00, 0x00,  // 3: hash { 1: XXHASH {} }
                            0x1C, 0x1C, 0x00, 0x00,  // 4: compression { 1: UNCOMPRESSED {} }
                            0x00};                   // end of BloomFilterHeader
  out.insert(out.end(), std::begin(unions), std::end(unions));
  out.insert(out.end(), data(), data() + size_bytes());
  return out;
}

Filter Filter::from_parquet(const uint8_t* data, size_t size, size_t* consumed, KeyType key_type) {
  detail::CheckKeyType("from_parquet", key_type);
  if (data == nullptr && size > 0) detail::Invalid("from_parquet: null data with non-zero size");
  ThriftReader r(data, size);
  int64_t num_bytes = -1;
  bool block = false, xxhash = false, uncompressed = false;
  int16_t last = 0, id;
  int type;
  while (r.Field(&last, &id, &type)) {
    if (id == 1 && type == 5) {
      num_bytes = r.Zigzag();
    } else if (id == 2 && type == 12) {
      block = r.UnionWith(1, 1);
    } else if (id == 3 && type == 12) {
      xxhash = r.UnionWith(1, 1);
    } else if (id == 4 && type == 12) {
      uncompressed = r.UnionWith(1, 1);
    } else {
      r.Skip(type, 1);
    }
  }
  if (num_bytes < 0) Bad("Parquet header without numBytes");
  if (!block) Bad("Parquet filter algorithm is not BLOCK");
  if (!xxhash) Bad("Parquet filter hash is not XXHASH");
  if (!uncompressed) Bad("Parquet filter compression is not UNCOMPRESSED");
  if (num_bytes == 0 || num_bytes % 32 != 0 || num_bytes > INT32_MAX) {
    Bad("Parquet numBytes " + std::to_string(num_bytes) + " is not a positive multiple of 32");
  }
  const size_t header = r.offset();
  if (static_cast<uint64_t>(num_bytes) > size - header) {
    Bad("Parquet bitset truncated (" + std::to_string(size - header) + " of " +
        std::to_string(num_bytes) + " bytes)");
  }
  Filter f = FilterAccess::Make(Layout::kSplitBlock256, static_cast<uint64_t>(num_bytes) / 32, 8, 0,
                                key_type);
  std::memcpy(FilterAccess::Words(f), data + header, static_cast<size_t>(num_bytes));
  if (consumed != nullptr) *consumed = header + static_cast<size_t>(num_bytes);
  return f;
}

}  // namespace simdbloom
