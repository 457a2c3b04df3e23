// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because the classes' single-key calls are inline templates: which
// C++ types are keys, what a filter holds (KeyType) and how each key is hashed for it, in one place
// for every class (Filter, ScalableFilter, CountingFilter, SpatialFilter, the shifting set
// filters). Each class's single-key calls take `detail::IntKey<T>` (an integer key, hashed through
// its KeyTyping), a std::string_view (byte strings), and delete `detail::NotAKey<T>`; its bulk
// calls take Keys. A new key type is an edit here. Included by simdbloom.hpp; not an API of its
// own.
#ifndef SIMDBLOOM_DETAIL_KEYS_HPP_
#define SIMDBLOOM_DETAIL_KEYS_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "simdbloom/detail/one_key/scalar.hpp"

namespace simdbloom {

// ---- A key is its value ----
// An integer key is its value, whatever C++ integer type carries it: 5 as int, uint16_t, int64_t
// or size_t is one key, in every class, single-key and bulk calls alike, and in the C API and
// Python. A filter records what it holds, and saves it in its file:
enum class KeyType : uint8_t {
  // A file saved before key types existed: integers hash at the width of the caller's type (2, 4
  // or 8 bytes), exactly as then. set_key_type() may declare what it holds, once.
  kLegacy = 0,
  // Integers, hashed as their 8-byte value: signed types sign-extended, unsigned zero-extended
  // (so -1 and 2^64 - 1 are one key). What a filter's first integer insert makes it.
  kInt64 = 1,
  // Integers hashed as 4 bytes (Parquet INT32 columns, systems that hash 4-byte values): declared.
  // A value outside [-2^31, 2^32) (neither an int32 nor a uint32) is absent for every query and
  // refused by every insert; -1 and 2^32 - 1 are one key.
  kInt32 = 2,
  // Byte strings (std::string_view, std::string, C strings, Arrow binary, fixed-width records).
  kBytes = 3,
  // Nothing inserted and nothing declared yet: the first insert decides (an integer: kInt64, a byte
  // string: kBytes); a query before it hashes integers as kInt64.
  kNone = 4,
};
// An integer key on a byte-string filter, or a byte string on an integer filter, throws
// KeyTypeError (an Error of code kInvalidArgument) naming both; pre-hashed calls (*_hash,
// Prehashed) bypass key types.

// "legacy", "int64", "int32", "bytes", "none"; "unknown" for other values. O(1).
const char* key_type_name(KeyType type) noexcept;

namespace detail {

// Accepted integer types: 2, 4 and 8 bytes (int16_t/uint16_t, int/unsigned, int32_t, long, long
// long, int64_t, size_t, ...). Not keys (a call with them does not compile): bool, character types
// (char, signed/unsigned char, hence int8_t/uint8_t, wchar_t, char16_t, char32_t), floating point,
// enums and pointers other than C strings; pass such values' bytes as a std::string_view if they
// are meant as keys.
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

// An integer key's value as 64 bits: signed types sign-extended, unsigned zero-extended.
template <class T>
constexpr uint64_t IntBits(T key) noexcept {
  return std::is_signed<T>::value ? static_cast<uint64_t>(static_cast<int64_t>(key))
                                  : static_cast<uint64_t>(key);
}
// Whether the value fits a 4-byte filter: in [-2^31, 2^32).
template <class T>
constexpr bool FitsInt32(T key) noexcept {
  if constexpr (sizeof(T) <= 4) {
    return true;
  } else if constexpr (std::is_signed<T>::value) {
    return static_cast<int64_t>(key) >= -(int64_t{1} << 31) &&
           static_cast<int64_t>(key) < (int64_t{1} << 32);
  } else {
    return static_cast<uint64_t>(key) < (uint64_t{1} << 32);
  }
}
}  // namespace detail

// One key of a single-key call, in every class: an integer of any accepted type (its value as 64
// bits, its width and signedness) or a byte string (std::string_view, std::string, C string; not
// copied: the bytes must outlive the call). Built implicitly from the key; a type that is not a key
// (bool, characters, floating point, enums, other pointers) does not compile. O(1), inline.
class Key {
 public:
  template <class T, detail::IntKey<T> = 0>
  constexpr Key(T key) noexcept  // NOLINT(google-explicit-constructor): keys convert implicitly
      : bits_(detail::IntBits(key)),
        size_(sizeof(T)),
        integer_(true),
        signed_(std::is_signed<T>::value) {}
  constexpr Key(std::string_view key) noexcept  // NOLINT(google-explicit-constructor)
      : data_(key.data()), size_(key.size()) {}
  Key(const std::string& key) noexcept  // NOLINT(google-explicit-constructor)
      : Key(std::string_view(key)) {}
  constexpr Key(const char* key) noexcept  // NOLINT(google-explicit-constructor)
      : Key(std::string_view(key)) {}
  template <class T, detail::NotAKey<T> = 0>
  Key(const T& not_a_key_type) = delete;

