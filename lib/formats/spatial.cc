// SPDX-License-Identifier: Apache-2.0
// SpatialFilter's file format (lib/FORMAT.md, "Spatial filter"): a 64-byte header, the cells, the
// area table and (version 2) the names table. save, load from bytes or a stream; every field of the
// input is validated before it is used, and nothing is allocated before the payload has arrived
// and matched its checksum.
#include <cstring>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/scalar/hash.h"
#include "kernels/spatial/scalar.h"
#include "kernels/spatial/spec.h"
#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "lib/formats/file_io.h"
#include "lib/formats/kinds.h"
#include "lib/kinds/spatial_geometry.h"
#include "simdbloom/spatial.hpp"

namespace simdbloom {
namespace {

using detail::FileKindId;
using detail::GetU32, detail::GetU64, detail::PutU32, detail::PutU64;  // file_io.h
using detail::Invalid;
using detail::SpatialSpec;
using detail::spatial::CellBytesFor, detail::spatial::kMaxBlocks;  // spatial_geometry.h

constexpr size_t kHeaderSize = detail::kFileHeaderSize;
constexpr uint32_t kFormatVersion = 1;  // no area names
constexpr uint32_t kFormatVersionNames = detail::FileKindOf(FileKindId::kSpatial).version;
static_assert(kFormatVersionNames == 2 &&
                  detail::FileKindOf(FileKindId::kSpatial).oldest_version == kFormatVersion,
              "version 1 + the names table");
// The names table (version 2): u64 size of the entries, u64 XXH3 of them, then per area u16 size
// and the name's bytes.
constexpr uint64_t kNamesPrefix = 16;

constexpr uint8_t kHashId = detail::FileKindOf(FileKindId::kSpatial).hash_id;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "not a valid simdbloom spatial filter: " + what);
}
// ReadPayload's messages ("truncated payload", "payload checksum mismatch") for the names table.
[[noreturn]] void BadNames(const std::string& what) { Bad("names table: " + what); }

struct Header {
  uint32_t version;
  uint32_t cell_bytes, k, num_areas, current;
  uint64_t num_blocks, seed, checksum;
  uint64_t cell_bytes_total;  // payload part 1
  uint64_t table_bytes;       // payload part 2
  KeyType key_type;
};

// Validates the header; `available` = bytes after the header (SIZE_MAX: unknown, a stream).
Header DecodeHeader(const uint8_t* h, uint64_t available) {
  Header out;
  out.version = detail::CheckHeaderStart(h, FileKindId::kSpatial, /*header_checksum=*/true, Bad);
  out.cell_bytes = h[16];
  if (h[17] != kHashId) Bad("hash id " + std::to_string(h[17]));
  if (!detail::KeyTypeFromByte(h[18], &out.key_type)) Bad("key type " + std::to_string(h[18]));
  if (h[19] != 0) Bad("reserved byte is not zero");
  out.k = GetU32(h + 20);
  if (out.k < SpatialSpec::kMinK || out.k > SpatialSpec::kMaxK) Bad("k = " + std::to_string(out.k));
  out.num_blocks = GetU64(h + 24);
  if (out.num_blocks == 0 || out.num_blocks > kMaxBlocks) {
    Bad("block count " + std::to_string(out.num_blocks));
  }
  out.seed = GetU64(h + 32);
  out.num_areas = GetU32(h + 40);
  if (out.num_areas < 1 || out.num_areas > SpatialSpec::kMaxAreas) {
    Bad("number of areas " + std::to_string(out.num_areas));
  }
  if (out.cell_bytes != CellBytesFor(out.num_areas)) {
    Bad("cell size " + std::to_string(out.cell_bytes) + " for " + std::to_string(out.num_areas) +
        " areas");
  }
  out.current = GetU32(h + 44);
  if (out.current > out.num_areas) Bad("highest label " + std::to_string(out.current));
  out.checksum = GetU64(h + 48);
  out.cell_bytes_total = out.num_blocks * SpatialSpec::kCellsPerBlock * out.cell_bytes;
  out.table_bytes = 16 * uint64_t{out.num_areas};
  const uint64_t need = out.cell_bytes_total + out.table_bytes;
  if (available != SIZE_MAX && out.version == kFormatVersion && need != available) {
    Bad("payload of " + std::to_string(available) + " bytes, the header needs " +
        std::to_string(need));
  }
  // Version 2: the names table follows; its own size field is checked by ParseNames.
  if (available != SIZE_MAX && out.version == kFormatVersionNames &&
      (available < need || available - need < kNamesPrefix)) {
    Bad("payload of " + std::to_string(available) + " bytes, the header needs at least " +
        std::to_string(need + kNamesPrefix) + " (cells, area table, names table)");
  }
  return out;
}

void EncodeHeader(const SpatialFilter& f, uint64_t checksum, uint8_t* h) {
  detail::BeginHeader(h, FileKindId::kSpatial,
                      f.has_area_names() ? kFormatVersionNames : kFormatVersion);
  h[16] = static_cast<uint8_t>(f.cell_bytes());
  h[17] = kHashId;
  h[18] = static_cast<uint8_t>(f.key_type());
  PutU32(h + 20, f.num_hashes());
  PutU64(h + 24, f.num_blocks());
  PutU64(h + 32, f.seed());
  PutU32(h + 40, f.num_areas());
  PutU32(h + 44, f.current_label());
  detail::SealHeader(h, checksum);
}

