// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): key types (lib/FORMAT.md, "Keys") as the bulk calls of every kind
// apply them (lib/core/key_types.cc defines these; the single-key rules are detail::KeyTyping in
// simdbloom/detail/keys.hpp).
#ifndef SIMDBLOOM_LIB_CORE_KEY_TYPES_H_
#define SIMDBLOOM_LIB_CORE_KEY_TYPES_H_

#include <cstddef>
#include <cstdint>

#include "kernels/interface.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

// Throws Error(kInvalidArgument) naming `who` unless `type` is a key type a filter can be made
// with (kNone, kInt64, kInt32, kBytes).
void CheckKeyType(const char* who, KeyType type);
// Whether filters of these key types may be merged: equal, or one of them kNone.
constexpr bool KeyTypesCombine(KeyType a, KeyType b) {
  return a == b || a == KeyType::kNone || b == KeyType::kNone;
}
// A key type read from a file's byte; false if the byte names none.
bool KeyTypeFromByte(uint8_t byte, KeyType* type);

// How a bulk call's keys reach the kernels (PlanKeys).
struct KeyPlan {
  KeyType type = KeyType::kNone;  // the filter's, as an insert leaves it (kNone fixed)
  uint8_t to_width = 0;           // integer keys converted by value to 8 or 4 bytes; 0: as they are
  bool legacy16 = false;          // 2-byte keys of a kLegacy filter: hashed as 2-byte records
  // 8-byte keys into a kInt32 filter of which some are outside its range: a query's results for
  // them are cleared afterwards (ClearOutOfRange).
  bool out_of_range = false;
};
// Checks validated `keys` against a filter of key type `type`: integer keys on a kBytes filter and
// byte strings or records on a kInt64/kInt32 one throw KeyTypeError naming `who`. For an insert,
// fixes kNone (integers: kInt64, bytes: kBytes) and refuses values out of a kInt32 filter's range,
// naming the first (Error(kInvalidArgument)), before anything is written. O(1), or one O(n) pass
// for 8-byte keys into a kInt32 filter. The keys most calls pass (pre-hashed; 8-byte integers on a
// filter of int64 keys, legacy keys or none yet; 4-byte ones on int32 or legacy) are planned
// inline: a short call (a packet burst) paid PlanAnyKeys' call and switches in full.
KeyPlan PlanAnyKeys(const char* who, KeyType type, const Keys& keys, bool insert);
inline KeyPlan PlanKeys(const char* who, KeyType type, const Keys& keys, bool insert) {
  KeyPlan plan;
  plan.type = type;
  const Keys::Kind kind = keys.kind();
  if (kind == Keys::Kind::kPrehashed) return plan;
  if (keys.size() != 0) {
    if (kind == Keys::Kind::kU64 || kind == Keys::Kind::kI64) {
      if (type == KeyType::kInt64 || type == KeyType::kLegacy) return plan;
      if (type == KeyType::kNone) {
        if (insert) plan.type = KeyType::kInt64;
        return plan;
      }
    } else if ((kind == Keys::Kind::kU32 || kind == Keys::Kind::kI32) &&
               (type == KeyType::kInt32 || type == KeyType::kLegacy)) {
      return plan;
    }
  }
  return PlanAnyKeys(who, type, keys, insert);
}
// Whether key i of 8-byte integer keys lies outside a kInt32 filter's range.
bool OutOfInt32(const Keys& keys, size_t i);
// After a query of n keys (key j = keys[sel[j]] when sel is set) whose plan has out_of_range:
// clears the results of the keys out of range in `out` (form `result`) and returns `hits` less
// them. O(n).
uint64_t ClearOutOfRange(const Keys& keys, const uint32_t* sel, size_t n, ResultKind result,
                         void* out, uint64_t hits);
// The same for per-key values (labels, counts, memberships): out[i] = 0. O(n).
template <class T>
void ZeroOutOfRange(const Keys& keys, size_t n, T* out) {
  for (size_t i = 0; i < n; ++i) {
    if (OutOfInt32(keys, i)) out[i] = 0;
  }
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_KEY_TYPES_H_
