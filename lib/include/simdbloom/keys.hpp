// SPDX-License-Identifier: Apache-2.0
// Part of simdbloom.hpp (include that): the keys of a bulk call in any shape (Keys) and how many
// threads a bulk call uses (Threads), the same for every class.
#ifndef SIMDBLOOM_KEYS_HPP_
#define SIMDBLOOM_KEYS_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

// Exported ABI, the detail headers included too: the library is compiled with hidden visibility.
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#include "simdbloom/basics.hpp"
#include "simdbloom/detail/keys.hpp"

namespace simdbloom {

// ---- Which C++ types are keys ----
// One set of rules for every class (Filter, ScalableFilter, CountingFilter, SpatialFilter, the
// shifting set filters): KeyType (simdbloom/detail/keys.hpp) says what a filter holds, which types
// are keys and how each is hashed. An integer is its value; a byte string is its bytes.

// ---- Key shapes for bulk calls (all read in place, never copied) ----
// Integer arrays of any width and signedness are converted by value to the filter's key type
// (kInt64: 8 bytes; kInt32: 4 bytes); a call whose array already has that width reads it as it is,
// any other converts in chunks of 4096 keys on the stack (no allocation). Byte strings and records
// hash over their bytes. So a key inserted in one shape is found in any other of its kind (and by
// the single-key calls).

// Pre-hashed keys: values of Filter::hash() (the layout's hash with the filter's seed), e.g. to
// hash once and probe several filters. No hashing is done.
struct Prehashed {
  const uint64_t* hashes = nullptr;
  size_t size = 0;
};

// Arrow variable-width binary/utf8 layout: key i is data[offsets[i] .. offsets[i + 1]); `offsets`
// holds length + 1 entries (Offset = int32_t for Binary/Utf8, int64_t for LargeBinary/LargeUtf8).
// Bulk calls check that offsets are non-negative and non-decreasing (O(length)) before any work,
// and that the bytes they span, data[0 .. offsets[length]), fit the address space (no wrap-around,
// at most PTRDIFF_MAX bytes); with `data_size` set (the size of Arrow's data buffer), also that no
// offset passes it. Without it the library cannot know where the data ends: offsets beyond the
// caller's buffer are read (undefined behaviour), as are any that do not point at readable bytes.
template <class Offset>
struct BinaryArray {
  static_assert(std::is_same<Offset, int32_t>::value || std::is_same<Offset, int64_t>::value,
                "Arrow offsets are int32_t or int64_t");
  const Offset* offsets = nullptr;
  const uint8_t* data = nullptr;
  size_t length = 0;     // number of keys
  size_t data_size = 0;  // bytes at data, checked against the offsets; 0: not declared
};

// Fixed-width byte records: key i is data[i * stride .. i * stride + width), e.g. 13-byte IPv4
// 5-tuples inside 16-byte structs (width 13, stride 16) or packed 16-byte IPv6 addresses. Bulk
// calls check that the records' extent, (count - 1) * stride + width bytes from data, neither
// overflows nor wraps the address space (at most PTRDIFF_MAX bytes).
struct FixedWidth {
  const uint8_t* data = nullptr;
  size_t width = 0;
  size_t stride = 0;
  size_t count = 0;
};

// The keys of one bulk call, in any shape. Implicitly built from each shape, from
// (pointer, count) of any element type (integer keys, std::string_view, std::string), and from any
// contiguous container of them (std::vector, std::array, C arrays, Span). Trivially copyable;
// holds only pointers (the keys must outlive the call). O(1). The bulk calls take it by const
// reference: passed by value, its 48 bytes were built by the caller and copied again, and the copy
// stalled on the stores just made (store forwarding; perf/README.md design note M15).
class Keys {
 public:
  enum class Kind : uint8_t {
    kU64,
    kU32,
    kPrehashed,
    kStrings,
    kBinary32,
    kBinary64,
    kFixedWidth,
    kStdStrings,
    kI64,
    kI32,
    kU16,
    kI16,
  };