std::vector<uint8_t> AreaTable(const SpatialFilter& f, const std::vector<uint64_t>& written) {
  std::vector<uint8_t> t(16 * size_t{f.num_areas()});
  for (uint32_t i = 0; i < f.num_areas(); ++i) {
    PutU64(t.data() + 16 * i, f.members(static_cast<uint16_t>(i + 1)));
    PutU64(t.data() + 16 * i + 8, written[i]);
  }
  return t;
}

// The largest names table s areas can have (every name at the limit): a bound on a header's claim.
uint64_t MaxNamesBytes(uint32_t num_areas) {
  return uint64_t{num_areas} * (2 + SpatialFilter::kMaxAreaNameBytes);
}

// The names table's entries (without its 16-byte prefix): per area u16 size, then the bytes.
std::vector<uint8_t> NamesEntries(const SpatialFilter& f) {
  std::vector<uint8_t> t;
  for (uint32_t i = 1; i <= f.num_areas(); ++i) {
    const std::string_view name = f.area_name(static_cast<uint16_t>(i));
    t.push_back(static_cast<uint8_t>(name.size()));
    t.push_back(static_cast<uint8_t>(name.size() >> 8));
    t.insert(t.end(), name.begin(), name.end());
  }
  return t;
}

// Reads the names table at `p` (`size` bytes: the rest of the input, prefix included) into one
// string per area, checking the prefix's size against `size`, its checksum, and every entry's size
// against the bytes left; nothing is read past p + size.
std::vector<std::string> ParseNames(const uint8_t* p, uint64_t size, uint32_t num_areas) {
  if (size < kNamesPrefix) Bad("truncated names table (" + std::to_string(size) + " bytes)");
  const uint64_t entries = GetU64(p);
  if (entries != size - kNamesPrefix) {
    Bad("names table of " + std::to_string(entries) + " bytes, " +
        std::to_string(size - kNamesPrefix) + " present");
  }
  const uint8_t* at = p + kNamesPrefix;
  if (scalar::Checksum(at, entries) != GetU64(p + 8)) Bad("names table checksum mismatch");
  std::vector<std::string> names(num_areas);
  uint64_t left = entries;
  for (uint32_t i = 0; i < num_areas; ++i) {
    if (left < 2) Bad("names table ends before the name of label " + std::to_string(i + 1));
    const uint64_t n = uint64_t{at[0]} | uint64_t{at[1]} << 8;
    at += 2;
    left -= 2;
    if (n > left) {
      Bad("name of label " + std::to_string(i + 1) + ": " + std::to_string(n) + " bytes, " +
          std::to_string(left) + " left in the names table");
    }
    names[i].assign(reinterpret_cast<const char*>(at), static_cast<size_t>(n));
    at += n;
    left -= n;
  }
  if (left != 0) Bad(std::to_string(left) + " bytes after the last name");
  return names;
}

}  // namespace

size_t SpatialFilter::serialized_size() const noexcept {
  size_t n = 64 + size_bytes() + 16 * size_t{num_areas_};
  if (!has_area_names()) return n;
  n += kNamesPrefix + 2 * size_t{num_areas_};
  for (const std::string& name : names_) n += name.size();
  return n;
}

void SpatialFilter::save(std::ostream& out) const {
  if (cells_ == nullptr) Invalid("SpatialFilter::save: the filter was moved from");
  const std::vector<uint8_t> table = AreaTable(*this, written_);
  // XXH3 of the cells followed by the table (streamed: equals the one-shot hash of the two).
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, cells_, size_bytes());
  XXH3_64bits_update(&state, table.data(), table.size());
  uint8_t h[kHeaderSize];
  EncodeHeader(*this, XXH3_64bits_digest(&state), h);
  out.write(reinterpret_cast<const char*>(h), kHeaderSize);
  out.write(reinterpret_cast<const char*>(cells_), static_cast<std::streamsize>(size_bytes()));
  out.write(reinterpret_cast<const char*>(table.data()),
            static_cast<std::streamsize>(table.size()));
  if (has_area_names()) {
    const std::vector<uint8_t> names = NamesEntries(*this);
    uint8_t prefix[kNamesPrefix];
    PutU64(prefix, names.size());
    PutU64(prefix + 8, scalar::Checksum(names.data(), names.size()));
    out.write(reinterpret_cast<const char*>(prefix), kNamesPrefix);
    out.write(reinterpret_cast<const char*>(names.data()),
              static_cast<std::streamsize>(names.size()));
  }
  if (!out) throw Error(ErrorCode::kIo, "SpatialFilter::save: the stream failed");
}

void SpatialFilter::save_file(const std::string& path) const {
  detail::SaveFile(path, "SpatialFilter::save_file", [this](std::ostream& out) { save(out); });
}

