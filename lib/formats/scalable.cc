// SPDX-License-Identifier: Apache-2.0
// ScalableFilter's file format (lib/FORMAT.md, "Scalable chains"): a 64-byte header, the stage
// table and its checksum, then each stage as a Filter file. save, to_bytes, from_bytes and load
// from a stream; every size is checked against the input before a stage is allocated.
#include "simdbloom/scalable.hpp"

#include <cstring>
#include <istream>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "kernels/scalar/hash.h"
#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "lib/formats/file_io.h"
#include "lib/formats/kinds.h"
#include "lib/kinds/scalable_chain.h"

namespace simdbloom {
namespace {

using detail::FileKindId;
using detail::GetU32, detail::GetU64, detail::PutU32, detail::PutU64;  // file_io.h
using detail::Invalid;
using detail::scalable::NextCapacity, detail::scalable::ParameterProblem,
    detail::scalable::StageFpp;

constexpr size_t kHeaderSize = detail::kFileHeaderSize;
constexpr size_t kEntrySize = 16;  // per stage: count, stage bytes
constexpr uint32_t kVersion = detail::FileKindOf(FileKindId::kScalable).version;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kFormat, "not a valid simdbloom scalable chain: " + what);
}

void PutF64(uint8_t* p, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  PutU64(p, bits);
}
double GetF64(const uint8_t* p) {
  const uint64_t bits = GetU64(p);
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}

// The header, stage table and their checksum: what precedes the stages in a file.
struct ChainHeader {
  Layout layout;
  uint32_t stages;
  uint64_t initial;
  double fpp, growth, tightening;
  uint64_t seed;
  std::vector<uint64_t> counts, bytes, capacities;
  uint64_t stage_bytes_total;  // sum of bytes
  KeyType key_type = KeyType::kLegacy;
};

size_t PrefixSize(uint32_t stages) { return kHeaderSize + kEntrySize * stages + 8; }

// Validates the fixed 64 bytes (everything but what the checksum alone can tell) and returns the
// stage count.
uint32_t DecodeFixed(const uint8_t* h) {
  // The header checksum covers the stage table too: DecodePrefix checks it.
  detail::CheckHeaderStart(h, FileKindId::kScalable, /*header_checksum=*/false, Bad);
  if (!detail::KnownLayout(static_cast<Layout>(h[16]))) {
    Bad("unknown layout " + std::to_string(h[16]));
  }
  KeyType type;
  if (!detail::KeyTypeFromByte(h[17], &type)) Bad("key type " + std::to_string(h[17]));
  if (h[18] != 0 || h[19] != 0) Bad("reserved bytes are not zero");
  const uint32_t stages = GetU32(h + 20);
  if (stages == 0 || stages > ScalableFilter::kMaxStages) {
    Bad("stage count " + std::to_string(stages));
  }
  return stages;
}

// Validates header + table + checksum (PrefixSize(stages) bytes at h); `available`: bytes that
// follow them. Nothing is allocated beyond the 64-entry table.
ChainHeader DecodePrefix(const uint8_t* h, uint64_t available) {
  ChainHeader c;
  c.stages = DecodeFixed(h);
  const size_t table_end = kHeaderSize + kEntrySize * c.stages;
  if (scalar::Checksum(h, table_end) != GetU64(h + table_end)) Bad("header checksum mismatch");
  c.layout = static_cast<Layout>(h[16]);
  detail::KeyTypeFromByte(h[17], &c.key_type);  // (checked by DecodeFixed)
  c.initial = GetU64(h + 24);
  c.fpp = GetF64(h + 32);
  c.growth = GetF64(h + 40);
  c.tightening = GetF64(h + 48);
  c.seed = GetU64(h + 56);
  const std::string problem = ParameterProblem(c.initial, c.fpp, c.growth, c.tightening, c.layout);
  if (!problem.empty()) Bad(problem);
  c.stage_bytes_total = 0;
  uint64_t cap = c.initial;
  for (uint32_t i = 0; i < c.stages; ++i) {
    if (i > 0) cap = NextCapacity(cap, c.growth);
    if (cap == 0) Bad("stage " + std::to_string(i) + " capacity beyond 2^62");
    const uint8_t* e = h + kHeaderSize + kEntrySize * i;
    const uint64_t count = GetU64(e), bytes = GetU64(e + 8);
    if (count > cap) {
      Bad("stage " + std::to_string(i) + " holds " + std::to_string(count) +
          " keys, its capacity is " + std::to_string(cap));
    }
    if (bytes < kHeaderSize || bytes > available - c.stage_bytes_total) {
      Bad("stage " + std::to_string(i) + " of " + std::to_string(bytes) + " bytes, " +
          std::to_string(available - c.stage_bytes_total) + " left in the input");
    }
    c.stage_bytes_total += bytes;
    c.counts.push_back(count);
    c.bytes.push_back(bytes);
    c.capacities.push_back(cap);
  }
  if (c.stage_bytes_total != available) {
    Bad(std::to_string(available - c.stage_bytes_total) + " trailing bytes after the stages");
  }
  return c;
}