  constexpr bool is_integer() const noexcept { return integer_; }
  // An integer's value as 64 bits (sign-extended for signed types), its type's width in bytes and
  // signedness.
  constexpr uint64_t bits() const noexcept { return bits_; }
  constexpr size_t width() const noexcept { return integer_ ? size_ : 0; }
  constexpr bool is_signed() const noexcept { return signed_; }
  // Whether the value fits a 4-byte (KeyType::kInt32) filter: in [-2^31, 2^32).
  constexpr bool fits_int32() const noexcept {
    return signed_ ? static_cast<int64_t>(bits_) >= -(int64_t{1} << 31) &&
                         static_cast<int64_t>(bits_) < (int64_t{1} << 32)
                   : bits_ < (uint64_t{1} << 32);
  }
  // A byte string's bytes.
  constexpr std::string_view bytes() const noexcept { return std::string_view(data_, size_); }

 private:
  uint64_t bits_ = 0;
  const char* data_ = nullptr;
  size_t size_ = 0;
  bool integer_ = false;
  bool signed_ = false;
};

namespace detail {

// A Key as four scalars and back (KeyOf): the single-key calls hand their out-of-line slow path
// these, in registers, where a Key argument would be a 32-byte copy on the caller's stack made
// before the inline fast path is even tested. flags: 1 an integer, | 2 a signed one; an integer's
// size is its width.
SIMDBLOOM_INLINE uint32_t KeyFlags(const Key& key) noexcept {
  return key.is_integer() ? 1u | (key.is_signed() ? 2u : 0u) : 0u;
}
inline Key KeyOf(uint64_t bits, const char* data, size_t size, uint32_t flags) noexcept {
  if ((flags & 1) == 0) return Key(std::string_view(data, size));
  const bool is_signed = (flags & 2) != 0;
  switch (size) {
    case 2:
      return is_signed ? Key(static_cast<int16_t>(bits)) : Key(static_cast<uint16_t>(bits));
    case 4:
      return is_signed ? Key(static_cast<int32_t>(bits)) : Key(static_cast<uint32_t>(bits));
    default:
      return is_signed ? Key(static_cast<int64_t>(bits)) : Key(bits);
  }
}

// Whether a filter of this key type takes integer keys (a query on kNone hashes them as kInt64).
constexpr bool TakesIntegers(KeyType type) noexcept { return type != KeyType::kBytes; }
// Whether it takes byte strings.
constexpr bool TakesBytes(KeyType type) noexcept {
  return type != KeyType::kInt64 && type != KeyType::kInt32;
}

// The refusals of the inline paths, out of line and cold (lib/core/key_source.cc): `who` names the
// call. An integer key (its IntBits and signedness) on a byte-string filter, or out of a 4-byte
// filter's range on insert; a byte string on an integer filter.
[[noreturn]] SIMDBLOOM_COLD void RefuseIntKey(const char* who, KeyType type, uint64_t bits,
                                              bool is_signed);
[[noreturn]] SIMDBLOOM_COLD void RefuseBytesKey(const char* who, KeyType type);
// The hash of what the inline paths leave out (lib/core/key_source.cc): byte strings (XXH64 if
// `xxh64`, else XXH3, with `seed`) on filters that take them, integers of int32 filters (their 4
// bytes) and of legacy filters (their type's width: 8, 4 or 2 bytes); `ok` false for a key of the
// other kind than `type` and for an integer out of a kInt32 filter's range. The key comes as
// scalars (an integer: its bits, `data` null, `meta` = width | signed << 8; a byte string: its
// size and data) and the result in two registers, so that the inline callers keep nothing on the
// stack for it. Pure, no allocation.
struct KeyHash {
  uint64_t h;
  bool ok;
};
SIMDBLOOM_PURE KeyHash HashKeyOutOfLine(KeyType type, uint64_t bits_or_size, const char* data,
                                        uint32_t meta, uint64_t seed, bool xxh64) noexcept;

// What a filter holds, and the rules of lib/FORMAT.md "Keys" for its single-key calls: every
// class keeps one (the bulk calls apply the same rules in lib/core/key_source.cc).
class KeyTyping {
 public:
  constexpr KeyTyping() noexcept = default;
  constexpr explicit KeyTyping(KeyType type) noexcept : type_(static_cast<uint8_t>(type)) {}
  KeyTyping(const KeyTyping& other) noexcept : type_(static_cast<uint8_t>(other.type())) {}
  KeyTyping& operator=(const KeyTyping& other) noexcept {
    Set(other.type());
    return *this;
  }
  // Read and written with relaxed atomics: insert_concurrent's first key sets the type while
  // other threads insert and query (a plain byte load and store on x86 and Arm).
  KeyType type() const noexcept {
    return static_cast<KeyType>(__atomic_load_n(&type_, __ATOMIC_RELAXED));
  }
  // Declares `type` (kInt64, kInt32 or kBytes) for a filter of kNone or kLegacy, or the one it
  // has; else throws Error(kInvalidArgument) naming `who` (lib/core/key_source.cc).
  void Declare(const char* who, KeyType type);
  // For merge/intersect: equal types, or one of them kNone (which takes the other's). Throws
  // Error(kIncompatible) naming `who` otherwise.
  void Combine(const char* who, KeyType other);
  void Set(KeyType type) noexcept {
    __atomic_store_n(&type_, static_cast<uint8_t>(type), __ATOMIC_RELAXED);
  }
  // For writers that may race (insert_concurrent): makes a kNone filter `type` unless another
  // thread made it another type first; true if the filter now holds `type`.
  bool Claim(KeyType type) noexcept {
    uint8_t expected = static_cast<uint8_t>(KeyType::kNone);
    if (__atomic_compare_exchange_n(&type_, &expected, static_cast<uint8_t>(type), false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      return true;
    }
    return expected == static_cast<uint8_t>(type);
  }

  // The arguments below: the filter's `seed`, `flip` = Xxh3Bitflip(seed) and whether it hashes
  // with XXH64 (else XXH3). Integer keys of int64 (and none) filters, the default, are hashed
  // inline; byte strings, int32 and legacy filters' integers out of line (HashKeyOutOfLine), which
  // keeps the callers' loops as short as before key types.

  // The hash of `key` for an insert, and in *type the key type the filter has once the insert is
  // done (a kNone filter becomes kInt64 for an integer, kBytes for a byte string): the caller
  // commits it (Set) after the insert succeeded, so a refused insert changes nothing. An integer
  // out of a kInt32 filter's range, or a key of the other kind, throws naming `who`.
  SIMDBLOOM_INLINE uint64_t ForInsert(const char* who, Key key, uint64_t seed, uint64_t flip,
                                      bool xxh64, KeyType* type) const {
    KeyType t = this->type();
    if (t == KeyType::kNone) t = key.is_integer() ? KeyType::kInt64 : KeyType::kBytes;
    *type = t;
    uint64_t h;
    if (!Hash(t, key, seed, flip, xxh64, &h)) Refuse(who, t, key);
    return h;
  }
  // For a query: true with *h set, or false when the key is surely absent (out of a kInt32
  // filter's range); a key of the other kind throws naming `who`.
  SIMDBLOOM_INLINE bool ForQuery(const char* who, Key key, uint64_t seed, uint64_t flip, bool xxh64,
                                 uint64_t* h) const {
    const KeyType t = type();
    if (Hash(t, key, seed, flip, xxh64, h)) return true;
    if (!key.is_integer() || t == KeyType::kBytes) Refuse(who, t, key);
    return false;
  }
  // *h = the key's hash for this key type; false if it has none (a key of the other kind, an
  // integer out of a kInt32 filter's range). Never throws.
  SIMDBLOOM_INLINE bool TryHash(Key key, uint64_t seed, uint64_t flip, bool xxh64,
                                uint64_t* h) const noexcept {
    return Hash(type(), key, seed, flip, xxh64, h);
  }
  // For hash(): as ForQuery, but a key with no hash (out of a kInt32 filter's range) throws.
  SIMDBLOOM_INLINE uint64_t ForHash(const char* who, Key key, uint64_t seed, uint64_t flip,
                                    bool xxh64) const {
    uint64_t h;
    const KeyType t = type();
    if (!Hash(t, key, seed, flip, xxh64, &h)) Refuse(who, t, key);
    return h;
  }

 private:
  // *h = the hash of `key` for key type `type`; false if it has none (a key of the other kind, an
  // integer out of a kInt32 filter's range).
  static SIMDBLOOM_INLINE bool Hash(KeyType type, Key key, uint64_t seed, uint64_t flip, bool xxh64,
                                    uint64_t* h) noexcept {
    if (key.is_integer() && (type == KeyType::kInt64 || type == KeyType::kNone)) {
      *h = xxh64 ? Xxh64U64(key.bits(), seed) : Xxh3U64Flip(key.bits(), flip);
      return true;
    }
    const KeyHash r =
        key.is_integer()
            ? HashKeyOutOfLine(type, key.bits(), nullptr,
                               static_cast<uint32_t>(key.width() | (key.is_signed() ? 256 : 0)),
                               seed, xxh64)
            : HashKeyOutOfLine(type, key.bytes().size(), key.bytes().data(), 0, seed, xxh64);
    *h = r.h;
    return r.ok;
  }
  [[noreturn]] static SIMDBLOOM_INLINE void Refuse(const char* who, KeyType type, Key key) {
    if (key.is_integer()) RefuseIntKey(who, type, key.bits(), key.is_signed());
    RefuseBytesKey(who, type);
  }
  uint8_t type_ = static_cast<uint8_t>(KeyType::kNone);
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_DETAIL_KEYS_HPP_
