// SPDX-License-Identifier: Apache-2.0
// The C API: shims that catch every exception and return status codes.
#include <cctype>
#include <cstdint>
#include <cstring>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "kernels/registry.h"
#include "lib/core/key_source.h"
#include "simdbloom/simdbloom.h"
#include "simdbloom/simdbloom.hpp"

// The C layout constants are the registry's format ids (kernels/registry.h).
#define SIMDBLOOM_X(Name, C_NAME)                                               \
  static_assert(SIMDBLOOM_##C_NAME == simdbloom::detail::Name##Spec::kFormatId, \
                "SIMDBLOOM_" #C_NAME " differs from kernels/registry.h");
SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X

struct simdbloom_filter {
  simdbloom::Filter filter;
};

namespace {

thread_local std::string g_last_error;

// An argument the C layer itself refuses; `what` does not yet name the C function.
struct Rejected {
  simdbloom_status status;
  std::string what;
};

[[noreturn]] void Reject(std::string what) { throw Rejected{SIMDBLOOM_EINVAL, std::move(what)}; }

// A C++ message without the C++ function that threw it: "with_bits: k = 7 ..." -> "k = 7 ...",
// "Filter::create: ..." -> "...". Messages that do not start with such a name are kept whole
// ("not a valid simdbloom filter: bad magic").
std::string_view WithoutCppName(std::string_view what) {
  size_t i = 0;
  while (i < what.size() && (std::isalnum(static_cast<unsigned char>(what[i])) || what[i] == '_' ||
                             (what[i] == ':' && i + 1 < what.size() && what[i + 1] == ':'))) {
    i += what[i] == ':' ? 2 : 1;
  }
  if (i > 0 && what.substr(i, 2) == ": ") return what.substr(i + 2);
  return what;
}

// Sets this thread's last error to "who: what". Never throws: if even that allocation fails, the
// previous message is kept.
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

// Runs `fn`, mapping exceptions to status codes and messages that start with `who`, the C
// function the caller called (never the C++ function that threw).
template <class Fn>
simdbloom_status Guard(const char* who, Fn&& fn) noexcept {
  try {
    fn();
    return SIMDBLOOM_OK;
  } catch (const Rejected& r) {
    return Fail(r.status, who, r.what);
  } catch (const simdbloom::Error& e) {
    return Fail(static_cast<simdbloom_status>(e.code()), who, WithoutCppName(e.what()));
  } catch (const std::bad_alloc&) {
    return Fail(SIMDBLOOM_ENOMEM, who, "out of memory");
  } catch (const std::exception& e) {
    return Fail(SIMDBLOOM_EINTERNAL, who, WithoutCppName(e.what()));
  } catch (...) {
    return Fail(SIMDBLOOM_EINTERNAL, who, "unknown exception");
  }
}

void NotNull(const void* p, const char* name) {
  if (p == nullptr) Reject(std::string(name) + " is NULL");
}

// A pointer that must be set when `count` (named `count_name`) is non-zero.
void NotNullIf(const void* p, size_t count, const char* name, const char* count_name) {
  if (p == nullptr && count != 0) {
    Reject(std::string(name) + " is NULL with " + count_name + " = " + std::to_string(count));
  }
}

// `count` entries of `size` bytes must fit the address space to be an array at all.
void CheckCount(size_t count, size_t size, const char* count_name) {
  if (count > SIZE_MAX / size) {
    Reject(std::string(count_name) + " = " + std::to_string(count) + " entries of " +
           std::to_string(size) + " bytes exceed the address space");
  }
}

simdbloom::Layout LayoutOf(int layout) {
  if (layout < 0 || layout > 255 ||
      simdbloom::detail::FindLayout(static_cast<uint8_t>(layout)) == nullptr) {
    std::string known;
    for (const simdbloom::detail::LayoutInfo& l : simdbloom::detail::kLayoutInfos) {
      known += (known.empty() ? "" : ", ") + std::to_string(static_cast<int>(l.id)) + " " + l.name;
    }
    Reject("layout " + std::to_string(layout) + " is not a layout (" + known + ")");
  }
  return static_cast<simdbloom::Layout>(layout);
}

void Wrap(simdbloom::Filter&& f, simdbloom_filter** out) {
  *out = new simdbloom_filter{std::move(f)};
}

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

// Runs fn(Keys) -> uint64_t under Guard after checking the filter and keys, and stores the result
// in *result if that is not null. `out` (named `out_name`) must be set when there are keys,
// unless out_name is null.
template <class Fn>
simdbloom_status KeysCall(const char* who, const void* filter, const simdbloom_keys* keys,
                          const void* out, const char* out_name, uint64_t* result, Fn&& fn) {
  return Guard(who, [&] {
    NotNull(filter, "filter");
    const simdbloom::Keys k = KeysOf(keys);
    if (out_name != nullptr) NotNullIf(out, k.size(), out_name, "keys->count");
    const uint64_t r = fn(k);
    if (result != nullptr) *result = r;
  });
}

// The value of a getter, or `none` (and a last error) for a NULL filter.
template <class T, class Fn>
T Get(const char* who, const simdbloom_filter* filter, T none, Fn&& fn) noexcept {
  if (filter == nullptr) {
    Fail(SIMDBLOOM_EINVAL, who, "filter is NULL");
    return none;
  }
  return fn(filter->filter);
}

}  // namespace

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
    case SIMDBLOOM_EINTERNAL:
      return "internal error";
    default:
      return "unknown status";
  }
}

const char* simdbloom_last_error(void) { return g_last_error.c_str(); }

