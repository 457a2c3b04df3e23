// SPDX-License-Identifier: Apache-2.0
// CountingFilter's file format (lib/FORMAT.md, "Counting filters"): save, load from bytes or a
// stream, view and map_file. Every header field is validated before it is used; the payload is
// allocated only once its bytes have arrived and matched their checksum.
#include "simdbloom/counting.hpp"

#include <cstring>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "kernels/counting/spec.h"
#include "kernels/dispatch.h"
#include "kernels/scalar/hash.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "lib/formats/file_io.h"
#include "lib/formats/kinds.h"
#include "lib/formats/mapped_file.h"
#include "lib/kinds/counting_limits.h"
#include "simdbloom/simdbloom.h"

// A counting file's layout byte is CountingLayout's value, which the C constants name too.
#define SIMDBLOOM_X(Id, name, C_NAME)                                                     \
  static_assert(SIMDBLOOM_##C_NAME == static_cast<int>(simdbloom::CountingLayout::k##Id), \
                "SIMDBLOOM_" #C_NAME " differs from simdbloom::CountingLayout::k" #Id);
SIMDBLOOM_FOR_EACH_COUNTING_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X

namespace simdbloom {
namespace {

using detail::CountingSpec;
using detail::FileKindId;
using detail::GetU32, detail::GetU64, detail::PutU32, detail::PutU64;  // file_io.h
using detail::Invalid;
using detail::counting::BytesOf, detail::counting::Known, detail::counting::MaxBlocks,
    detail::counting::MaxK;

constexpr size_t kHeaderSize = detail::kFileHeaderSize;
constexpr uint32_t kVersion = detail::FileKindOf(FileKindId::kCounting).version;

constexpr uint8_t kHashId = detail::FileKindOf(FileKindId::kCounting).hash_id;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "CountingFilter::load: " + what);
}

struct Header {
  CountingLayout layout;
  uint32_t k;
  uint64_t num_blocks, seed, present, checksum, payload_bytes;
  KeyType key_type;
};

// Validates the 64 header bytes field by field (FORMAT.md order); nothing is allocated.
Header DecodeHeader(const uint8_t* h) {
  detail::CheckHeaderStart(h, FileKindId::kCounting, /*header_checksum=*/true, Bad);
  Header r;
  r.layout = static_cast<CountingLayout>(h[16]);
  if (!Known(r.layout)) Bad("unknown counting layout " + std::to_string(h[16]));
  if (h[17] != CountingSpec::kCounterBits) Bad("counter width is not 4 bits");
  if (h[18] != kHashId) Bad("unknown hash id " + std::to_string(h[18]));
  if (!detail::KeyTypeFromByte(h[19], &r.key_type)) Bad("key type " + std::to_string(h[19]));
  r.k = GetU32(h + 20);
  if (r.k < 1 || r.k > MaxK(r.layout)) Bad("k = " + std::to_string(r.k) + " out of range");
  r.num_blocks = GetU64(h + 24);
  if (r.num_blocks == 0 || r.num_blocks > MaxBlocks(r.layout)) Bad("block count out of range");
  r.seed = GetU64(h + 32);
  r.present = GetU64(h + 40);
  r.checksum = GetU64(h + 48);
  r.payload_bytes = BytesOf(r.layout, r.num_blocks);
  return r;
}

}  // namespace

void CountingFilter::save(std::ostream& out) const {
  if (data() == nullptr) Invalid("CountingFilter::save: the filter was moved from");
  uint8_t h[kHeaderSize];
  detail::BeginHeader(h, FileKindId::kCounting, kVersion);
  h[16] = static_cast<uint8_t>(layout_);
  h[17] = CountingSpec::kCounterBits;
  h[18] = kHashId;
  h[19] = static_cast<uint8_t>(key_type());
  PutU32(h + 20, k_);
  PutU64(h + 24, num_blocks_);
  PutU64(h + 32, seed_);
  PutU64(h + 40, present_);
  detail::SealHeader(h, scalar::Checksum(data(), size_bytes()));
  detail::WriteHeaderAndPayload(out, h, data(), size_bytes(), "CountingFilter::save: write failed");
}

