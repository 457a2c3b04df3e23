// SPDX-License-Identifier: Apache-2.0
// The bulk driver's checks and result clean-up (lib/core/driver.h): out of line, one message each.
#include "lib/core/driver.h"

#include <algorithm>
#include <string>

#include "lib/core/layout.h"

namespace simdbloom {
namespace detail {

void RefuseMovedFrom(const char* who) { Invalid(std::string(who) + ": the filter was moved from"); }

void RefuseNullOutput(const char* who) {
  Invalid(std::string(who) + ": null output with non-zero size");
}

void CheckSelectKeys(const char* who, uint64_t n) {
  if (n > kMaxSelectKeys) {
    Invalid(std::string(who) + ": more than 2^32 keys do not fit 32-bit selection indices");
  }
}

namespace {
// Per Form, in its order: what CheckExtent calls the output's elements, and their size.
struct OutputElements {
  const char* what;
  size_t size;
};
constexpr OutputElements kOutputElements[] = {
    {"result bytes", 1}, {"bitmap bytes", 1}, {"selection entries", 4}, {"count bytes", 1},
    {"labels", 2},       {"counts", 4},       {"fresh bytes", 1}};
static_assert(static_cast<int>(Form::kFlags) == 6, "kOutputElements follows Form");
}  // namespace

void CheckOutput(const BulkCall& c, size_t n) {
  if (c.out == nullptr && c.form != Form::kFlags) RefuseNullOutput(c.who);
  if (c.form == Form::kSelection && c.sel == nullptr) CheckSelectKeys(c.who, n);
  if (c.out == nullptr) return;  // per-key flags not asked for
  const OutputElements& e = kOutputElements[static_cast<int>(c.form)];
  const bool removed = c.form == Form::kFlags && c.op == BulkOp::kRemove;
  CheckExtent(c.who, removed ? "removed bytes" : e.what, c.out,
              c.form == Form::kBitmap ? n / 8 + (n % 8 != 0) : n, e.size);
}

uint64_t WriteHits(const BulkCall& c, size_t base, size_t m, const uint8_t* hit,
                   uint64_t* selected) {
  uint64_t ones = 0;
  switch (c.form) {
    case Form::kBitmap: {
      uint8_t* bitmap = static_cast<uint8_t*>(c.out);
      for (size_t b = 0; b < m; b += 8) {
        uint8_t byte = 0;
        for (size_t j = b; j < std::min(b + 8, m); ++j) {
          byte = static_cast<uint8_t>(byte | (hit[j] << (j - b)));
          ones += hit[j];
        }
        bitmap[(base + b) / 8] = byte;
      }
      return ones;
    }
    case Form::kSelection: {
      uint32_t* selection = static_cast<uint32_t*>(c.out);
      uint64_t at = *selected;
      for (size_t j = 0; j < m; ++j) {
        selection[at] = static_cast<uint32_t>(base + j);
        at += hit[j];
      }
      ones = at - *selected;
      *selected = at;
      return ones;
    }
    default: {
      uint8_t* out = static_cast<uint8_t*>(c.out);
      for (size_t j = 0; j < m; ++j) {
        out[base + j] = hit[j];
        ones += hit[j];
      }
      return ones;
    }
  }
}

namespace {
// Clears the per-key values o[0 .. n) of keys out of a kInt32 filter's range; returns `total`
// less their sum (kCounts, kCounts32) or less one per non-zero value (kLabels).
template <class T>
uint64_t ClearValues(const Keys& keys, size_t n, T* o, bool by_value, uint64_t total) {
  for (size_t i = 0; i < n; ++i) {
    if (o[i] != 0 && OutOfInt32(keys, i)) {
      total -= by_value ? o[i] : 1;
      o[i] = 0;
    }
  }
  return total;
}
}  // namespace

uint64_t ClearOutput(const Keys& keys, const uint32_t* sel, size_t n, Form form, void* out,
                     uint64_t total) {
  switch (form) {
    case Form::kBytes:
    case Form::kBitmap:
    case Form::kSelection:
      return ClearOutOfRange(keys, sel, n, ResultOf(form), out, total);
    case Form::kCounts:
      return ClearValues(keys, n, static_cast<uint8_t*>(out), true, total);
    case Form::kLabels:
      return ClearValues(keys, n, static_cast<uint16_t*>(out), false, total);
    case Form::kCounts32:
      return ClearValues(keys, n, static_cast<uint32_t*>(out), true, total);
    case Form::kFlags:
      break;
  }
  return total;
}

}  // namespace detail
}  // namespace simdbloom