simdbloom_status simdbloom_create(uint64_t expected_items, double fpp, int layout, uint64_t seed,
                                  simdbloom_filter** out) {
  return Guard("simdbloom_create", [&] {
    const simdbloom::Layout l = LayoutOf(layout);
    NotNull(out, "out");
    Wrap(simdbloom::Filter::create(expected_items, fpp, l, seed), out);
  });
}

simdbloom_status simdbloom_with_bits(uint64_t bits, uint32_t k, int layout, uint64_t seed,
                                     simdbloom_filter** out) {
  return Guard("simdbloom_with_bits", [&] {
    const simdbloom::Layout l = LayoutOf(layout);
    NotNull(out, "out");
    Wrap(simdbloom::Filter::with_bits(bits, k, l, seed), out);
  });
}

void simdbloom_free(simdbloom_filter* filter) { delete filter; }

simdbloom_status simdbloom_insert_u64(simdbloom_filter* filter, const uint64_t* keys, size_t n) {
  return Guard("simdbloom_insert_u64", [&] {
    NotNull(filter, "filter");
    CheckCount(n, sizeof(uint64_t), "n");
    NotNullIf(keys, n, "keys", "n");
    filter->filter.insert(simdbloom::Span<const uint64_t>(keys, n));
  });
}

simdbloom_status simdbloom_contains_u64(const simdbloom_filter* filter, const uint64_t* keys,
                                        size_t n, uint8_t* out) {
  return Guard("simdbloom_contains_u64", [&] {
    NotNull(filter, "filter");
    CheckCount(n, sizeof(uint64_t), "n");
    NotNullIf(keys, n, "keys", "n");
    NotNullIf(out, n, "out", "n");
    filter->filter.contains(simdbloom::Span<const uint64_t>(keys, n), out);
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

int simdbloom_layout(const simdbloom_filter* filter) {
  return Get("simdbloom_layout", filter, 0,
             [](const simdbloom::Filter& f) { return static_cast<int>(f.layout()); });
}
uint64_t simdbloom_bit_count(const simdbloom_filter* filter) {
  return Get("simdbloom_bit_count", filter, uint64_t{0},
             [](const simdbloom::Filter& f) { return f.bit_count(); });
}
uint32_t simdbloom_num_hashes(const simdbloom_filter* filter) {
  return Get("simdbloom_num_hashes", filter, uint32_t{0},
             [](const simdbloom::Filter& f) { return f.num_hashes(); });
}
uint64_t simdbloom_inserted_count(const simdbloom_filter* filter) {
  return Get("simdbloom_inserted_count", filter, uint64_t{0},
             [](const simdbloom::Filter& f) { return f.inserted_count(); });
}
double simdbloom_expected_fpp(const simdbloom_filter* filter) {
  return Get("simdbloom_expected_fpp", filter, 0.0,
             [](const simdbloom::Filter& f) { return f.expected_fpp(); });
}

simdbloom_status simdbloom_merge(simdbloom_filter* filter, const simdbloom_filter* other) {
  return Guard("simdbloom_merge", [&] {
    NotNull(filter, "filter");
    NotNull(other, "other");
    filter->filter.merge(other->filter);
  });
}

simdbloom_status simdbloom_intersect(simdbloom_filter* filter, const simdbloom_filter* other) {
  return Guard("simdbloom_intersect", [&] {
    NotNull(filter, "filter");
    NotNull(other, "other");
    filter->filter.intersect(other->filter);
  });
}

int simdbloom_compatible(const simdbloom_filter* a, const simdbloom_filter* b) {
  if (a == nullptr || b == nullptr) {
    Fail(SIMDBLOOM_EINVAL, "simdbloom_compatible", a == nullptr ? "a is NULL" : "b is NULL");
    return 0;
  }
  return a->filter.compatible(b->filter) ? 1 : 0;
}

size_t simdbloom_serialized_size(const simdbloom_filter* filter) {
  return Get("simdbloom_serialized_size", filter, size_t{0},
             [](const simdbloom::Filter& f) { return f.serialized_size(); });
}

simdbloom_status simdbloom_serialize(const simdbloom_filter* filter, void* buf, size_t capacity) {
  return Guard("simdbloom_serialize", [&] {
    NotNull(filter, "filter");
    NotNull(buf, "buf");
    const size_t need = filter->filter.serialized_size();
    if (!simdbloom::detail::FitsAddressSpace(buf, capacity)) {
      Reject("buf with capacity " + std::to_string(capacity) +
             " passes the end of the address space");
    }
    if (capacity < need) {
      Reject("capacity " + std::to_string(capacity) + " is below simdbloom_serialized_size, " +
             std::to_string(need));
    }
    // A stream over the caller's buffer: no intermediate copy of the payload.
    struct Buf : std::streambuf {
      Buf(char* p, size_t n) { setp(p, p + n); }
    } sb(static_cast<char*>(buf), capacity);
    std::ostream os(&sb);
    filter->filter.save(os);
  });
}

simdbloom_status simdbloom_save(const simdbloom_filter* filter, const char* path) {
  return Guard("simdbloom_save", [&] {
    NotNull(filter, "filter");
    NotNull(path, "path");
    filter->filter.save_file(path);
  });
}

simdbloom_status simdbloom_load(const char* path, simdbloom_filter** out) {
  return Guard("simdbloom_load", [&] {
    NotNull(path, "path");
    NotNull(out, "out");
    Wrap(simdbloom::Filter::load_file(path), out);
  });
}

simdbloom_status simdbloom_load_bytes(const void* data, size_t size, simdbloom_filter** out) {
  return Guard("simdbloom_load_bytes", [&] {
    NotNullIf(data, size, "data", "size");
    NotNull(out, "out");
    Wrap(simdbloom::Filter::load(static_cast<const uint8_t*>(data), size), out);
  });
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

}  // extern "C"
