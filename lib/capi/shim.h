// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): what every C API shim shares (lib/capi/c_api.cc, the plain filter;
// lib/capi/kinds.cc, the other kinds): the handles, the argument checks, Guard (exceptions to
// status codes and messages that name the C function), getters and persistence.
#ifndef SIMDBLOOM_LIB_CAPI_SHIM_H_
#define SIMDBLOOM_LIB_CAPI_SHIM_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "lib/core/key_source.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.h"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

// The opaque handles: each holds its C++ object as `filter`.
struct simdbloom_filter {
  simdbloom::Filter filter;
};
struct simdbloom_counting {
  simdbloom::CountingFilter filter;
};
struct simdbloom_scalable {
  simdbloom::ScalableFilter filter;
};
struct simdbloom_spatial {
  simdbloom::SpatialFilter filter;
};
struct simdbloom_shbf_a {
  simdbloom::ShiftingAssociation filter;
};
struct simdbloom_shbf_x {
  simdbloom::ShiftingMultiplicity filter;
};

namespace simdbloom {
namespace capi {

// An argument the C layer itself refuses; `what` does not yet name the C function.
struct Rejected {
  simdbloom_status status;
  std::string what;
};

[[noreturn]] void Reject(std::string what);

// A C++ message without the C++ function that threw it: "with_bits: k = 7 ..." -> "k = 7 ...",
// "Filter::create: ..." -> "...". Messages that do not start with such a name are kept whole
// ("not a valid simdbloom filter: bad magic").
std::string_view WithoutCppName(std::string_view what);

// This thread's last error message (simdbloom_last_error).
const char* LastError() noexcept;

// Sets this thread's last error to "who: what". Never throws: if even that allocation fails, the
// previous message is kept.
simdbloom_status Fail(simdbloom_status status, const char* who, std::string_view what) noexcept;

// Runs `fn`, mapping exceptions to status codes and messages that start with `who`, the C
// function the caller called (never the C++ function that threw).
template <class Fn>
simdbloom_status Guard(const char* who, Fn&& fn) noexcept {
  try {
    fn();
    return SIMDBLOOM_OK;
  } catch (const Rejected& r) {
    return Fail(r.status, who, r.what);
  } catch (const Error& e) {
    return Fail(static_cast<simdbloom_status>(e.code()), who, WithoutCppName(e.what()));
  } catch (const std::bad_alloc&) {
    return Fail(SIMDBLOOM_ENOMEM, who, "out of memory");
  } catch (const std::exception& e) {
    return Fail(SIMDBLOOM_EINTERNAL, who, WithoutCppName(e.what()));
  } catch (...) {
    return Fail(SIMDBLOOM_EINTERNAL, who, "unknown exception");
  }
}

// ---- Argument checks (each throws Rejected: EINVAL) ----
void NotNull(const void* p, const char* name);
// A pointer that must be set when `count` (named `count_name`) is non-zero.
void NotNullIf(const void* p, size_t count, const char* name, const char* count_name);
// `count` entries of `size` bytes must fit the address space to be an array at all.
void CheckCount(size_t count, size_t size, const char* count_name);
// An array of `count` entries of `size` bytes at p (named `name`): CheckCount, NotNullIf, and
// within the address space (pointer + bytes neither wraps nor exceeds the largest extent).
void CheckArray(const void* p, size_t count, size_t size, const char* name, const char* count_name);
// The layout ints of simdbloom.h.
Layout LayoutOf(int layout);
// One key of `length` bytes at `key` (the _one calls): NULL only with length 0, within the
// address space.
std::string_view OneKey(const void* key, size_t length);
// The n keys of a _u64 call.
Keys U64Keys(const uint64_t* keys, size_t n);
// The C++ view of a simdbloom_keys, every field checked (c_api.cc says which).
Keys KeysOf(const simdbloom_keys* keys);

// A new handle holding `f`.
template <class H, class F>
void Wrap(F&& f, H** out) {
  *out = new H{std::forward<F>(f)};
}

// Runs fn(handle->filter) under Guard once the handle is known not to be NULL.
template <class H, class Fn>
simdbloom_status Call(const char* who, H* handle, Fn&& fn) noexcept {
  return Guard(who, [&] {
    NotNull(handle, "filter");
    fn(handle->filter);
  });
}

// Set operations: runs fn(filter->filter, other->filter) once neither handle is NULL.
template <class H, class Fn>
simdbloom_status Pair(const char* who, H* filter, const H* other, Fn&& fn) noexcept {
  return Call(who, filter, [&](auto& f) {
    NotNull(other, "other");
    fn(f, other->filter);
  });
}

// 1 if pred(a->filter, b->filter) (noexcept), else 0; 0 and a last error if a or b is NULL.
template <class H, class Pred>
int Predicate(const char* who, const H* a, const H* b, Pred&& pred) noexcept {
  if (a == nullptr || b == nullptr) {
    Fail(SIMDBLOOM_EINVAL, who, a == nullptr ? "a is NULL" : "b is NULL");
    return 0;
  }
  return pred(a->filter, b->filter) ? 1 : 0;
}

// Runs fn(Keys) -> uint64_t under Guard after checking the filter and keys, and stores the result
// in *result if that is not null. `out` (named `out_name`) must be set when there are keys,
// unless out_name is null.
template <class Fn>
simdbloom_status KeysCall(const char* who, const void* filter, const simdbloom_keys* keys,
                          const void* out, const char* out_name, uint64_t* result, Fn&& fn) {
  return Guard(who, [&] {
    NotNull(filter, "filter");
    const Keys k = KeysOf(keys);
    if (out_name != nullptr) NotNullIf(out, k.size(), out_name, "keys->count");
    const uint64_t r = fn(k);
    if (result != nullptr) *result = r;
  });
}

// The value of a getter, or `none` (and a last error) for a NULL handle or a failure.
template <class T, class H, class Fn>
T Get(const char* who, const H* handle, T none, Fn&& fn) noexcept {
  T value = none;
  const simdbloom_status s = Call(who, handle, [&](const auto& f) { value = fn(f); });
  return s == SIMDBLOOM_OK ? value : none;
}

// ---- Key types, the same for every kind ----
// The C++ KeyType of a simdbloom_key_type argument (Rejected for values that name none).
KeyType KeyTypeOf(int type);

template <class H>
simdbloom_status GetKeyType(const char* who, const H* handle, simdbloom_key_type* out) noexcept {
  return Call(who, handle, [&](const auto& f) {
    NotNull(out, "out");
    *out = static_cast<simdbloom_key_type>(f.key_type());
  });
}

template <class H>
simdbloom_status SetKeyType(const char* who, H* handle, int type) noexcept {
  return Call(who, handle, [&](auto& f) { f.set_key_type(KeyTypeOf(type)); });
}

// ---- Persistence, the same for every kind ----
// The byte forms the kinds' C++ APIs spell differently.
template <class F>
size_t SerializedSize(const F& f) {
  if constexpr (std::is_same<F, ShiftingAssociation>::value ||
                std::is_same<F, ShiftingMultiplicity>::value) {
    return 64 + static_cast<size_t>(f.num_blocks()) * 64;  // FORMAT.md: header, 64-byte blocks
  } else {
    return f.serialized_size();
  }
}
template <class F>
void WriteBytes(const F& f, char* buf, size_t capacity) {
  if constexpr (std::is_same<F, ShiftingAssociation>::value ||
                std::is_same<F, ShiftingMultiplicity>::value) {
    const std::string bytes = f.save();
    std::memcpy(buf, bytes.data(), bytes.size());
  } else {
    // A stream over the caller's buffer: no intermediate copy of the payload.
    struct Buf : std::streambuf {
      Buf(char* p, size_t n) { setp(p, p + n); }
    } sb(buf, capacity);
    std::ostream os(&sb);
    f.save(os);
  }
}
template <class F>
F FromBytes(const uint8_t* data, size_t size) {
  if constexpr (std::is_same<F, ScalableFilter>::value) {
    return F::from_bytes(data, size);
  } else {
    return F::load(data, size);
  }
}

template <class H>
using KindOf = decltype(H::filter);

template <class H>
size_t SerializedSizeOf(const char* who, const H* handle) noexcept {
  return Get(who, handle, size_t{0}, [](const auto& f) { return SerializedSize(f); });
}

template <class H>
simdbloom_status Serialize(const char* who, const H* handle, void* buf, size_t capacity) noexcept {
  return Call(who, handle, [&](const auto& f) {
    NotNull(buf, "buf");
    const size_t need = SerializedSize(f);
    if (!detail::FitsAddressSpace(buf, capacity)) {
      Reject("buf with capacity " + std::to_string(capacity) +
             " passes the end of the address space");
    }
    if (capacity < need) {  // who is simdbloom_..._serialize: name its _serialized_size
      Reject("capacity " + std::to_string(capacity) + " is below " + who + "d_size, " +
             std::to_string(need));
    }
    WriteBytes(f, static_cast<char*>(buf), capacity);
  });
}

template <class H>
simdbloom_status Save(const char* who, const H* handle, const char* path) noexcept {
  return Call(who, handle, [&](const auto& f) {
    NotNull(path, "path");
    f.save_file(path);
  });
}

template <class H>
simdbloom_status Load(const char* who, const char* path, H** out) noexcept {
  return Guard(who, [&] {
    NotNull(path, "path");
    NotNull(out, "out");
    Wrap(KindOf<H>::load_file(path), out);
  });
}

// map_file(path, verify_checksum != 0) of the handle's kind (Filter, CountingFilter).
template <class H>
simdbloom_status MapFile(const char* who, const char* path, int verify_checksum, H** out) noexcept {
  return Guard(who, [&] {
    NotNull(path, "path");
    NotNull(out, "out");
    Wrap(KindOf<H>::map_file(path, verify_checksum != 0), out);
  });
}

template <class H>
simdbloom_status LoadBytes(const char* who, const void* data, size_t size, H** out) noexcept {
  return Guard(who, [&] {
    CheckArray(data, size, 1, "data", "size");
    NotNull(out, "out");
    Wrap(FromBytes<KindOf<H>>(static_cast<const uint8_t*>(data), size), out);
  });
}

}  // namespace capi
}  // namespace simdbloom