// A std::streambuf that appends to a vector (to_bytes reuses Filter::save).
class AppendBuf : public std::streambuf {
 public:
  explicit AppendBuf(std::vector<uint8_t>* out) : out_(out) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_->insert(out_->end(), reinterpret_cast<const uint8_t*>(s),
                 reinterpret_cast<const uint8_t*>(s) + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      out_->push_back(static_cast<uint8_t>(c));
    }
    return traits_type::not_eof(c);
  }

 private:
  std::vector<uint8_t>* out_;
};

}  // namespace

// ---- Persistence ----

size_t ScalableFilter::serialized_size() const noexcept {
  size_t total = PrefixSize(static_cast<uint32_t>(stages_.size()));
  for (const Filter& f : stages_) total += f.serialized_size();
  return total;
}

namespace {

std::vector<uint8_t> EncodePrefix(const ScalableFilter& s) {
  const uint32_t n = static_cast<uint32_t>(s.stages());
  std::vector<uint8_t> h(PrefixSize(n), 0);
  detail::BeginHeader(h.data(), FileKindId::kScalable, kVersion);
  h[16] = static_cast<uint8_t>(s.layout());
  h[17] = static_cast<uint8_t>(s.key_type());
  PutU32(&h[20], n);
  PutU64(&h[24], s.initial_capacity());
  PutF64(&h[32], s.fpp());
  PutF64(&h[40], s.growth());
  PutF64(&h[48], s.tightening());
  PutU64(&h[56], s.seed());
  for (uint32_t i = 0; i < n; ++i) {
    PutU64(&h[kHeaderSize + kEntrySize * i], s.stage_count(i));
    PutU64(&h[kHeaderSize + kEntrySize * i + 8], s.stage(i).serialized_size());
  }
  const size_t table_end = kHeaderSize + kEntrySize * n;
  PutU64(&h[table_end], scalar::Checksum(h.data(), table_end));
  return h;
}

}  // namespace

void ScalableFilter::save(std::ostream& out) const {
  CheckUsable("save");
  const std::vector<uint8_t> prefix = EncodePrefix(*this);
  out.write(reinterpret_cast<const char*>(prefix.data()),
            static_cast<std::streamsize>(prefix.size()));
  if (!out) throw Error(ErrorCode::kIo, "ScalableFilter::save: the stream failed while writing");
  for (const Filter& f : stages_) f.save(out);
}

void ScalableFilter::save_file(const std::string& path) const {
  CheckUsable("save_file");
  detail::SaveFile(path, "ScalableFilter::save_file", [this](std::ostream& out) { save(out); });
}

std::vector<uint8_t> ScalableFilter::to_bytes() const {
  CheckUsable("to_bytes");
  std::vector<uint8_t> out = EncodePrefix(*this);
  out.reserve(serialized_size());
  AppendBuf buf(&out);
  std::ostream stream(&buf);
  for (const Filter& f : stages_) f.save(stream);
  return out;
}

// The loaders' access to a chain under construction (declared a friend by ScalableFilter).
struct ScalableAccess {
  static ScalableFilter Empty(const ChainHeader& c) {
    ScalableFilter s;
    s.initial_capacity_ = c.initial;
    s.fpp_ = c.fpp;
    s.growth_ = c.growth;
    s.tightening_ = c.tightening;
    s.layout_ = c.layout;
    s.seed_ = c.seed;
    s.keys_.Set(c.key_type);
    s.stages_.reserve(c.stages);
    s.counts_.reserve(c.stages);
    s.capacities_.reserve(c.stages);
    return s;
  }
  // Loads stage i from exactly its `size` bytes and checks it belongs to the chain.
  static void Adopt(ScalableFilter* s, const ChainHeader& c, uint32_t i, const uint8_t* data,
                    size_t size) {
    const std::string which = "stage " + std::to_string(i) + ": ";
    Filter f = [&] {
      try {
        return Filter::load(data, size);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::kFormat) throw;
        Bad(which + e.what());
      }
    }();
    if (f.layout() != c.layout) Bad(which + "layout differs from the chain's");
    if (f.seed() != c.seed) Bad(which + "seed differs from the chain's");
    if (f.key_type() != c.key_type) Bad(which + "key type differs from the chain's");
    // Sized for its share of fpp at its capacity (create() aims at 0.97 of it).
    const double share = StageFpp(c.fpp, c.tightening, i);
    if (!(f.predicted_fpp(c.capacities[i]) <= share)) {
      Bad(which + "too small for its capacity " + std::to_string(c.capacities[i]) + " at rate " +
          std::to_string(share));
    }
    s->stages_.push_back(std::move(f));
    s->counts_.push_back(c.counts[i]);
    s->capacities_.push_back(c.capacities[i]);
  }
};

