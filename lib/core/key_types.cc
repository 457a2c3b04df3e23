// SPDX-License-Identifier: Apache-2.0
// Key types (lib/FORMAT.md, "Keys"; declared in lib/core/key_types.h and detail/keys.hpp): how a
// bulk call's keys reach a filter of a key type (PlanKeys), the results of keys out of an int32
// filter's range, the out-of-line hash of the single-key paths, the refusals' messages, declaring
// and combining key types.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

void CheckKeyType(const char* who, KeyType type) {
  if (type != KeyType::kNone && type != KeyType::kInt64 && type != KeyType::kInt32 &&
      type != KeyType::kBytes) {
    Invalid(std::string(who) + ": key type " + key_type_name(type) +
            " (a filter holds int64, int32 or bytes, or none yet)");
  }
}

bool KeyTypeFromByte(uint8_t byte, KeyType* type) {
  if (byte > static_cast<uint8_t>(KeyType::kNone)) return false;
  *type = static_cast<KeyType>(byte);
  return true;
}

namespace {

const char* ShapeName(Keys::Kind kind) {
  switch (kind) {
    case Keys::Kind::kU64:
      return "uint64 keys";
    case Keys::Kind::kI64:
      return "int64 keys";
    case Keys::Kind::kU32:
      return "uint32 keys";
    case Keys::Kind::kI32:
      return "int32 keys";
    case Keys::Kind::kU16:
      return "uint16 keys";
    case Keys::Kind::kI16:
      return "int16 keys";
    case Keys::Kind::kFixedWidth:
      return "fixed-width records";
    case Keys::Kind::kBinary32:
    case Keys::Kind::kBinary64:
      return "Arrow binary keys";
    default:
      return "byte-string keys";
  }
}

[[noreturn]] __attribute__((noinline, cold)) void RefuseShape(const char* who, KeyType type,
                                                              Keys::Kind kind) {
  throw KeyTypeError(std::string(who) + ": " + ShapeName(kind) + " on a filter of " +
                     key_type_name(type) + " keys");
}

template <class T>
int64_t FirstOutOfInt32(const T* keys, size_t n) {
  // Branch-free blocks (vectorized), then a search of the failing block.
  constexpr size_t kBlock = 256;
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t e = std::min(n, b + kBlock);
    bool bad = false;
    for (size_t i = b; i < e; ++i) {
      T v;
      std::memcpy(&v, keys + i, sizeof(T));
      bad |= !FitsInt32(v);
    }
    if (bad) {
      for (size_t i = b; i < e; ++i) {
        T v;
        std::memcpy(&v, keys + i, sizeof(T));
        if (!FitsInt32(v)) return static_cast<int64_t>(i);
      }
    }
  }
  return -1;
}

}  // namespace

bool OutOfInt32(const Keys& keys, size_t i) {
  if (keys.kind() == Keys::Kind::kU64) {
    uint64_t v;
    std::memcpy(&v, static_cast<const uint64_t*>(keys.keys()) + i, 8);
    return !FitsInt32(v);
  }
  if (keys.kind() == Keys::Kind::kI64) {
    int64_t v;
    std::memcpy(&v, static_cast<const int64_t*>(keys.keys()) + i, 8);
    return !FitsInt32(v);
  }
  return false;
}

KeyPlan PlanAnyKeys(const char* who, KeyType type, const Keys& keys, bool insert) {
  KeyPlan plan;
  plan.type = type;
  const Keys::Kind kind = keys.kind();
  if (kind == Keys::Kind::kPrehashed || keys.size() == 0) return plan;
  if (!keys.is_integer()) {
    if (!TakesBytes(type)) RefuseShape(who, type, kind);
    if (insert && type == KeyType::kNone) plan.type = KeyType::kBytes;
    return plan;
  }
  if (!TakesIntegers(type)) RefuseShape(who, type, kind);
  if (insert && type == KeyType::kNone) plan.type = KeyType::kInt64;
  const bool wide = kind == Keys::Kind::kU64 || kind == Keys::Kind::kI64;
  const bool mid = kind == Keys::Kind::kU32 || kind == Keys::Kind::kI32;
  switch (plan.type) {
    case KeyType::kLegacy:
      plan.legacy16 = !wide && !mid;
      break;
    case KeyType::kInt32:
      if (mid) break;
      plan.to_width = 4;
      if (wide) {
        const int64_t bad =
            kind == Keys::Kind::kU64
                ? FirstOutOfInt32(static_cast<const uint64_t*>(keys.keys()), keys.size())
                : FirstOutOfInt32(static_cast<const int64_t*>(keys.keys()), keys.size());
        if (bad >= 0) {
          if (insert) {
            uint64_t bits;
            std::memcpy(&bits, static_cast<const uint64_t*>(keys.keys()) + bad, 8);
            RefuseIntKey(who, plan.type, bits, kind == Keys::Kind::kI64);
          }
          plan.out_of_range = true;
        }
      }
      break;
    default:  // kInt64 (and kNone queries)
      if (!wide) plan.to_width = 8;
      break;
  }
  return plan;
}