  Keys(Prehashed keys) noexcept : kind_(Kind::kPrehashed), ptr_(keys.hashes), size_(keys.size) {}
  // (A BinaryArray's data_size is kept in width_, which only FixedWidth uses otherwise.)
  Keys(BinaryArray<int32_t> keys) noexcept : Keys(Kind::kBinary32, keys) {}
  Keys(BinaryArray<int64_t> keys) noexcept : Keys(Kind::kBinary64, keys) {}
  Keys(FixedWidth keys) noexcept
      : kind_(Kind::kFixedWidth),
        ptr_(keys.data),
        size_(keys.count),
        width_(keys.width),
        stride_(keys.stride) {}
  // `count` keys at `keys`: integers (by value: kU64/kI64, kU32/kI32, kU16/kI16 by their width and
  // signedness), strings over their bytes.
  template <class T, class = detail::KeyElement<T>>
  Keys(const T* keys, size_t count) noexcept : kind_(KindOf<T>()), ptr_(keys), size_(count) {}
  template <class T, class = detail::KeyElement<T>>
  Keys(Span<const T> keys) noexcept : Keys(keys.data(), keys.size()) {}
  template <class T, size_t N, class = detail::KeyElement<T>>
  Keys(const T (&array)[N]) noexcept : Keys(static_cast<const T*>(array), N) {}
  template <class Container,
            class T = std::remove_cv_t<
                std::remove_pointer_t<decltype(std::declval<const Container&>().data())>>,
            class = detail::KeyElement<T>,
            class = decltype(std::declval<const Container&>().size())>
  Keys(const Container& c) noexcept : Keys(static_cast<const T*>(c.data()), c.size()) {}

  Kind kind() const noexcept { return kind_; }
  // Integer keys (any width and signedness).
  bool is_integer() const noexcept {
    return kind_ == Kind::kU64 || kind_ == Kind::kU32 || kind_ == Kind::kI64 ||
           kind_ == Kind::kI32 || kind_ == Kind::kU16 || kind_ == Kind::kI16;
  }
  size_t size() const noexcept { return size_; }
  // The shape's pointers: keys/hashes/offsets/records (`keys()`), Arrow data (`data()`) and its
  // declared size (`data_size()`, 0 if not declared or not Arrow), and the record geometry of
  // FixedWidth (0 for other shapes).
  const void* keys() const noexcept { return ptr_; }
  const uint8_t* data() const noexcept { return data_; }
  size_t data_size() const noexcept { return IsBinary() ? width_ : 0; }
  size_t width() const noexcept { return IsBinary() ? 0 : width_; }
  size_t stride() const noexcept { return stride_; }

 private:
  template <class Offset>
  Keys(Kind kind, BinaryArray<Offset> keys) noexcept
      : kind_(kind),
        ptr_(keys.offsets),
        data_(keys.data),
        size_(keys.length),
        width_(keys.data_size) {}
  bool IsBinary() const noexcept { return kind_ == Kind::kBinary32 || kind_ == Kind::kBinary64; }
  template <class T>
  static constexpr Kind KindOf() noexcept {
    if constexpr (std::is_same<T, std::string_view>::value) {
      return Kind::kStrings;
    } else if constexpr (std::is_same<T, std::string>::value) {
      return Kind::kStdStrings;
    } else if constexpr (sizeof(T) == 8) {
      return std::is_signed<T>::value ? Kind::kI64 : Kind::kU64;
    } else if constexpr (sizeof(T) == 4) {
      return std::is_signed<T>::value ? Kind::kI32 : Kind::kU32;
    } else {
      return std::is_signed<T>::value ? Kind::kI16 : Kind::kU16;
    }
  }
  Kind kind_;
  const void* ptr_;
  const uint8_t* data_ = nullptr;
  size_t size_;
  size_t width_ = 0;
  size_t stride_ = 0;
};

// How many threads a bulk call uses: `count` threads (count - 1 started for the call, joined before
// it returns, plus the calling thread), each on a contiguous share of the keys. No pool is kept;
// a caller that wants one calls the single-threaded forms from its own threads. 0 and 1 mean the
// calling thread alone. Batches of fewer than 32768 keys per thread use fewer threads (starting a
// thread costs more than such a share's work; simdbloom-bench --only threads), and no call uses
// more than 256: the count is clamped before anything is allocated, so any `count` (UINT_MAX too)
// costs what the threads used cost.
struct Threads {
  unsigned count = 1;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_KEYS_HPP_