// Defines the persistence calls of handle simdbloom_<kind>: simdbloom_<kind>_serialized_size,
// _serialize, _save, _load and _load_bytes.
#define SIMDBLOOM_CAPI_PERSISTENCE(kind)                                                       \
  size_t simdbloom_##kind##_serialized_size(const simdbloom_##kind* filter) {                  \
    return simdbloom::capi::SerializedSizeOf("simdbloom_" #kind "_serialized_size", filter);   \
  }                                                                                            \
  simdbloom_status simdbloom_##kind##_serialize(const simdbloom_##kind* filter, void* buf,     \
                                                size_t capacity) {                             \
    return simdbloom::capi::Serialize("simdbloom_" #kind "_serialize", filter, buf, capacity); \
  }                                                                                            \
  simdbloom_status simdbloom_##kind##_save(const simdbloom_##kind* filter, const char* path) { \
    return simdbloom::capi::Save("simdbloom_" #kind "_save", filter, path);                    \
  }                                                                                            \
  simdbloom_status simdbloom_##kind##_load(const char* path, simdbloom_##kind** out) {         \
    return simdbloom::capi::Load("simdbloom_" #kind "_load", path, out);                       \
  }                                                                                            \
  simdbloom_status simdbloom_##kind##_load_bytes(const void* data, size_t size,                \
                                                 simdbloom_##kind** out) {                     \
    return simdbloom::capi::LoadBytes("simdbloom_" #kind "_load_bytes", data, size, out);      \
  }                                                                                            \
  void simdbloom_##kind##_free(simdbloom_##kind* filter) { delete filter; }

// Defines simdbloom_<kind>_get_key_type and _set_key_type.
#define SIMDBLOOM_CAPI_KEY_TYPE(kind)                                                     \
  simdbloom_status simdbloom_##kind##_get_key_type(const simdbloom_##kind* filter,        \
                                                   simdbloom_key_type* out) {             \
    return simdbloom::capi::GetKeyType("simdbloom_" #kind "_get_key_type", filter, out);  \
  }                                                                                       \
  simdbloom_status simdbloom_##kind##_set_key_type(simdbloom_##kind* filter, int type) {  \
    return simdbloom::capi::SetKeyType("simdbloom_" #kind "_set_key_type", filter, type); \
  }

// Defines `T fn(const Handle* filter)`: the value of `expr` over `f`, the C++ object; T{} (0) and
// a last error for a NULL handle.
#define SIMDBLOOM_CAPI_GETTER(T, Handle, fn, expr)                                   \
  T fn(const Handle* filter) {                                                       \
    return simdbloom::capi::Get(#fn, filter, T{},                                    \
                                [](const auto& f) { return static_cast<T>(expr); }); \
  }

#endif  // SIMDBLOOM_LIB_CAPI_SHIM_H_
