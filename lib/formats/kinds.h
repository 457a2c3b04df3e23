// SPDX-License-Identifier: Apache-2.0
// Internal: the kinds of filter file, declared once, and the codec of the header start they share.
//
// Two lists, two layers. kernels/registry.h lists what the kernels know: each layout (its spec:
// name, format id, sizes, hash family; SIMDBLOOM_FOR_EACH_LAYOUT) and each kind's kernel table slot
// (SIMDBLOOM_FOR_EACH_KIND). kernels/ must not depend on lib/ (tests/scripts/check_includes.py),
// and a file's magic, version and loader are the file format's business, not a kernel's: so the
// file kinds are listed here, in lib/formats/, one line each. From this list come
//   - each kind's magic and format version (its save/load code in lib/formats/<kind>.cc and the
//     header codec below read them here: each magic is written once, in this file);
//   - the kind's name, as `simdbloom info` and the command's JSON "kind" print it (KindName);
//   - the command's FileKind and its detection of a file by its first 8 bytes (FileKindOfMagic;
//     Guava's writeTo bytes, which have no magic, by LooksLikeGuava);
//   - the names of the counting layouts (SIMDBLOOM_FOR_EACH_COUNTING_LAYOUT: CountingLayout's
//     values, counting_layout_name, the C constants SIMDBLOOM_COUNTING_* checked by static_asserts
//     in lib/capi/kinds.cc, Python's CountingLayout enum).
// tests/scripts/check_registry.py fails when a magic or a kind name is written twice in lib/.
// Adding a kind of file: one line below, its save/load in lib/formats/<kind>.cc, a case in the
// command's loader (lib/cli/key_set.cc LoadKind: StoredFilter holds one member per class).
#ifndef SIMDBLOOM_LIB_FORMATS_KINDS_H_
#define SIMDBLOOM_LIB_FORMATS_KINDS_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

#include "kernels/scalar/hash.h"
#include "lib/formats/file_io.h"

// X(Id, name, magic, oldest version read, version written, hash): FileKindId::k<Id>; `name` as info
// prints it; the 8-byte magic the file starts with (lib/FORMAT.md); the hash id its header records
// (HashId below), or 0: the layout's (a plain filter: kernels/registry.h's hash family; a chain's
// stages are plain filters), or none recorded (the shifting set filters hash with XXH3).
#define SIMDBLOOM_FOR_EACH_FILE_KIND(X)                \
  X(Plain, "plain", "SIMDBLOM", 1, 1, 0)               \
  X(Scalable, "scalable", "SIMDBSCL", 1, 1, 0)         \
  X(Counting, "counting", "SBCOUNT1", 1, 1, kHashXxh3) \
  X(Spatial, "spatial", "SIMDBSBF", 1, 2, kHashXxh3)   \
  X(ShbfA, "shbf_a", "SIMDSHBA", 1, 1, 0)              \
  X(ShbfX, "shbf_x", "SIMDSHBX", 1, 1, 0)

// X(Id, name, C_NAME): CountingLayout::k<Id> = SIMDBLOOM_<C_NAME> = the layout byte of a counting
// file; kernels/registry.h's counting_<name> kernel slot.
#define SIMDBLOOM_FOR_EACH_COUNTING_LAYOUT(X) \
  X(Blocked, "blocked", COUNTING_BLOCKED)     \
  X(Classic, "classic", COUNTING_CLASSIC)

