// SPDX-License-Identifier: Apache-2.0
// The C API: shims that catch every exception and return status codes.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "kernels/registry.h"
#include "lib/capi/shim.h"
#include "lib/core/key_source.h"
#include "simdbloom/simdbloom.h"
#include "simdbloom/simdbloom.hpp"

// The C layout constants are the registry's format ids (kernels/registry.h).
#define SIMDBLOOM_X(Name, C_NAME)                                               \
  static_assert(SIMDBLOOM_##C_NAME == simdbloom::detail::Name##Spec::kFormatId, \
                "SIMDBLOOM_" #C_NAME " differs from kernels/registry.h");
SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X

static_assert(SIMDBLOOM_KEY_LEGACY == static_cast<int>(simdbloom::KeyType::kLegacy) &&
                  SIMDBLOOM_KEY_INT64 == static_cast<int>(simdbloom::KeyType::kInt64) &&
                  SIMDBLOOM_KEY_INT32 == static_cast<int>(simdbloom::KeyType::kInt32) &&
                  SIMDBLOOM_KEY_BYTES == static_cast<int>(simdbloom::KeyType::kBytes) &&
                  SIMDBLOOM_KEY_NONE == static_cast<int>(simdbloom::KeyType::kNone),
              "SIMDBLOOM_KEY_* differ from simdbloom::KeyType");

namespace simdbloom {
namespace capi {

namespace {
thread_local std::string g_last_error;

// "0x..." for messages.
std::string Address(const void* p) {
  char text[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(text, sizeof(text), "0x%jx",
                static_cast<uintmax_t>(reinterpret_cast<uintptr_t>(p)));
  return text;
}
}  // namespace

const char* LastError() noexcept { return g_last_error.c_str(); }

void Reject(std::string what) { throw Rejected{SIMDBLOOM_EINVAL, std::move(what)}; }

std::string_view WithoutCppName(std::string_view what) {
  size_t i = 0;
  while (i < what.size() && (std::isalnum(static_cast<unsigned char>(what[i])) || what[i] == '_' ||
                             (what[i] == ':' && i + 1 < what.size() && what[i + 1] == ':'))) {
    i += what[i] == ':' ? 2 : 1;
  }
  if (i > 0 && what.substr(i, 2) == ": ") return what.substr(i + 2);
  return what;
}

simdbloom_status Fail(simdbloom_status status, const char* who, std::string_view what) noexcept {
  try {
    std::string message(who);
    message += ": ";
    message += what;
    g_last_error = std::move(message);
  } catch (...) {
  }
  return status;
}

void NotNull(const void* p, const char* name) {
  if (p == nullptr) Reject(std::string(name) + " is NULL");
}

void NotNullIf(const void* p, size_t count, const char* name, const char* count_name) {
  if (p == nullptr && count != 0) {
    Reject(std::string(name) + " is NULL with " + count_name + " = " + std::to_string(count));
  }
}

void CheckCount(size_t count, size_t size, const char* count_name) {
  if (count > SIZE_MAX / size) {
    Reject(std::string(count_name) + " = " + std::to_string(count) + " entries of " +
           std::to_string(size) + " bytes exceed the address space");
  }
}

void CheckArray(const void* p, size_t count, size_t size, const char* name,
                const char* count_name) {
  CheckCount(count, size, count_name);
  NotNullIf(p, count, name, count_name);
  if (!detail::FitsAddressSpace(p, uint64_t{count} * size)) {
    Reject(std::string(name) + ": " + std::to_string(count) +
           (size == 1 ? " bytes" : " entries of " + std::to_string(size) + " bytes") + " at " +
           Address(p) + " pass the end of the address space");
  }
}

Layout LayoutOf(int layout) {
  if (layout < 0 || layout > 255 || detail::FindLayout(static_cast<uint8_t>(layout)) == nullptr) {
    std::string known;
    for (const detail::LayoutInfo& l : detail::kLayoutInfos) {
      known += (known.empty() ? "" : ", ") + std::to_string(static_cast<int>(l.id)) + " " + l.name;
    }
    Reject("layout " + std::to_string(layout) + " is not a layout (" + known + ")");
  }
  return static_cast<Layout>(layout);
}

KeyType KeyTypeOf(int t) {
  if (t < SIMDBLOOM_KEY_LEGACY || t > SIMDBLOOM_KEY_NONE) {
    Reject("key type " + std::to_string(t) +
           " is not a SIMDBLOOM_KEY_* (1 int64, 2 int32, 3 bytes; 0 legacy, 4 none)");
  }
  return static_cast<KeyType>(t);
}

std::string_view OneKey(const void* key, size_t length) {
  CheckArray(key, length, 1, "key", "length");
  return std::string_view(static_cast<const char*>(key), key == nullptr ? 0 : length);
}

Keys U64Keys(const uint64_t* keys, size_t n) {
  CheckArray(keys, n, sizeof(uint64_t), "keys", "n");
  return Span<const uint64_t>(keys, n);
}

namespace {

// Pointer i of an array of pointers to bytes passed as `const void*` (char*, const char*,
// unsigned char*, uint8_t*, void*: all have the representation of void*, C11 6.2.5p28). memcpy
// reads it whatever its declared type.
const char* KeyAt(const void* keys, size_t i) {
  const char* p;
  std::memcpy(&p, static_cast<const char*>(keys) + i * sizeof(p), sizeof(p));
  return p;
}

// Checks the arguments of the byte-string calls (every key, before anything is written): the
// arrays, and each key's pointer and length.
void CheckByteKeys(const void* keys, const size_t* lengths, size_t n) {
  CheckCount(n, sizeof(void*), "n");
  NotNullIf(keys, n, "keys", "n");
  NotNullIf(lengths, n, "lengths", "n");
  if (!simdbloom::detail::FitsAddressSpace(keys, n * sizeof(void*)) ||
      !simdbloom::detail::FitsAddressSpace(lengths, n * sizeof(size_t))) {
    Reject("keys or lengths, n = " + std::to_string(n) +
           " entries, pass the end of the address space");
  }
  for (size_t i = 0; i < n; ++i) {
    const char* p = KeyAt(keys, i);
    if (p == nullptr && lengths[i] != 0) {
      Reject("keys[" + std::to_string(i) + "] is NULL with lengths[" + std::to_string(i) +
             "] = " + std::to_string(lengths[i]));
    }
    if (!simdbloom::detail::FitsAddressSpace(p, lengths[i])) {
      Reject("keys[" + std::to_string(i) + "] with lengths[" + std::to_string(i) +
             "] = " + std::to_string(lengths[i]) + " passes the end of the address space");
    }
  }
}

// Byte-string keys as string_views, a tile at a time (no allocation). Checked by CheckByteKeys.
template <class Fn>
void StringTiles(const void* keys, const size_t* lengths, size_t n, Fn&& fn) {
  constexpr size_t kTile = 256;
  std::string_view tile[kTile];
  for (size_t i = 0; i < n; i += kTile) {
    const size_t m = n - i < kTile ? n - i : kTile;
    for (size_t j = 0; j < m; ++j) {
      const char* p = KeyAt(keys, i + j);
      tile[j] = std::string_view(p, p ? lengths[i + j] : 0);
    }
    fn(simdbloom::Span<const std::string_view>(tile, m), i);
  }
}

}  // namespace

// The C++ view of a simdbloom_keys, every field checked: the kind, the fields the kind does not
// use (zero), the pointers the count needs and counts beyond the address space. Arrow offsets
// (against the declared data size, keys->width, too), FixedWidth geometry and arrays that wrap
// the address space are checked further by the C++ call (ValidateKeys), before any work.
simdbloom::Keys KeysOf(const simdbloom_keys* keys) {
  NotNull(keys, "keys");
  const simdbloom_keys& k = *keys;
  if (k.kind < SIMDBLOOM_KEYS_U64 || k.kind > SIMDBLOOM_KEYS_FIXED_WIDTH) {
    Reject("keys->kind " + std::to_string(k.kind) + " is not a SIMDBLOOM_KEYS_* kind (1..6)");
  }
  const std::string kind = "kind " + std::to_string(k.kind);
  const bool binary = k.kind == SIMDBLOOM_KEYS_BINARY32 || k.kind == SIMDBLOOM_KEYS_BINARY64;
  if (binary && k.stride != 0) {
    Reject("keys->stride must be 0 for " + kind + " (it is for SIMDBLOOM_KEYS_FIXED_WIDTH)");
  }
  if (!binary && k.kind != SIMDBLOOM_KEYS_FIXED_WIDTH && (k.width != 0 || k.stride != 0)) {
    Reject("keys->width and keys->stride must be 0 for " + kind +
           " (they are for SIMDBLOOM_KEYS_FIXED_WIDTH, and width for BINARY32/64)");
  }
  if (!binary && k.data != nullptr) {
    Reject("keys->data must be NULL for " + kind + " (it is for SIMDBLOOM_KEYS_BINARY32/64)");
  }
  const auto* data = static_cast<const uint8_t*>(k.data);
  switch (k.kind) {
    case SIMDBLOOM_KEYS_U64:
    case SIMDBLOOM_KEYS_PREHASHED:
    case SIMDBLOOM_KEYS_U32:
      CheckCount(k.count, k.kind == SIMDBLOOM_KEYS_U32 ? 4 : 8, "keys->count");
      NotNullIf(k.keys, k.count, "keys->keys", "keys->count");
      break;
    case SIMDBLOOM_KEYS_BINARY32:
    case SIMDBLOOM_KEYS_BINARY64:
      // count + 1 offsets.
      CheckCount(k.count, k.kind == SIMDBLOOM_KEYS_BINARY32 ? 8 : 16, "keys->count");
      NotNullIf(k.keys, k.count, "keys->keys (the offsets)", "keys->count");
      break;
    case SIMDBLOOM_KEYS_FIXED_WIDTH:
      if (k.count > 0 && k.stride != 0 && k.count - 1 > (SIZE_MAX - k.width) / k.stride) {
        Reject("keys->count = " + std::to_string(k.count) + " records of stride " +
               std::to_string(k.stride) + " exceed the address space");
      }
      NotNullIf(k.keys, k.width == 0 ? 0 : k.count, "keys->keys (the records)", "keys->count");
      break;
  }
  switch (k.kind) {
    case SIMDBLOOM_KEYS_U64:
      return simdbloom::Span<const uint64_t>(static_cast<const uint64_t*>(k.keys), k.count);
    case SIMDBLOOM_KEYS_U32:
      return simdbloom::Span<const uint32_t>(static_cast<const uint32_t*>(k.keys), k.count);
    case SIMDBLOOM_KEYS_PREHASHED:
      return simdbloom::Prehashed{static_cast<const uint64_t*>(k.keys), k.count};
    case SIMDBLOOM_KEYS_BINARY32:  // width: the size of data, if declared
      return simdbloom::BinaryArray<int32_t>{static_cast<const int32_t*>(k.keys), data, k.count,
                                             k.width};
    case SIMDBLOOM_KEYS_BINARY64:
      return simdbloom::BinaryArray<int64_t>{static_cast<const int64_t*>(k.keys), data, k.count,
                                             k.width};
    default:
      return simdbloom::FixedWidth{static_cast<const uint8_t*>(k.keys), k.width, k.stride, k.count};
  }
}

// A constructor of a layout: checks the layout, then `out`, then stores make(layout) into it.
template <class Make>
simdbloom_status CreateFilter(const char* who, int layout, simdbloom_filter** out,
                              Make&& make) noexcept {
  return Guard(who, [&] {
    const Layout l = LayoutOf(layout);
    NotNull(out, "out");
    Wrap(make(l), out);
  });
}

}  // namespace capi
}  // namespace simdbloom

using namespace simdbloom::capi;  // NOLINT: the shims below are its only users

extern "C" {

const char* simdbloom_version(void) { return simdbloom::version(); }

const char* simdbloom_strerror(simdbloom_status status) {
  switch (status) {
    case SIMDBLOOM_OK:
      return "success";
    case SIMDBLOOM_EINVAL:
      return "invalid argument";
    case SIMDBLOOM_EUNKNOWN_TARGET:
      return "unknown or unsupported SIMD target";
    case SIMDBLOOM_ENOMEM:
      return "out of memory";
    case SIMDBLOOM_EFORMAT:
      return "not a valid filter";
    case SIMDBLOOM_EIO:
      return "input/output error";
    case SIMDBLOOM_EINCOMPATIBLE:
      return "incompatible filters";
    case SIMDBLOOM_EREADONLY:
      return "filter is a read-only view";
    case SIMDBLOOM_ECAPACITY:
      return "capacity exhausted";
    case SIMDBLOOM_EINTERNAL:
      return "internal error";
    default:
      return "unknown status";
  }
}

const char* simdbloom_last_error(void) { return simdbloom::capi::LastError(); }

simdbloom_status simdbloom_create(uint64_t expected_items, double fpp, int layout, uint64_t seed,
                                  simdbloom_filter** out) {
  return CreateFilter("simdbloom_create", layout, out, [&](simdbloom::Layout l) {
    return simdbloom::Filter::create(expected_items, fpp, l, seed);
  });
}

simdbloom_status simdbloom_with_bits(uint64_t bits, uint32_t k, int layout, uint64_t seed,
                                     simdbloom_filter** out) {
  return CreateFilter("simdbloom_with_bits", layout, out, [&](simdbloom::Layout l) {
    return simdbloom::Filter::with_bits(bits, k, l, seed);
  });
}

void simdbloom_free(simdbloom_filter* filter) { delete filter; }

simdbloom_status simdbloom_insert_u64(simdbloom_filter* filter, const uint64_t* keys, size_t n) {
  return Call("simdbloom_insert_u64", filter,
              [&](simdbloom::Filter& f) { f.insert(U64Keys(keys, n)); });
}

simdbloom_status simdbloom_contains_u64(const simdbloom_filter* filter, const uint64_t* keys,
                                        size_t n, uint8_t* out) {
  return Call("simdbloom_contains_u64", filter, [&](const simdbloom::Filter& f) {
    const simdbloom::Keys k = U64Keys(keys, n);
    NotNullIf(out, n, "out", "n");
    f.contains(k, out);
  });
}

simdbloom_status simdbloom_insert_bytes(simdbloom_filter* filter, const void* keys,
                                        const size_t* lengths, size_t n) {
  return Guard("simdbloom_insert_bytes", [&] {
    NotNull(filter, "filter");
    CheckByteKeys(keys, lengths, n);
    // No keys still checks, as insert_u64 does, that the filter is writable.
    if (n == 0) filter->filter.insert(simdbloom::Span<const std::string_view>());
    StringTiles(keys, lengths, n, [&](simdbloom::Span<const std::string_view> tile, size_t) {
      filter->filter.insert(tile);
    });
  });
}

simdbloom_status simdbloom_contains_bytes(const simdbloom_filter* filter, const void* keys,
                                          const size_t* lengths, size_t n, uint8_t* out) {
  return Guard("simdbloom_contains_bytes", [&] {
    NotNull(filter, "filter");
    CheckByteKeys(keys, lengths, n);
    NotNullIf(out, n, "out", "n");
    if (!simdbloom::detail::FitsAddressSpace(out, n))
      Reject("out, n = " + std::to_string(n) + " bytes, passes the end of the address space");
    StringTiles(keys, lengths, n, [&](simdbloom::Span<const std::string_view> tile, size_t i) {
      filter->filter.contains(tile, out + i);
    });
  });
}

simdbloom_status simdbloom_insert_keys(simdbloom_filter* filter, const simdbloom_keys* keys,
                                       uint64_t* changed) {
  return KeysCall("simdbloom_insert_keys", filter, keys, nullptr, nullptr, changed,
                  [&](simdbloom::Keys k) { return filter->filter.insert(k); });
}

simdbloom_status simdbloom_insert_keys_fresh(simdbloom_filter* filter, const simdbloom_keys* keys,
                                             uint8_t* fresh, uint64_t* changed) {
  return KeysCall("simdbloom_insert_keys_fresh", filter, keys, fresh, "fresh", changed,
                  [&](simdbloom::Keys k) { return filter->filter.insert(k, fresh); });
}

simdbloom_status simdbloom_contains_keys(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                         uint8_t* out, uint64_t* hits) {
  return KeysCall("simdbloom_contains_keys", filter, keys, out, "out", hits,
                  [&](simdbloom::Keys k) { return filter->filter.contains(k, out); });
}

simdbloom_status simdbloom_contains_bitmap(const simdbloom_filter* filter,
                                           const simdbloom_keys* keys, uint8_t* bitmap,
                                           uint64_t* hits) {
  return KeysCall("simdbloom_contains_bitmap", filter, keys, bitmap, "bitmap", hits,
                  [&](simdbloom::Keys k) { return filter->filter.contains_bitmap(k, bitmap); });
}

simdbloom_status simdbloom_select(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                  uint32_t* selection, uint64_t* selected) {
  return KeysCall("simdbloom_select", filter, keys, selection, "selection", selected,
                  [&](simdbloom::Keys k) {
                    if (k.size() > (uint64_t{1} << 32)) {
                      Reject("keys->count = " + std::to_string(k.size()) +
                             " exceeds 2^32, the most uint32_t selection indices can address");
                    }
                    return filter->filter.select(k, selection);
                  });
}

simdbloom_status simdbloom_refine(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                  uint32_t* selection, size_t count, uint64_t* remaining) {
  return KeysCall("simdbloom_refine", filter, keys, nullptr, nullptr, remaining,
                  [&](simdbloom::Keys k) {
                    CheckCount(count, sizeof(uint32_t), "count");
                    NotNullIf(selection, count, "selection", "count");
                    return filter->filter.refine(k, selection, count);
                  });
}

simdbloom_status simdbloom_hash_keys(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                     uint64_t* out) {
  return KeysCall("simdbloom_hash_keys", filter, keys, out, "out", nullptr, [&](simdbloom::Keys k) {
    filter->filter.hash(k, out);
    return uint64_t{0};
  });
}

simdbloom_status simdbloom_get_key_type(const simdbloom_filter* filter, simdbloom_key_type* out) {
  return GetKeyType("simdbloom_get_key_type", filter, out);
}

simdbloom_status simdbloom_set_key_type(simdbloom_filter* filter, int type) {
  return SetKeyType("simdbloom_set_key_type", filter, type);
}

SIMDBLOOM_CAPI_GETTER(int, simdbloom_filter, simdbloom_layout, f.layout())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_filter, simdbloom_bit_count, f.bit_count())
SIMDBLOOM_CAPI_GETTER(uint32_t, simdbloom_filter, simdbloom_num_hashes, f.num_hashes())
SIMDBLOOM_CAPI_GETTER(uint64_t, simdbloom_filter, simdbloom_inserted_count, f.inserted_count())
SIMDBLOOM_CAPI_GETTER(double, simdbloom_filter, simdbloom_expected_fpp, f.expected_fpp())

simdbloom_status simdbloom_merge(simdbloom_filter* filter, const simdbloom_filter* other) {
  return Pair("simdbloom_merge", filter, other, [](auto& f, const auto& o) { f.merge(o); });
}

simdbloom_status simdbloom_intersect(simdbloom_filter* filter, const simdbloom_filter* other) {
  return Pair("simdbloom_intersect", filter, other, [](auto& f, const auto& o) { f.intersect(o); });
}

int simdbloom_compatible(const simdbloom_filter* a, const simdbloom_filter* b) {
  return Predicate("simdbloom_compatible", a, b,
                   [](const auto& x, const auto& y) { return x.compatible(y); });
}

size_t simdbloom_serialized_size(const simdbloom_filter* filter) {
  return SerializedSizeOf("simdbloom_serialized_size", filter);
}

simdbloom_status simdbloom_serialize(const simdbloom_filter* filter, void* buf, size_t capacity) {
  return Serialize("simdbloom_serialize", filter, buf, capacity);
}

simdbloom_status simdbloom_save(const simdbloom_filter* filter, const char* path) {
  return Save("simdbloom_save", filter, path);
}

simdbloom_status simdbloom_load(const char* path, simdbloom_filter** out) {
  return Load("simdbloom_load", path, out);
}

simdbloom_status simdbloom_load_bytes(const void* data, size_t size, simdbloom_filter** out) {
  return LoadBytes("simdbloom_load_bytes", data, size, out);
}

simdbloom_status simdbloom_view(const void* data, size_t size, int verify_checksum,
                                simdbloom_filter** out) {
  return Guard("simdbloom_view", [&] {
    NotNull(data, "data");
    NotNull(out, "out");
    Wrap(simdbloom::Filter::view(static_cast<const uint8_t*>(data), size, verify_checksum != 0),
         out);
  });
}

simdbloom_status simdbloom_map_file(const char* path, int verify_checksum, simdbloom_filter** out) {
  return MapFile("simdbloom_map_file", path, verify_checksum, out);
}

}  // extern "C"