void CountingFilter::save_file(const std::string& path) const {
  detail::SaveFile(path, "CountingFilter::save_file", [this](std::ostream& out) { save(out); });
}

CountingFilter CountingFilter::load(const uint8_t* data, size_t size) {
  if (data == nullptr && size != 0) Invalid("CountingFilter::load: null data");
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const Header h = DecodeHeader(data);
  if (size - kHeaderSize != h.payload_bytes) {
    Bad("payload is " + std::to_string(size - kHeaderSize) + " bytes, the header says " +
        std::to_string(h.payload_bytes));
  }
  if (scalar::Checksum(data + kHeaderSize, h.payload_bytes) != h.checksum) {
    Bad("payload checksum mismatch");
  }
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here
  CountingFilter f(
      h.layout, h.num_blocks, h.k, h.seed, h.key_type,
      FilterAccess::Make(Layout::kClassic, h.payload_bytes / 64, 1, 0, KeyType::kNone));
  std::memcpy(f.Counters(), data + kHeaderSize, h.payload_bytes);
  f.present_ = h.present;
  return f;
}

CountingFilter CountingFilter::load(std::istream& in) {
  uint8_t header[kHeaderSize];
  in.read(reinterpret_cast<char*>(header), kHeaderSize);
  if (in.bad()) throw Error(ErrorCode::kIo, "CountingFilter::load: stream read failed");
  if (in.gcount() != static_cast<std::streamsize>(kHeaderSize)) Bad("truncated header");
  const Header h = DecodeHeader(header);
  detail::Active();  // surfaces a bad SIMDBLOOM_TARGET here
  // The counters are allocated once the payload has arrived and matched its checksum, read in
  // bounded pieces before that: a header cannot make this allocate what the stream does not hold
  // (detail::ReadPayload).
  std::optional<CountingFilter> f;
  detail::ReadPayload(
      in, h.payload_bytes, h.checksum, Bad, "CountingFilter::load: stream read failed", [&] {
        f.emplace(CountingFilter(
            h.layout, h.num_blocks, h.k, h.seed, h.key_type,
            FilterAccess::Make(Layout::kClassic, h.payload_bytes / 64, 1, 0, KeyType::kNone)));
        return reinterpret_cast<uint8_t*>(f->Counters());
      });
  if (in.peek() != std::char_traits<char>::eof()) Bad("trailing bytes after the counters");
  f->present_ = h.present;
  return std::move(*f);
}

CountingFilter CountingFilter::load_file(const std::string& path) {
  return detail::LoadFile(path, "CountingFilter::load_file",
                          [](std::istream& in) { return load(in); });
}

CountingFilter CountingFilter::view(const uint8_t* data, size_t size, bool verify_checksum) {
  detail::CheckViewBytes("CountingFilter::view", data, size);
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const Header h = DecodeHeader(data);
  if (size - kHeaderSize != h.payload_bytes) Bad("payload size does not match the header");
  if (verify_checksum && scalar::Checksum(data + kHeaderSize, h.payload_bytes) != h.checksum) {
    Bad("payload checksum mismatch");
  }
  detail::Active();
  CountingFilter f(
      h.layout, h.num_blocks, h.k, h.seed, h.key_type,
      FilterAccess::MakeView(Layout::kClassic, h.payload_bytes / 64, 1, 0, KeyType::kNone,
                             reinterpret_cast<const uint64_t*>(data + kHeaderSize)));
  f.present_ = h.present;
  return f;
}

CountingFilter CountingFilter::map_file(const std::string& path, bool verify_checksum) {
  const auto file = detail::MappedFile::OpenWithHeader(path, "CountingFilter::map_file", Bad);
  CountingFilter f = view(file->data(), file->size(), verify_checksum);
  FilterAccess::Keep(f.store_, file);
  return f;
}

}  // namespace simdbloom
