// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because the classes' single-key calls are inline templates: which
// C++ types are keys and how each is hashed, in one place for every class (Filter, ScalableFilter,
// CountingFilter, SpatialFilter). Each class's single-key calls take `detail::IntKey<T>` (an
// integer key, hashed by HashIntKey), a std::string_view (byte strings), and delete
// `detail::NotAKey<T>`; its bulk calls take `detail::KeyElement<T>` arrays (Keys). A new key type
// is an edit here. Included by simdbloom.hpp; not an API of its own.
#ifndef SIMDBLOOM_DETAIL_KEYS_HPP_
#define SIMDBLOOM_DETAIL_KEYS_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "simdbloom/detail/single_key.hpp"

namespace simdbloom {
namespace detail {

// A key of integer type T is hashed as its sizeof(T) little-endian bytes, in single-key and bulk
// calls alike; signed and unsigned types of one width hash alike. Accepted: integers of 2, 4 and 8
// bytes (int16_t/uint16_t, int/unsigned, int32_t, long, long long, int64_t, size_t, ...). Not
// keys (a call with them does not compile): bool, character types (char, signed/unsigned char,
// hence int8_t/uint8_t, wchar_t, char16_t, char32_t), floating point, enums and pointers other
// than C strings; pass such values' bytes as a std::string_view if they are meant as keys.
// Byte strings (std::string_view, std::string, C strings) hash over their bytes.

template <class T>
struct IsCharType
    : std::integral_constant<
          bool, std::is_same<T, char>::value || std::is_same<T, signed char>::value ||
                    std::is_same<T, unsigned char>::value || std::is_same<T, wchar_t>::value ||
                    std::is_same<T, char16_t>::value ||
#if defined(__cpp_char8_t)
                    std::is_same<T, char8_t>::value ||
#endif
                    std::is_same<T, char32_t>::value> {
};
// An integer key type (cv-unqualified).
template <class T>
constexpr bool kIsIntKey =
    std::is_integral<T>::value && !std::is_same<T, bool>::value && !IsCharType<T>::value &&
    (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
// A C string: pointer to (const) char.
template <class T>
constexpr bool kIsCString = std::is_pointer<T>::value&&
    std::is_same<std::remove_cv_t<std::remove_pointer_t<T>>, char>::value;
// Types that look like a key but are not one (the single-key calls are deleted for them).
template <class T>
constexpr bool kIsRejectedKey =
    (std::is_arithmetic<T>::value && !kIsIntKey<T>) || std::is_enum<T>::value
    || std::is_null_pointer<T>::value || (std::is_pointer<T>::value && !kIsCString<T>);
// Element types of the arrays bulk calls take: integer keys and byte strings.
template <class T>
constexpr bool kIsElement =
    kIsIntKey<T> || std::is_same<T, std::string_view>::value || std::is_same<T, std::string>::value;

// The enable_if forms each class's calls use.
template <class T>
using IntKey = std::enable_if_t<kIsIntKey<T>, int>;
template <class T>
using NotAKey = std::enable_if_t<kIsRejectedKey<T>, int>;
template <class T>
using KeyElement = std::enable_if_t<kIsElement<T>>;

// The hash of an integer key (1, 2, 4 or 8 bytes) as the kinds without Filter's cached bitflip
// compute it (CountingFilter, SpatialFilter, ScalableFilter): XXH3 (XXH64 where xxh64) of the
// key's 8 or 4 little-endian bytes with `seed`; 1- and 2-byte keys as the 2 little-endian bytes of
// their uint16_t value, through filter.hash(std::string_view) (the kind's byte-string hash).
// Filter passes its cached xxh3_bitflip = Xxh3Bitflip(seed) (6 of the path's ~20 instructions);
// HashIntKey computes it.
template <class T, class F>
SIMDBLOOM_INLINE uint64_t HashIntKeyFlip(const F& filter, T key, uint64_t seed,
                                         uint64_t xxh3_bitflip, bool xxh64) noexcept {
  static_assert(kIsIntKey<T>, "an integer key type (detail::kIsIntKey)");
  if constexpr (sizeof(T) == 8) {
    const auto k = static_cast<uint64_t>(key);
    return xxh64 ? Xxh64U64(k, seed) : Xxh3U64Flip(k, xxh3_bitflip);
  } else if constexpr (sizeof(T) == 4) {
    const auto k = static_cast<uint32_t>(key);
    return xxh64 ? Xxh64U32(k, seed) : Xxh3U32Flip(k, xxh3_bitflip);
  } else {
    const auto v = static_cast<uint16_t>(key);
    const char bytes[2] = {static_cast<char>(v & 0xff), static_cast<char>(v >> 8)};
    return filter.hash(std::string_view(bytes, 2));
  }
}
template <class T, class F>
SIMDBLOOM_INLINE uint64_t HashIntKey(const F& filter, T key, uint64_t seed,
                                     bool xxh64 = false) noexcept {
  return HashIntKeyFlip(filter, key, seed, Xxh3Bitflip(seed), xxh64);
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_DETAIL_KEYS_HPP_
