// SPDX-License-Identifier: Apache-2.0
// The one check of every Keys shape and of output extents (lib/core/key_source.h): what every bulk
// call runs before it reads a key or writes a result.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// "0x..." for messages.
std::string Address(const void* p) {
  char text[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(text, sizeof(text), "0x%jx",
                static_cast<uintmax_t>(reinterpret_cast<uintptr_t>(p)));
  return text;
}

// Throws unless `count` entries of `size` bytes from p fit the address space; `what` names them.
// (The message is built out of line: a short bulk call, such as a packet burst, passes here on
// its fixed cost.)
[[noreturn]] __attribute__((noinline, cold)) void ArrayPastEnd(const char* who, const char* what,
                                                               const void* p, size_t count,
                                                               size_t size) {
  Invalid(std::string(who) + ": " + std::to_string(count) + " " + what +
          (size == 1 ? std::string() : " of " + std::to_string(size) + " bytes") + " at " +
          Address(p) + " pass the end of the address space");
}
inline void CheckArray(const char* who, const char* what, const void* p, size_t count,
                       size_t size) {
  if (count > SIZE_MAX / size || !FitsAddressSpace(p, uint64_t{count} * size)) {
    ArrayPastEnd(who, what, p, count, size);
  }
}

// Offsets must start >= 0 and never decrease. The check is a branch-free reduction over blocks of
// offsets (the compiler vectorizes it); only a failing block is searched for the index to report.
// A separate pass over the offsets either way, so the bulk calls validate once per call, not once
// per thread or step (perf/README.md, design note M8).
template <class Offset>
void CheckOffsets(const char* who, const Keys& keys) {
  if (keys.keys() == nullptr) Invalid(std::string(who) + ": null Arrow offsets");
  const Offset* offsets = static_cast<const Offset*>(keys.keys());
  auto at = [offsets](size_t i) {
    Offset v;
    std::memcpy(&v, offsets + i, sizeof(Offset));
    return v;
  };
  const Offset first = at(0);
  if (first < 0) Invalid(std::string(who) + ": negative Arrow offset at 0");
  const size_t n = keys.size();
  constexpr size_t kBlock = 1024;
  for (size_t b = 1; b <= n; b += kBlock) {
    const size_t e = std::min(n + 1, b + kBlock);
    bool bad = false;
    for (size_t i = b; i < e; ++i) bad |= at(i) < at(i - 1);
    if (bad) {
      for (size_t i = b; i < e; ++i) {
        if (at(i) < at(i - 1)) {
          Invalid(std::string(who) + ": Arrow offsets decrease at " + std::to_string(i));
        }
      }
    }
  }
  if (keys.data() == nullptr && at(n) != first) {
    Invalid(std::string(who) + ": null Arrow data with non-empty keys");
  }
  // The last offset is the largest: the keys span data[0 .. at(n)).
  const uint64_t end = static_cast<uint64_t>(at(n));
  const size_t declared = keys.data_size();
  if (declared != 0 && end > declared) {
    size_t i = 0;
    while (static_cast<uint64_t>(at(i)) <= declared) ++i;
    Invalid(std::string(who) + ": Arrow offsets[" + std::to_string(i) +
            "] = " + std::to_string(at(i)) + " passes the data's size, " +
            std::to_string(declared) + " bytes");
  }
  if (!FitsAddressSpace(keys.data(), end)) {
    Invalid(std::string(who) + ": Arrow offsets[" + std::to_string(n) + "] = " +
            std::to_string(end) + " bytes from the data pointer pass the end of the address space");
  }
}

}  // namespace

// Declared in lib/core/key_source.h.
void ValidateKeys(const char* who, const Keys& keys) {
  const size_t n = keys.size();
  if (n == 0) return;  // nothing is read
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kU32:
    case Keys::Kind::kI64:
    case Keys::Kind::kI32:
    case Keys::Kind::kU16:
    case Keys::Kind::kI16:
    case Keys::Kind::kPrehashed:
    case Keys::Kind::kStrings:
    case Keys::Kind::kStdStrings:
      if (keys.keys() == nullptr) Invalid(std::string(who) + ": null keys with non-zero size");
      break;
    case Keys::Kind::kBinary32:
    case Keys::Kind::kBinary64:
    case Keys::Kind::kFixedWidth:
      break;
  }
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kI64:
    case Keys::Kind::kPrehashed:
      CheckArray(who, "keys", keys.keys(), n, 8);
      break;
    case Keys::Kind::kU32:
    case Keys::Kind::kI32:
      CheckArray(who, "keys", keys.keys(), n, 4);
      break;
    case Keys::Kind::kU16:
    case Keys::Kind::kI16:
      CheckArray(who, "keys", keys.keys(), n, 2);
      break;
    case Keys::Kind::kStrings:
      CheckArray(who, "keys", keys.keys(), n, sizeof(std::string_view));
      break;
    case Keys::Kind::kStdStrings:
      CheckArray(who, "keys", keys.keys(), n, sizeof(std::string));
      break;
    case Keys::Kind::kBinary32:
      if (n == SIZE_MAX) CheckArray(who, "Arrow offsets", keys.keys(), n, 4);
      CheckArray(who, "Arrow offsets", keys.keys(), n + 1, 4);
      CheckOffsets<int32_t>(who, keys);
      break;
    case Keys::Kind::kBinary64:
      if (n == SIZE_MAX) CheckArray(who, "Arrow offsets", keys.keys(), n, 8);
      CheckArray(who, "Arrow offsets", keys.keys(), n + 1, 8);
      CheckOffsets<int64_t>(who, keys);
      break;
    case Keys::Kind::kFixedWidth: {
      // The records span (n - 1) * stride + width bytes from data.
      const size_t width = keys.width(), stride = keys.stride();
      if (stride != 0 && n - 1 > (SIZE_MAX - width) / stride) {
        Invalid(std::string(who) + ": FixedWidth records overflow the address space");
      }
      if (keys.keys() == nullptr && width != 0) {
        Invalid(std::string(who) + ": null FixedWidth data");
      }
      const uint64_t extent = uint64_t{n - 1} * stride + width;
      if (width != 0 && !FitsAddressSpace(keys.keys(), extent)) {
        Invalid(std::string(who) + ": FixedWidth records of width " + std::to_string(width) +
                " and stride " + std::to_string(stride) + " span " + std::to_string(extent) +
                " bytes from " + Address(keys.keys()) + ", past the end of the address space");
      }
      break;
    }
  }
}

void CheckExtent(const char* who, const char* what, const void* p, size_t count, size_t size) {
  CheckArray(who, what, p, count, size);
}

}  // namespace detail
}  // namespace simdbloom
