// SPDX-License-Identifier: Apache-2.0
// The C API of Guava's writeTo form (Filter::from_guava / to_guava; layouts SIMDBLOOM_GUAVA and
// SIMDBLOOM_GUAVA32): simdbloom_from_guava, simdbloom_guava_size, simdbloom_to_guava.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/capi/shim.h"

using simdbloom::capi::CheckArray;
using simdbloom::capi::Guard;
using simdbloom::capi::NotNull;
using simdbloom::capi::Reject;

namespace {

// Bytes to_guava writes for f: 6 + 8 per long (to_guava checks the layout and the seed).
size_t GuavaSize(const simdbloom::Filter& f) { return 6 + f.size_bytes(); }

void CheckGuavaLayout(const simdbloom::Filter& f) {
  if (f.layout() != simdbloom::Layout::kGuava && f.layout() != simdbloom::Layout::kGuava32) {
    simdbloom::capi::Rejected r{SIMDBLOOM_EINCOMPATIBLE,
                                std::string("layout ") + simdbloom::layout_name(f.layout()) +
                                    " is not Guava's (SIMDBLOOM_GUAVA or SIMDBLOOM_GUAVA32)"};
    throw r;
  }
}

}  // namespace

simdbloom_status simdbloom_from_guava(const void* data, size_t size, int key_type,
                                      simdbloom_filter** out) {
  return Guard("simdbloom_from_guava", [&] {
    CheckArray(data, size, 1, "data", "size");
    NotNull(out, "out");
    const simdbloom::KeyType t = simdbloom::capi::KeyTypeOf(key_type);
    simdbloom::capi::Wrap(simdbloom::Filter::from_guava(static_cast<const uint8_t*>(data), size, t),
                          out);
  });
}

size_t simdbloom_guava_size(const simdbloom_filter* filter) {
  size_t n = 0;
  Guard("simdbloom_guava_size", [&] {
    NotNull(filter, "filter");
    CheckGuavaLayout(filter->filter);
    n = GuavaSize(filter->filter);
  });
  return n;
}

simdbloom_status simdbloom_to_guava(const simdbloom_filter* filter, void* buf, size_t capacity) {
  return Guard("simdbloom_to_guava", [&] {
    NotNull(filter, "filter");
    NotNull(buf, "buf");
    CheckArray(buf, capacity, 1, "buf", "capacity");
    CheckGuavaLayout(filter->filter);
    const size_t need = GuavaSize(filter->filter);
    if (capacity < need) {
      Reject("capacity " + std::to_string(capacity) + " is below the " + std::to_string(need) +
             " bytes of Guava's form (simdbloom_guava_size)");
    }
    const std::vector<uint8_t> bytes = filter->filter.to_guava();
    std::memcpy(buf, bytes.data(), bytes.size());
  });
}