uint64_t ClearOutOfRange(const Keys& keys, const uint32_t* sel, size_t n, ResultKind result,
                         void* out, uint64_t hits) {
  auto key_of = [&](size_t j) { return sel != nullptr ? size_t{sel[j]} : j; };
  switch (result) {
    case ResultKind::kBytes: {
      uint8_t* o = static_cast<uint8_t*>(out);
      for (size_t j = 0; j < n; ++j) {
        if (o[j] != 0 && OutOfInt32(keys, key_of(j))) {
          o[j] = 0;
          --hits;
        }
      }
      return hits;
    }
    case ResultKind::kBitmap: {
      uint8_t* o = static_cast<uint8_t*>(out);
      for (size_t j = 0; j < n; ++j) {
        const uint8_t bit = static_cast<uint8_t>(1u << (j % 8));
        if ((o[j / 8] & bit) != 0 && OutOfInt32(keys, key_of(j))) {
          o[j / 8] = static_cast<uint8_t>(o[j / 8] & ~bit);
          --hits;
        }
      }
      return hits;
    }
    case ResultKind::kSelection: {
      // Entries are key indices (refine: the original selection's values).
      uint32_t* o = static_cast<uint32_t*>(out);
      uint64_t kept = 0;
      for (uint64_t j = 0; j < hits; ++j) {
        if (!OutOfInt32(keys, o[j])) o[kept++] = o[j];
      }
      return kept;
    }
  }
  return hits;
}

void RefuseIntKey(const char* who, KeyType type, uint64_t bits, bool is_signed) {
  const std::string value =
      is_signed ? std::to_string(static_cast<int64_t>(bits)) : std::to_string(bits);
  if (type == KeyType::kInt32) {
    Invalid(std::string(who) + ": integer key " + value +
            " does not fit the filter's int32 keys (-2147483648 to 4294967295)");
  }
  throw KeyTypeError(std::string(who) + ": integer key " + value + " on a filter of " +
                     key_type_name(type) + " keys");
}

KeyHash HashKeyOutOfLine(KeyType type, uint64_t bits_or_size, const char* data, uint32_t meta,
                         uint64_t seed, bool xxh64) noexcept {
  auto bytes = [&](const void* p, size_t n) {
    return KeyHash{xxh64 ? XXH64(p, n, seed) : XXH3_64bits_withSeed(p, n, seed), true};
  };
  if (data != nullptr || meta == 0) {  // a byte string (an empty one may have a null data)
    if (!TakesBytes(type)) return KeyHash{0, false};
    return bytes(data, static_cast<size_t>(bits_or_size));
  }
  const size_t width = meta & 0xFF;
  const bool is_signed = (meta >> 8) != 0;
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(bits_or_size >> (8 * i));
  switch (type) {
    case KeyType::kLegacy:  // the caller's width, as before key types
      return bytes(le, width);
    case KeyType::kInt32: {
      const bool fits = is_signed ? static_cast<int64_t>(bits_or_size) >= -(int64_t{1} << 31) &&
                                        static_cast<int64_t>(bits_or_size) < (int64_t{1} << 32)
                                  : bits_or_size < (uint64_t{1} << 32);
      if (!fits) return KeyHash{0, false};
      return bytes(le, 4);
    }
    case KeyType::kBytes:
      return KeyHash{0, false};
    default:  // kInt64, kNone
      return bytes(le, 8);
  }
}

void RefuseBytesKey(const char* who, KeyType type) {
  throw KeyTypeError(std::string(who) + ": a byte-string key on a filter of " +
                     key_type_name(type) + " keys");
}

void KeyTyping::Declare(const char* who, KeyType type) {
  if (type != KeyType::kInt64 && type != KeyType::kInt32 && type != KeyType::kBytes) {
    Invalid(std::string(who) + ": declare int64, int32 or bytes, not " + key_type_name(type));
  }
  const KeyType now = this->type();
  if (now != KeyType::kNone && now != KeyType::kLegacy && now != type) {
    Invalid(std::string(who) + ": the filter holds " + key_type_name(now) + " keys, not " +
            key_type_name(type));
  }
  Set(type);
}

void KeyTyping::Combine(const char* who, KeyType other) {
  const KeyType now = type();
  if (!KeyTypesCombine(now, other)) {
    throw Error(ErrorCode::kIncompatible, std::string(who) + ": filters differ in key type " +
                                              key_type_name(now) + " vs " + key_type_name(other));
  }
  if (now == KeyType::kNone) Set(other);
}

}  // namespace detail

const char* key_type_name(KeyType type) noexcept {
  switch (type) {
    case KeyType::kLegacy:
      return "legacy";
    case KeyType::kInt64:
      return "int64";
    case KeyType::kInt32:
      return "int32";
    case KeyType::kBytes:
      return "bytes";
    case KeyType::kNone:
      return "none";
  }
  return "unknown";
}

}  // namespace simdbloom