SpatialFilter SpatialFilter::load(const uint8_t* data, size_t size) {
  if (data == nullptr && size > 0) Invalid("SpatialFilter::load: null data with non-zero size");
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const Header h = DecodeHeader(data, size - kHeaderSize);
  const uint8_t* payload = data + kHeaderSize;
  if (scalar::Checksum(payload, h.cell_bytes_total + h.table_bytes) != h.checksum) {
    Bad("payload checksum mismatch");
  }
  const uint8_t* table = payload + h.cell_bytes_total;
  std::vector<std::string> names;
  if (h.version == kFormatVersionNames) {
    const uint64_t at = h.cell_bytes_total + h.table_bytes;  // DecodeHeader: <= size - 64 - 16
    names = ParseNames(payload + at, size - kHeaderSize - at, h.num_areas);
  }
  std::vector<uint64_t> members(h.num_areas), written(h.num_areas);
  for (uint32_t i = 0; i < h.num_areas; ++i) {
    members[i] = GetU64(table + 16 * i);
    written[i] = GetU64(table + 16 * i + 8);
    if (i + 1 > h.current && (members[i] != 0 || written[i] != 0)) {
      Bad("keys recorded for label " + std::to_string(i + 1) + " above the highest label");
    }
    if (members[i] > UINT64_MAX / h.k || written[i] > members[i] * h.k) {
      Bad("more cells written than keys x k for label " + std::to_string(i + 1));
    }
  }
  // Every cell is at most the highest label inserted (before anything is allocated).
  const detail::SpatialParams p{h.num_blocks, h.k, h.cell_bytes};
  const uint64_t n_cells = h.num_blocks * SpatialSpec::kCellsPerBlock;
  for (uint64_t c = 0; c < n_cells; ++c) {
    if (scalar::SpatialGetCell(payload, p, c) > h.current) {
      Bad("cell " + std::to_string(c) + " holds a label above the highest label inserted");
    }
  }
  SpatialFilter f(h.num_blocks, h.k, h.num_areas, h.seed);
  f.keys_.Set(h.key_type);
  std::memcpy(f.cells_, payload, h.cell_bytes_total);
  f.current_ = static_cast<uint16_t>(h.current);
  f.members_ = std::move(members);
  f.written_ = std::move(written);
  f.names_ = std::move(names);
  return f;
}

SpatialFilter SpatialFilter::load(std::istream& in) {
  uint8_t h[kHeaderSize];
  in.read(reinterpret_cast<char*>(h), kHeaderSize);
  if (in.bad()) throw Error(ErrorCode::kIo, "SpatialFilter::load: the stream failed while reading");
  if (static_cast<size_t>(in.gcount()) != kHeaderSize) {
    Bad("truncated header (" + std::to_string(in.gcount()) + " bytes)");
  }
  const Header hd = DecodeHeader(h, SIZE_MAX);
  const uint64_t want = hd.cell_bytes_total + hd.table_bytes;
  // The payload is kept once it has arrived and matched its checksum, read in bounded pieces before
  // that: a header cannot make this allocate what the stream does not hold (detail::ReadPayload).
  std::vector<uint8_t> bytes;
  detail::ReadPayload(in, want, hd.checksum, Bad, "SpatialFilter::load: the stream failed", [&] {
    bytes.resize(static_cast<size_t>(kHeaderSize + want));
    std::memcpy(bytes.data(), h, kHeaderSize);
    return bytes.data() + kHeaderSize;
  });
  if (hd.version == kFormatVersionNames) {
    // The names table: its prefix, then its entries read as the payload was (bounded pieces,
    // checked against the prefix's checksum before they are kept).
    uint8_t prefix[kNamesPrefix];
    in.read(reinterpret_cast<char*>(prefix), kNamesPrefix);
    if (in.bad()) throw Error(ErrorCode::kIo, "SpatialFilter::load: the stream failed");
    if (static_cast<size_t>(in.gcount()) != kNamesPrefix) {
      Bad("truncated names table (" + std::to_string(in.gcount()) + " bytes)");
    }
    const uint64_t entries = GetU64(prefix);
    if (entries > MaxNamesBytes(hd.num_areas)) {
      Bad("names table of " + std::to_string(entries) + " bytes (at most " +
          std::to_string(MaxNamesBytes(hd.num_areas)) + " for " + std::to_string(hd.num_areas) +
          " areas)");
    }
    const size_t at = bytes.size();
    detail::ReadPayload(in, entries, GetU64(prefix + 8), BadNames,
                        "SpatialFilter::load: the stream failed", [&] {
                          bytes.resize(at + kNamesPrefix + static_cast<size_t>(entries));
                          std::memcpy(bytes.data() + at, prefix, kNamesPrefix);
                          return bytes.data() + at + kNamesPrefix;
                        });
  }
  if (in.peek() != std::char_traits<char>::eof()) Bad("trailing bytes after the payload");
  return load(bytes.data(), bytes.size());
}

SpatialFilter SpatialFilter::load_file(const std::string& path) {
  return detail::LoadFile(path, "SpatialFilter::load_file",
                          [](std::istream& in) { return load(in); });
}

}  // namespace simdbloom