namespace simdbloom {
namespace detail {

enum class FileKindId : uint8_t {
#define SIMDBLOOM_X(Id, name, magic, oldest, version, hash) k##Id,
  SIMDBLOOM_FOR_EACH_FILE_KIND(SIMDBLOOM_X)
#undef SIMDBLOOM_X
};

// The hash ids a header records (lib/FORMAT.md): XXH3-64, XXH64, Murmur3 x64 128 (seed 0).
enum HashId : uint8_t { kHashXxh3 = 1, kHashXxh64 = 2, kHashMurmur3 = 3 };

struct FileKindInfo {
  FileKindId id;
  const char* name;
  const char* magic;  // 8 bytes (and a terminating NUL)
  uint32_t oldest_version, version;
  uint8_t hash_id;  // HashId, or 0 (see the list)
};

constexpr FileKindInfo kFileKinds[] = {
#define SIMDBLOOM_X(Id, name, magic, oldest, version, hash) \
  {FileKindId::k##Id, name, magic, oldest, version, hash},
    SIMDBLOOM_FOR_EACH_FILE_KIND(SIMDBLOOM_X)
#undef SIMDBLOOM_X
};
constexpr size_t kNumFileKinds = sizeof(kFileKinds) / sizeof(kFileKinds[0]);

constexpr const FileKindInfo& FileKindOf(FileKindId id) { return kFileKinds[static_cast<int>(id)]; }
constexpr const char* MagicOf(FileKindId id) { return FileKindOf(id).magic; }
constexpr const char* FileKindName(FileKindId id) { return FileKindOf(id).name; }

// The kind whose magic `first` starts with (at least 8 bytes), or nullptr. O(kinds).
inline const FileKindInfo* FileKindOfMagic(std::string_view first) {
  if (first.size() < 8) return nullptr;
  for (const FileKindInfo& k : kFileKinds) {
    if (std::memcmp(first.data(), k.magic, 8) == 0) return &k;
  }
  return nullptr;
}

// Whether `first` (the first bytes of an input) looks like Guava's writeTo form, which has no
// magic: its strategy ordinal (0 or 1), k (1..255) and a positive big-endian int32 count of longs.
// Every simdbloom file starts with 'S' (a magic above), which is none of these.
inline bool LooksLikeGuava(std::string_view first) {
  if (first.size() < 6) return false;
  const auto b = [&](size_t i) { return static_cast<uint8_t>(first[i]); };
  const uint32_t count = uint32_t{b(2)} << 24 | uint32_t{b(3)} << 16 | uint32_t{b(4)} << 8 | b(5);
  return b(0) <= 1 && b(1) != 0 && count != 0 && count < (uint32_t{1} << 31);
}

// ---- The header codec: the fields every 64-byte header starts and ends with ----
// (lib/FORMAT.md: magic at 0, format version at 8, header size at 12; a kind that has them, the
// payload checksum at 48 and the header checksum, scalar::Checksum of bytes 0..55, at 56.)

// The size of every header (a scalable chain's fixed part).
constexpr uint32_t kFileHeaderSize = 64;

// Zeroes the 64 bytes at h and writes the magic of `kind`, `version` and the header size.
inline void BeginHeader(uint8_t* h, FileKindId kind, uint32_t version) {
  std::memset(h, 0, kFileHeaderSize);
  std::memcpy(h, MagicOf(kind), 8);
  PutU32(h + 8, version);
  PutU32(h + 12, kFileHeaderSize);
}
// Writes the payload checksum at 48 and then the header checksum at 56.
inline void SealHeader(uint8_t* h, uint64_t payload_checksum) {
  PutU64(h + 48, payload_checksum);
  PutU64(h + 56, scalar::Checksum(h, 56));
}

// Writes `size` bytes at `bytes` to `out` (the stream's state tells whether it failed).
inline void WriteBytes(std::ostream& out, const void* bytes, uint64_t size) {
  out.write(static_cast<const char*>(bytes), static_cast<std::streamsize>(size));
}
// Writes a 64-byte header and then `size` payload bytes; Error(kIo, io_what) if the stream failed.
inline void WriteHeaderAndPayload(std::ostream& out, const uint8_t* h, const void* payload,
                                  uint64_t size, const char* io_what) {
  WriteBytes(out, h, kFileHeaderSize);
  WriteBytes(out, payload, size);
  if (!out) throw Error(ErrorCode::kIo, io_what);
}

// Checks the start of a header of `kind`, in this order: the magic, the format version (the
// kind's oldest .. newest; returned), the header checksum (with `header_checksum` false the caller
// checks a checksum of its own later, as ScalableFilter's covers its stage table), the header size.
// `bad` throws Error(kFormat) with the kind's message prefix ("not a valid simdbloom filter: ");
// the texts after it are the same for every kind. Reads 64 bytes; allocates only for a message.
inline uint32_t CheckHeaderStart(const uint8_t* h, FileKindId kind, bool header_checksum,
                                 void (*bad)(const std::string& what)) {
  const FileKindInfo& info = FileKindOf(kind);
  if (std::memcmp(h, info.magic, 8) != 0) bad("bad magic");
  const uint32_t found = GetU32(h + 8);
  if (found < info.oldest_version || found > info.version) {
    const std::string lo = std::to_string(info.oldest_version), hi = std::to_string(info.version);
    bad("format version " + std::to_string(found) + " (this library reads " +
        (info.oldest_version == info.version
             ? "version " + hi
             : "versions " + lo + (info.version == info.oldest_version + 1 ? " and " : " to ") +
                   hi) +
        ")");
  }
  if (header_checksum && scalar::Checksum(h, 56) != GetU64(h + 56)) bad("header checksum mismatch");
  if (GetU32(h + 12) != kFileHeaderSize) bad("header size " + std::to_string(GetU32(h + 12)));
  return found;
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_FORMATS_KINDS_H_