ScalableFilter ScalableFilter::from_bytes(const uint8_t* data, size_t size) {
  if (data == nullptr && size > 0) {
    Invalid("ScalableFilter::from_bytes: null data with non-zero size");
  }
  if (size < kHeaderSize) Bad("truncated header (" + std::to_string(size) + " bytes)");
  const uint32_t n = DecodeFixed(data);
  if (size < PrefixSize(n)) Bad("truncated stage table (" + std::to_string(size) + " bytes)");
  // Every size is checked against the input here, before any stage is allocated.
  const ChainHeader c = DecodePrefix(data, size - PrefixSize(n));
  ScalableFilter s = ScalableAccess::Empty(c);
  size_t at = PrefixSize(n);
  for (uint32_t i = 0; i < n; ++i) {
    ScalableAccess::Adopt(&s, c, i, data + at, static_cast<size_t>(c.bytes[i]));
    at += static_cast<size_t>(c.bytes[i]);
  }
  return s;
}

ScalableFilter ScalableFilter::load(std::istream& in) {
  const auto check_readable = [&] {
    if (in.bad())
      throw Error(ErrorCode::kIo, "ScalableFilter::load: the stream failed while reading");
  };
  uint8_t prefix[kHeaderSize + kEntrySize * kMaxStages + 8];
  in.read(reinterpret_cast<char*>(prefix), kHeaderSize);
  check_readable();
  if (in.gcount() != static_cast<std::streamsize>(kHeaderSize)) {
    Bad("truncated header (" + std::to_string(in.gcount()) + " bytes)");
  }
  const uint32_t n = DecodeFixed(prefix);
  const size_t rest = PrefixSize(n) - kHeaderSize;
  in.read(reinterpret_cast<char*>(prefix + kHeaderSize), static_cast<std::streamsize>(rest));
  check_readable();
  if (in.gcount() != static_cast<std::streamsize>(rest)) Bad("truncated stage table");
  // The stage sizes come from the checksummed table; a seekable stream must hold exactly them.
  // Any other is read a stage at a time into a buffer that grows with the bytes received, so a
  // table claiming gigabytes costs no more memory than the stream delivers.
  const std::istream::pos_type start = in.tellg();
  uint64_t available = UINT64_MAX;
  if (start != std::istream::pos_type(-1)) {
    in.seekg(0, std::ios::end);
    const std::istream::pos_type end = in.tellg();
    in.seekg(start);
    if (end == std::istream::pos_type(-1) || !in) Bad("stream cannot be measured");
    available = static_cast<uint64_t>(end - start);
  }
  // With an unmeasured stream, `available` is taken as the table's own total; the reads below
  // then find out whether the stream holds it.
  uint64_t claimed = 0;
  if (available == UINT64_MAX) {
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t b = GetU64(prefix + kHeaderSize + kEntrySize * i + 8);
      claimed = b > UINT64_MAX - claimed ? UINT64_MAX - 1 : claimed + b;
    }
    available = claimed;
  }
  const ChainHeader c = DecodePrefix(prefix, available);
  ScalableFilter s = ScalableAccess::Empty(c);
  // Each stage is a Filter file: its header is read, then its payload in bounded pieces, and the
  // stage's memory is allocated only once that payload has matched the checksum in the stage's
  // header (detail::ReadPayload): a table or a stage header claiming gigabytes costs no more memory
  // than the stream delivers, nor does a stage of the claimed size whose bytes are wrong.
  std::vector<uint8_t> staged;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t want = c.bytes[i];  // at least kHeaderSize (DecodePrefix)
    const std::string which = "stage " + std::to_string(i);
    uint8_t stage_header[kHeaderSize];
    in.read(reinterpret_cast<char*>(stage_header), kHeaderSize);
    if (static_cast<size_t>(in.gcount()) != kHeaderSize) {
      check_readable();
      Bad(which + " truncated (" + std::to_string(in.gcount()) + " of " + std::to_string(want) +
          " bytes)");
    }
    // A header that is not a filter's is refused with Filter::load's reason, before its payload.
    if (scalar::Checksum(stage_header, 56) != GetU64(stage_header + 56)) {
      ScalableAccess::Adopt(&s, c, i, stage_header, kHeaderSize);
    }
    staged.clear();
    detail::ReadPayload(
        in, want - kHeaderSize, GetU64(stage_header + 48),
        [&](const std::string& what) { Bad(which + ": " + what); },
        "ScalableFilter::load: the stream failed while reading",
        [&] {
          staged.resize(static_cast<size_t>(want));
          std::memcpy(staged.data(), stage_header, kHeaderSize);
          return staged.data() + kHeaderSize;
        });
    ScalableAccess::Adopt(&s, c, i, staged.data(), staged.size());
  }
  if (in.peek() != std::char_traits<char>::eof()) Bad("trailing bytes after the stages");
  check_readable();
  return s;
}

ScalableFilter ScalableFilter::load_file(const std::string& path) {
  return detail::LoadFile(path, "ScalableFilter::load_file",
                          [](std::istream& in) { return load(in); });
}

}  // namespace simdbloom
