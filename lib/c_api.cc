// The C API: shims that catch every exception and return status codes.
#include <cstring>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "simdbloom/simdbloom.h"
#include "simdbloom/simdbloom.hpp"

struct simdbloom_filter {
  simdbloom::Filter filter;
};

namespace {

thread_local std::string g_last_error;

simdbloom_status Fail(simdbloom_status status, const char* what) {
  try {
    g_last_error = what;
  } catch (...) {
    // Keep the previous message if even that allocation fails.
  }
  return status;
}

// Runs `fn`, mapping exceptions to status codes.
template <class Fn>
simdbloom_status Guard(Fn&& fn) noexcept {
  try {
    fn();
    return SIMDBLOOM_OK;
  } catch (const simdbloom::Error& e) {
    return Fail(static_cast<simdbloom_status>(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return Fail(SIMDBLOOM_ENOMEM, "out of memory");
  } catch (const std::exception& e) {
    return Fail(SIMDBLOOM_EINTERNAL, e.what());
  } catch (...) {
    return Fail(SIMDBLOOM_EINTERNAL, "unknown exception");
  }
}

simdbloom_status NullArg(const char* who) {
  return Fail(SIMDBLOOM_EINVAL, (std::string(who) + ": null argument").c_str());
}

simdbloom_status Wrap(simdbloom::Filter&& f, simdbloom_filter** out) {
  *out = new simdbloom_filter{std::move(f)};
  return SIMDBLOOM_OK;
}

// Byte-string keys as string_views, a tile at a time (no allocation).
template <class Fn>
void StringTiles(const void* const* keys, const size_t* lengths, size_t n, Fn&& fn) {
  constexpr size_t kTile = 256;
  std::string_view tile[kTile];
  for (size_t i = 0; i < n; i += kTile) {
    const size_t m = n - i < kTile ? n - i : kTile;
    for (size_t j = 0; j < m; ++j) {
      const void* p = keys[i + j];
      if (p == nullptr && lengths[i + j] != 0) {
        throw simdbloom::Error(simdbloom::ErrorCode::kInvalidArgument,
                               "null key with non-zero length");
      }
      tile[j] = std::string_view(static_cast<const char*>(p), p ? lengths[i + j] : 0);
    }
    fn(simdbloom::Span<const std::string_view>(tile, m), i);
  }
}

// The C++ view of a simdbloom_keys; throws Error(kInvalidArgument) for an unknown kind.
simdbloom::Keys KeysOf(const simdbloom_keys& k) {
  switch (k.kind) {
    case SIMDBLOOM_KEYS_U64:
      return simdbloom::Span<const uint64_t>(static_cast<const uint64_t*>(k.keys), k.count);
    case SIMDBLOOM_KEYS_U32:
      return simdbloom::Span<const uint32_t>(static_cast<const uint32_t*>(k.keys), k.count);
    case SIMDBLOOM_KEYS_PREHASHED:
      return simdbloom::Prehashed{static_cast<const uint64_t*>(k.keys), k.count};
    case SIMDBLOOM_KEYS_BINARY32:
      return simdbloom::BinaryArray<int32_t>{static_cast<const int32_t*>(k.keys), k.data, k.count};
    case SIMDBLOOM_KEYS_BINARY64:
      return simdbloom::BinaryArray<int64_t>{static_cast<const int64_t*>(k.keys), k.data, k.count};
    case SIMDBLOOM_KEYS_FIXED_WIDTH:
      return simdbloom::FixedWidth{static_cast<const uint8_t*>(k.keys), k.width, k.stride, k.count};
    default:
      throw simdbloom::Error(simdbloom::ErrorCode::kInvalidArgument,
                             "unknown simdbloom_keys kind " + std::to_string(k.kind));
  }
}

// Runs fn(Keys) -> uint64_t under Guard and stores the result in *result if that is not null.
template <class Fn>
simdbloom_status KeysCall(const char* who, const void* filter, const simdbloom_keys* keys,
                          uint64_t* result, Fn&& fn) {
  if (filter == nullptr || keys == nullptr) return NullArg(who);
  return Guard([&] {
    const uint64_t r = fn(KeysOf(*keys));
    if (result != nullptr) *result = r;
  });
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
  if (out == nullptr) return NullArg("simdbloom_create");
  return Guard([&] {
    Wrap(simdbloom::Filter::create(expected_items, fpp,
                                   static_cast<simdbloom::Layout>(static_cast<uint8_t>(layout)),
                                   seed),
         out);
  });
}

simdbloom_status simdbloom_with_bits(uint64_t bits, uint32_t k, int layout, uint64_t seed,
                                     simdbloom_filter** out) {
  if (out == nullptr) return NullArg("simdbloom_with_bits");
  if (layout < 0 || layout > 255) return Fail(SIMDBLOOM_EINVAL, "unknown layout");
  return Guard([&] {
    Wrap(simdbloom::Filter::with_bits(bits, k, static_cast<simdbloom::Layout>(layout), seed), out);
  });
}

void simdbloom_free(simdbloom_filter* filter) { delete filter; }

simdbloom_status simdbloom_insert_u64(simdbloom_filter* filter, const uint64_t* keys, size_t n) {
  if (filter == nullptr) return NullArg("simdbloom_insert_u64");
  return Guard([&] { filter->filter.insert(simdbloom::Span<const uint64_t>(keys, n)); });
}

simdbloom_status simdbloom_contains_u64(const simdbloom_filter* filter, const uint64_t* keys,
                                        size_t n, uint8_t* out) {
  if (filter == nullptr) return NullArg("simdbloom_contains_u64");
  return Guard([&] { filter->filter.contains(simdbloom::Span<const uint64_t>(keys, n), out); });
}

simdbloom_status simdbloom_insert_bytes(simdbloom_filter* filter, const void* const* keys,
                                        const size_t* lengths, size_t n) {
  if (filter == nullptr || (n > 0 && (keys == nullptr || lengths == nullptr))) {
    return NullArg("simdbloom_insert_bytes");
  }
  return Guard([&] {
    StringTiles(keys, lengths, n, [&](simdbloom::Span<const std::string_view> tile, size_t) {
      filter->filter.insert(tile);
    });
  });
}

simdbloom_status simdbloom_contains_bytes(const simdbloom_filter* filter, const void* const* keys,
                                          const size_t* lengths, size_t n, uint8_t* out) {
  if (filter == nullptr || (n > 0 && (keys == nullptr || lengths == nullptr || out == nullptr))) {
    return NullArg("simdbloom_contains_bytes");
  }
  return Guard([&] {
    StringTiles(keys, lengths, n, [&](simdbloom::Span<const std::string_view> tile, size_t i) {
      filter->filter.contains(tile, out + i);
    });
  });
}

simdbloom_status simdbloom_insert_keys(simdbloom_filter* filter, const simdbloom_keys* keys,
                                       uint64_t* changed) {
  return KeysCall("simdbloom_insert_keys", filter, keys, changed,
                  [&](simdbloom::Keys k) { return filter->filter.insert(k); });
}

simdbloom_status simdbloom_contains_keys(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                         uint8_t* out, uint64_t* hits) {
  return KeysCall("simdbloom_contains_keys", filter, keys, hits,
                  [&](simdbloom::Keys k) { return filter->filter.contains(k, out); });
}

simdbloom_status simdbloom_contains_bitmap(const simdbloom_filter* filter,
                                           const simdbloom_keys* keys, uint8_t* bitmap,
                                           uint64_t* hits) {
  return KeysCall("simdbloom_contains_bitmap", filter, keys, hits,
                  [&](simdbloom::Keys k) { return filter->filter.contains_bitmap(k, bitmap); });
}

simdbloom_status simdbloom_select(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                  uint32_t* selection, uint64_t* selected) {
  return KeysCall("simdbloom_select", filter, keys, selected,
                  [&](simdbloom::Keys k) { return filter->filter.select(k, selection); });
}

simdbloom_status simdbloom_refine(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                  uint32_t* selection, size_t count, uint64_t* remaining) {
  return KeysCall("simdbloom_refine", filter, keys, remaining,
                  [&](simdbloom::Keys k) { return filter->filter.refine(k, selection, count); });
}

simdbloom_status simdbloom_hash_keys(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                     uint64_t* out) {
  return KeysCall("simdbloom_hash_keys", filter, keys, nullptr, [&](simdbloom::Keys k) {
    filter->filter.hash(k, out);
    return uint64_t{0};
  });
}

int simdbloom_layout(const simdbloom_filter* filter) {
  return filter ? static_cast<int>(filter->filter.layout()) : 0;
}
uint64_t simdbloom_bit_count(const simdbloom_filter* filter) {
  return filter ? filter->filter.bit_count() : 0;
}
uint32_t simdbloom_num_hashes(const simdbloom_filter* filter) {
  return filter ? filter->filter.num_hashes() : 0;
}
uint64_t simdbloom_inserted_count(const simdbloom_filter* filter) {
  return filter ? filter->filter.inserted_count() : 0;
}
double simdbloom_expected_fpp(const simdbloom_filter* filter) {
  return filter ? filter->filter.expected_fpp() : 0;
}

simdbloom_status simdbloom_merge(simdbloom_filter* filter, const simdbloom_filter* other) {
  if (filter == nullptr || other == nullptr) return NullArg("simdbloom_merge");
  return Guard([&] { filter->filter.merge(other->filter); });
}

simdbloom_status simdbloom_intersect(simdbloom_filter* filter, const simdbloom_filter* other) {
  if (filter == nullptr || other == nullptr) return NullArg("simdbloom_intersect");
  return Guard([&] { filter->filter.intersect(other->filter); });
}

int simdbloom_compatible(const simdbloom_filter* a, const simdbloom_filter* b) {
  return a != nullptr && b != nullptr && a->filter.compatible(b->filter);
}

size_t simdbloom_serialized_size(const simdbloom_filter* filter) {
  return filter ? filter->filter.serialized_size() : 0;
}

simdbloom_status simdbloom_serialize(const simdbloom_filter* filter, void* buf, size_t capacity) {
  if (filter == nullptr || buf == nullptr) return NullArg("simdbloom_serialize");
  if (capacity < filter->filter.serialized_size()) {
    return Fail(SIMDBLOOM_EINVAL, "simdbloom_serialize: buffer smaller than serialized_size");
  }
  return Guard([&] {
    // A stream over the caller's buffer: no intermediate copy of the payload.
    struct Buf : std::streambuf {
      Buf(char* p, size_t n) { setp(p, p + n); }
    } sb(static_cast<char*>(buf), capacity);
    std::ostream os(&sb);
    filter->filter.save(os);
  });
}

simdbloom_status simdbloom_save(const simdbloom_filter* filter, const char* path) {
  if (filter == nullptr || path == nullptr) return NullArg("simdbloom_save");
  return Guard([&] { filter->filter.save_file(path); });
}

simdbloom_status simdbloom_load(const char* path, simdbloom_filter** out) {
  if (path == nullptr || out == nullptr) return NullArg("simdbloom_load");
  return Guard([&] { Wrap(simdbloom::Filter::load_file(path), out); });
}

simdbloom_status simdbloom_load_bytes(const void* data, size_t size, simdbloom_filter** out) {
  if (out == nullptr) return NullArg("simdbloom_load_bytes");
  return Guard(
      [&] { Wrap(simdbloom::Filter::load(static_cast<const uint8_t*>(data), size), out); });
}

simdbloom_status simdbloom_view(const void* data, size_t size, int verify_checksum,
                                simdbloom_filter** out) {
  if (data == nullptr || out == nullptr) return NullArg("simdbloom_view");
  return Guard([&] {
    Wrap(simdbloom::Filter::view(static_cast<const uint8_t*>(data), size, verify_checksum != 0),
         out);
  });
}

}  // extern "C"
