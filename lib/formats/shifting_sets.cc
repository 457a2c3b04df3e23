// SPDX-License-Identifier: Apache-2.0
// The file format of ShBF_A and ShBF_x (lib/FORMAT.md, "Shifting set filters"): a 64-byte header,
// then the blocks. save, load from bytes or a stream, save_file and load_file; every header field
// is validated before it is used, and a stream's payload is read through ReadPayload.
#include <cstring>
#include <istream>
#include <ostream>
#include <string>

#include "kernels/scalar/hash.h"
#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "lib/formats/file_io.h"
#include "lib/formats/kinds.h"
#include "lib/kinds/shifting_sets.h"
#include "simdbloom/shifting.hpp"

namespace simdbloom {
namespace detail {
namespace {

constexpr size_t kHeader = kFileHeaderSize;

// The version each kind writes (lib/formats/kinds.h).
constexpr uint32_t VersionOf(FileKindId kind) { return FileKindOf(kind).version; }

std::string Save(FileKindId kind, uint32_t max_count, const ShiftingBlocks& b, uint64_t items) {
  const size_t payload = b.num_blocks() * 64;
  std::string out(kHeader + payload, '\0');
  uint8_t* h = reinterpret_cast<uint8_t*>(&out[0]);
  BeginHeader(h, kind, VersionOf(kind));
  PutU32(h + 16, max_count);
  h[20] = static_cast<uint8_t>(b.typing().type());
  PutU64(h + 24, b.num_blocks());
  PutU64(h + 32, b.seed());
  PutU64(h + 40, items);
  uint8_t* body = h + kHeader;
  for (uint64_t i = 0; i < b.num_blocks() * 8; ++i) PutU64(body + 8 * i, b.words()[i]);
  SealHeader(h, scalar::Checksum(body, payload));
  return out;
}

struct Parsed {
  uint32_t max_count;
  uint64_t num_blocks, seed, items;
  const uint8_t* payload;
  KeyType key_type;
};

template <FileKindId kKind>
[[noreturn]] void Bad(const std::string& why) {
  throw Error(ErrorCode::kFormat, std::string("not a valid simdbloom ") +
                                      (kKind == FileKindId::kShbfA ? "ShBF_A" : "ShBF_x") +
                                      " filter: " + why);
}

template <FileKindId kKind>
Parsed Parse(const void* bytes, size_t size) {
  const auto bad = [](const std::string& why) -> Parsed { Bad<kKind>(why); };
  if (bytes == nullptr && size != 0) Invalid(std::string("load: bytes is null"));
  const uint8_t* h = static_cast<const uint8_t*>(bytes);
  if (size < kHeader) return bad("truncated header");
  CheckHeaderStart(h, kKind, /*header_checksum=*/true, Bad<kKind>);
  KeyType type;
  if (!KeyTypeFromByte(h[20], &type)) return bad("key type " + std::to_string(h[20]));
  if (h[21] != 0 || h[22] != 0 || h[23] != 0) return bad("reserved bytes not zero");
  Parsed p{GetU32(h + 16), GetU64(h + 24), GetU64(h + 32), GetU64(h + 40), h + kHeader, type};
  if (p.num_blocks == 0 || p.num_blocks > kMaxSetBlocks) return bad("bad block count");
  if (size - kHeader != p.num_blocks * 64) return bad("size does not match the block count");
  if (scalar::Checksum(p.payload, size - kHeader) != GetU64(h + 48)) {
    return bad("payload checksum mismatch");
  }
  return p;
}

void LoadWords(const Parsed& p, uint64_t* words) {
  for (uint64_t i = 0; i < p.num_blocks * 8; ++i) words[i] = GetU64(p.payload + 8 * i);
}

}  // namespace
}  // namespace detail

std::string ShiftingAssociation::save() const {
  detail::CheckUsable("ShiftingAssociation::save", blocks_);
  return detail::Save(detail::FileKindId::kShbfA, 0, blocks_, items_);
}

namespace detail {
namespace {
// The bytes of a shifting-set file, read as far as its header claims (num_blocks at 24): a
// header that does not parse is returned alone for load() to name the fault, and the payload is
// read through ReadPayload, so memory follows the bytes present and their checksum, never the
// claim (a sparse or endless file costs at most one piece).
std::string ReadSetStream(std::istream& in, const std::string& who) {
  {
    std::string bytes(kHeader, '\0');
    in.read(&bytes[0], kHeader);
    bytes.resize(static_cast<size_t>(in.gcount()));
    if (in.bad()) throw Error(ErrorCode::kIo, "read error");
    const auto* h = reinterpret_cast<const uint8_t*>(bytes.data());
    if (bytes.size() < kHeader || scalar::Checksum(h, 56) != GetU64(h + 56)) return bytes;
    const uint64_t num_blocks = GetU64(h + 24);
    if (num_blocks == 0 || num_blocks > kMaxSetBlocks) return bytes;
    const uint64_t size = num_blocks * 64;
    ReadPayload(
        in, size, GetU64(h + 48),
        [&](const std::string& why) {
          throw Error(ErrorCode::kFormat,
                      who + ": not a valid simdbloom shifting-set file: " + why);
        },
        "read error",
        [&] {
          bytes.resize(kHeader + size);
          return reinterpret_cast<uint8_t*>(&bytes[kHeader]);
        });
    if (in.peek() != std::char_traits<char>::eof()) {
      throw Error(ErrorCode::kFormat,
                  who + ": not a valid simdbloom shifting-set file: bytes past the payload");
    }
    return bytes;
  }
}
std::string ReadWhole(const std::string& path, const std::string& who) {
  return LoadFile(path, who, [&](std::istream& in) { return ReadSetStream(in, who); });
}

// save() into a file (atomically) and load() of a file's bytes: the same for both set filters.
template <class F>
void SaveSetFile(const F& f, const std::string& path, const char* who) {
  const std::string bytes = f.save();
  SaveFile(path, who, [&](std::ostream& out) { out.write(bytes.data(), bytes.size()); });
}
template <class F>
F LoadSetFile(const std::string& path, const char* who) {
  const std::string bytes = ReadWhole(path, who);
  return F::load(bytes.data(), bytes.size());
}
}  // namespace
}  // namespace detail

void ShiftingAssociation::save_file(const std::string& path) const {
  detail::SaveSetFile(*this, path, "ShiftingAssociation::save_file");
}
ShiftingAssociation ShiftingAssociation::load(std::istream& in) {
  const std::string bytes = detail::ReadSetStream(in, "ShiftingAssociation::load");
  return load(bytes.data(), bytes.size());
}
ShiftingMultiplicity ShiftingMultiplicity::load(std::istream& in) {
  const std::string bytes = detail::ReadSetStream(in, "ShiftingMultiplicity::load");
  return load(bytes.data(), bytes.size());
}
ShiftingAssociation ShiftingAssociation::load_file(const std::string& path) {
  return detail::LoadSetFile<ShiftingAssociation>(path, "ShiftingAssociation::load_file");
}
void ShiftingMultiplicity::save_file(const std::string& path) const {
  detail::SaveSetFile(*this, path, "ShiftingMultiplicity::save_file");
}
ShiftingMultiplicity ShiftingMultiplicity::load_file(const std::string& path) {
  return detail::LoadSetFile<ShiftingMultiplicity>(path, "ShiftingMultiplicity::load_file");
}

ShiftingAssociation ShiftingAssociation::load(const void* bytes, size_t size) {
  const detail::Parsed p = detail::Parse<detail::FileKindId::kShbfA>(bytes, size);
  if (p.max_count != 0) {
    throw Error(ErrorCode::kFormat, "not a valid simdbloom ShBF_A filter: max count not zero");
  }
  ShiftingAssociation f(p.num_blocks, p.seed);
  detail::LoadWords(p, f.blocks_.words());
  f.blocks_.typing().Set(p.key_type);
  f.items_ = p.items;
  return f;
}

std::string ShiftingMultiplicity::save() const {
  detail::CheckUsable("ShiftingMultiplicity::save", blocks_);
  return detail::Save(detail::FileKindId::kShbfX, max_count_, blocks_, items_);
}

ShiftingMultiplicity ShiftingMultiplicity::load(const void* bytes, size_t size) {
  const detail::Parsed p = detail::Parse<detail::FileKindId::kShbfX>(bytes, size);
  if (p.max_count < 1 || p.max_count > 64) {
    throw Error(ErrorCode::kFormat, "not a valid simdbloom ShBF_x filter: max count outside 1..64");
  }
  ShiftingMultiplicity f(p.num_blocks, p.max_count, p.seed);
  detail::LoadWords(p, f.blocks_.words());
  f.blocks_.typing().Set(p.key_type);
  f.items_ = p.items;
  return f;
}

}  // namespace simdbloom
