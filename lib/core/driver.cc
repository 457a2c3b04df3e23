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

void CheckOutput(const BulkCall& c, size_t n) {
  if (c.out == nullptr && c.form != Form::kFlags) RefuseNullOutput(c.who);
  if (c.form == Form::kSelection && c.sel == nullptr) CheckSelectKeys(c.who, n);
  switch (c.form) {
    case Form::kBytes:
      CheckExtent(c.who, "result bytes", c.out, n, 1);
      break;
    case Form::kBitmap:
      CheckExtent(c.who, "bitmap bytes", c.out, n / 8 + (n % 8 != 0), 1);
      break;
    case Form::kSelection:
      CheckExtent(c.who, "selection entries", c.out, n, 4);
      break;
    case Form::kCounts:
      CheckExtent(c.who, "count bytes", c.out, n, 1);
      break;
    case Form::kLabels:
      CheckExtent(c.who, "labels", c.out, n, 2);
      break;
    case Form::kCounts32:
      CheckExtent(c.who, "counts", c.out, n, 4);
      break;
    case Form::kFlags:
      if (c.out != nullptr) {
        CheckExtent(c.who, c.op == BulkOp::kRemove ? "removed bytes" : "fresh bytes", c.out, n, 1);
      }
      break;
  }
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

uint64_t ClearOutput(const Keys& keys, const uint32_t* sel, size_t n, Form form, void* out,
                     uint64_t total) {
  switch (form) {
    case Form::kBytes:
    case Form::kBitmap:
    case Form::kSelection:
      return ClearOutOfRange(keys, sel, n, ResultOf(form), out, total);
    case Form::kCounts: {
      uint8_t* o = static_cast<uint8_t*>(out);
      for (size_t i = 0; i < n; ++i) {
        if (o[i] != 0 && OutOfInt32(keys, i)) {
          total -= o[i];
          o[i] = 0;
        }
      }
      return total;
    }
    case Form::kLabels: {
      uint16_t* o = static_cast<uint16_t*>(out);
      for (size_t i = 0; i < n; ++i) {
        if (o[i] != 0 && OutOfInt32(keys, i)) {
          o[i] = 0;
          --total;
        }
      }
      return total;
    }
    case Form::kCounts32: {
      uint32_t* o = static_cast<uint32_t*>(out);
      for (size_t i = 0; i < n; ++i) {
        if (o[i] != 0 && OutOfInt32(keys, i)) {
          total -= o[i];
          o[i] = 0;
        }
      }
      return total;
    }
    case Form::kFlags:
      break;
  }
  return total;
}

}  // namespace detail
}  // namespace simdbloom
